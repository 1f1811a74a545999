#include "concord/export/plots.hpp"

#include <cmath>
#include <filesystem>

#include "concord/math/error.hpp"

namespace concord {

Chart admm_convergence_chart(const AdmmTrace& trace, std::optional<int> frame,
                             const std::string& source) {
    if (frame && !trace.count(*frame)) {
        throw InputError(source + ": no frame " + std::to_string(*frame) +
                         " in the trace (frames: " + std::to_string(trace.begin()->first) + ".." +
                         std::to_string(trace.rbegin()->first) + ")");
    }
    Chart chart;
    chart.title = frame ? "ADMM convergence, frame " + std::to_string(*frame)
                        : "ADMM convergence, " + std::to_string(trace.size()) + " frame(s)";
    ChartPanel residuals;
    residuals.title = "residual (log scale)";
    residuals.x_label = "ADMM iteration";
    residuals.log_y = true;
    residuals.integer_x = true;
    ChartSeries primal{"primal residual", "#d62728", {}}, dual{"dual residual", "#1f77b4", {}},
        mse{"MSE (m^2)", "#2ca02c", {}};
    bool has_mse = false;
    for (const auto& [f, its] : trace) {
        if (frame && f != *frame) continue;
        std::vector<Vec2> p, d, m;
        for (const AdmmIteration& it : its) {
            p.emplace_back(it.iteration, it.primal_residual);
            d.emplace_back(it.iteration, it.dual_residual);
            m.emplace_back(it.iteration, it.mse.value_or(std::nan("")));
            has_mse = has_mse || it.mse.has_value();
        }
        primal.lines.push_back(std::move(p));
        dual.lines.push_back(std::move(d));
        mse.lines.push_back(std::move(m));
    }
    residuals.series = {primal, dual};
    if (has_mse) residuals.series.push_back(mse);
    chart.panels.push_back(residuals);

    if (!frame && trace.size() > 1) {
        ChartPanel per_frame;
        per_frame.title = "ADMM iterations per frame";
        per_frame.x_label = "frame";
        per_frame.integer_x = true;
        ChartSeries count{"iterations", "#ff7f0e", {{}}};
        for (const auto& [f, its] : trace) count.lines[0].emplace_back(f, its.size());
        per_frame.series = {count};
        chart.panels.push_back(per_frame);
    }
    return chart;
}

Chart frame_stats_chart(const OutputReader& reader) {
    ChartSeries contacts{"contacts", "#1f77b4", {{}}}, candidates{"candidates", "#9467bd", {{}}},
        newton{"Newton iterations", "#2ca02c", {{}}}, t_frame{"frame", "#444444", {{}}},
        t_coll{"collision", "#17becf", {{}}}, t_solve{"solve", "#e377c2", {{}}},
        min_distance{"min distance", "#d62728", {{}}};
    int frames = 0;
    bool any_contact = false;
    FrameStream stream = reader.frames();
    FrameRecord r;
    while (stream.next(r)) {
        const double x = r.frame;
        contacts.lines[0].emplace_back(x, r.stats.contacts);
        candidates.lines[0].emplace_back(x, r.stats.candidates);
        newton.lines[0].emplace_back(x, r.stats.newton_iterations);
        t_frame.lines[0].emplace_back(x, r.stats.t_frame);
        t_coll.lines[0].emplace_back(x, r.stats.t_coll);
        t_solve.lines[0].emplace_back(x, r.stats.t_solve);
        // Frames without any pair examined have an infinite minimum: a gap in the line.
        min_distance.lines[0].emplace_back(
            x, std::isfinite(r.stats.min_distance) ? r.stats.min_distance : std::nan(""));
        any_contact = any_contact || std::isfinite(r.stats.min_distance);
        ++frames;
    }
    if (frames == 0) throw InputError(reader.directory() + "/frames.jsonl: no frames");

    Chart chart;
    const std::string name = reader.scene().value("name", std::string());
    chart.title =
        (name.empty() ? std::filesystem::path(reader.directory()).filename().string() : name) +
        ": " + std::to_string(frames) + " frames";
    chart.panel_height = 220;
    chart.panels.push_back({"contact pairs", "frame", false, true, {contacts, candidates}});
    chart.panels.push_back({"iterations", "frame", false, true, {newton}});
    chart.panels.push_back(
        {"time per frame (s)", "frame", false, true, {t_frame, t_coll, t_solve}});
    if (any_contact)
        chart.panels.push_back(
            {"smallest distance (m, log scale)", "frame", true, true, {min_distance}});
    return chart;
}

}  // namespace concord
