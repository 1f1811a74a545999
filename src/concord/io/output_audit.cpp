#include "concord/io/output_audit.hpp"

#include <sstream>

#include "concord/body/affine_body.hpp"
#include "concord/math/error.hpp"

namespace concord {

OutputAuditSummary audit_output(const OutputReader& reader,
                                const std::function<void(int frame)>& on_frame) {
    const auto& infos = reader.bodies();
    const std::vector<TriMesh> meshes = reader.load_meshes();
    // Elastic bodies are placed with their modes: x = p + A (X + Phi eta).
    std::vector<MatX> modes;
    for (std::size_t b = 0; b < infos.size(); ++b) {
        modes.push_back(reader.load_modes(static_cast<int>(b)));
        if (modes.back().cols() > 0 && modes.back().rows() != 3 * meshes[b].vertices.rows())
            throw InputError(reader.directory() + ": body '" + infos[b].name +
                             "': its modes file does not match its mesh");
    }
    std::vector<HalfSpace> planes;
    for (const PlaneSpec& p : reader.planes()) planes.push_back({p.point, p.normal});

    OutputAuditSummary summary;
    summary.bodies = static_cast<int>(infos.size());
    summary.planes = static_cast<int>(planes.size());
    std::vector<Vertices> world(meshes.size());
    std::vector<AuditBody> bodies(meshes.size());
    FrameStream frames = reader.frames();
    FrameRecord record;
    while (frames.next(record)) {
        for (std::size_t b = 0; b < meshes.size(); ++b) {
            world[b] = row_world_vertices(meshes[b], modes[b], record.q[b]);
            bodies[b] = {&meshes[b].faces, &world[b]};
        }
        AuditResult result =
            audit_intersections(bodies, planes, 16, reader.contact_exclusions());
        ++summary.frames;
        summary.triangle_hits += result.triangle_hit_count;
        summary.plane_hits += result.plane_hit_count;
        if (!result.clean) {
            ++summary.frames_with_intersections;
            if (!summary.first_intersection) {
                summary.first_intersection =
                    FrameAudit{record.frame, record.time, std::move(result)};
            }
        }
        if (on_frame) on_frame(record.frame);
    }
    return summary;
}

namespace {

std::string plural(std::int64_t n, const std::string& one, const std::string& many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string plural(std::int64_t n, const std::string& one) {
    return plural(n, one, one + "s");
}

}  // namespace

std::string audit_summary_line(const OutputAuditSummary& s, const OutputReader& reader) {
    std::ostringstream line;
    const std::string scope = plural(s.frames, "frame") + ", " +
                              plural(s.bodies, "body", "bodies") + ", " + plural(s.planes, "plane");
    if (s.clean()) {
        line << "clean: no intersection in " << scope << " (" << reader.directory() << ")";
        return line.str();
    }
    const FrameAudit& f = *s.first_intersection;
    auto name = [&](int b) {
        return "\"" + reader.bodies()[static_cast<std::size_t>(b)].name + "\"";
    };
    line << "INTERSECTION in " << s.frames_with_intersections << " of " << scope
         << "; first at frame " << f.frame << " (t = " << f.time << "): ";
    if (!f.result.triangle_hits.empty()) {
        const TriangleHit& h = f.result.triangle_hits.front();
        line << "bodies " << name(h.body_a) << " and " << name(h.body_b) << " (triangles "
             << h.face_a << " and " << h.face_b << "; "
             << plural(f.result.triangle_hit_count, "intersecting triangle pair")
             << " in that frame)";
        if (!f.result.plane_hits.empty()) line << "; ";
    }
    if (!f.result.plane_hits.empty()) {
        const PlaneHit& h = f.result.plane_hits.front();
        line << "body " << name(h.body) << " vertex " << h.vertex << " on or below plane "
             << h.plane << " (" << plural(f.result.plane_hit_count, "vertex violation")
             << " in that frame)";
    }
    return line.str();
}

}  // namespace concord
