// `concord plot TRACE --out plot.svg|png`: ADMM convergence plots from a trace file, or the
// per-frame statistics of an output directory (or its frames.jsonl).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "commands.hpp"
#include "unfinished_run.hpp"
#include "concord/export/admm_trace.hpp"
#include "concord/export/image.hpp"
#include "concord/export/plots.hpp"
#include "concord/io/output_layout.hpp"
#include "concord/io/output_reader.hpp"
#include "concord/math/error.hpp"

namespace concord::cli {
namespace {

namespace fs = std::filesystem;

struct PlotOptions {
    std::string trace;
    std::string out;
    int frame = -1;
    int width = 900;
};

int run_plot(const PlotOptions& o) {
    const std::string ext = fs::path(o.out).extension().string();
    if (ext != ".svg" && ext != ".png")
        throw InputError("--out: " + o.out + ": expected a .svg or .png file name");

    std::error_code ec;
    Chart chart;
    std::string what;
    if (fs::is_directory(o.trace, ec) || fs::path(o.trace).filename() == output_layout::kFrames) {
        const std::string dir =
            fs::is_directory(o.trace, ec) ? o.trace : fs::path(o.trace).parent_path().string();
        OutputReader reader(dir.empty() ? "." : dir);
        note_unfinished_run("plot", reader);
        chart = frame_stats_chart(reader);
        what = "per-frame statistics";
    } else if (!fs::exists(o.trace, ec)) {
        throw InputError(o.trace + ": no such file or folder");
    } else if (looks_like_admm_trace(o.trace)) {
        const AdmmTrace trace = read_admm_trace(o.trace);
        chart = admm_convergence_chart(
            trace, o.frame >= 0 ? std::optional<int>(o.frame) : std::nullopt, o.trace);
        what = "ADMM convergence";
    } else {
        throw InputError(o.trace +
                         ": neither an output directory, its frames.jsonl, nor an ADMM trace "
                         "(lines with \"iteration\" and \"primal_residual\"; see docs/export.md)");
    }
    chart.width = o.width;

    if (ext == ".svg") {
        std::ofstream out(o.out, std::ios::binary | std::ios::trunc);
        out << chart_to_svg(chart);
        out.close();
        if (!out) throw InputError(o.out + ": cannot write file");
    } else {
        write_png(chart_to_image(chart), o.out);
    }
    std::cout << "concord plot: wrote " << o.out << " (" << what << ", " << chart.panels.size()
              << " panel(s))" << std::endl;
    return kExitOk;
}

}  // namespace

void register_plot(CLI::App& app, Action& action) {
    auto o = std::make_shared<PlotOptions>();
    auto* cmd =
        app.add_subcommand("plot", "Plot an ADMM trace or an output directory's per-frame stats");
    cmd->add_option("trace", o->trace, "ADMM trace (.jsonl), output directory, or its frames.jsonl")
        ->required();
    cmd->add_option("--out", o->out, "plot.svg or plot.png")->required();
    cmd->add_option("--frame", o->frame, "ADMM trace: plot only this frame (default: all)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--width", o->width, "Picture width in pixels (default 900)")
        ->check(CLI::Range(300, 8000));
    cmd->callback([o, &action] { action = [o] { return run_plot(*o); }; });
}

}  // namespace concord::cli
