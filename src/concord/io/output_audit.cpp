#include "concord/io/output_audit.hpp"

#include <sstream>

#include <filesystem>

#include "concord/body/affine_body.hpp"
#include "concord/fluid/fluid_sampling.hpp"
#include "concord/geometry/mesh_validation.hpp"
#include "concord/io/npy_file.hpp"
#include "concord/io/output_layout.hpp"
#include "concord/math/error.hpp"

namespace concord {

namespace {

/// The fluid of one frame against its bodies (placed in `world`) and the planes.
void audit_fluid(const OutputReader& reader, const FrameRecord& record,
                 const std::vector<TriMesh>& meshes, const std::vector<Vertices>& world,
                 const std::vector<bool>& closed, const std::vector<HalfSpace>& planes,
                 OutputAuditSummary& summary) {
    const std::optional<NpyMatrix> fluid = reader.load_fluid(record.frame);
    if (!fluid)
        throw InputError(reader.directory() + "/" + output_layout::fluid_path(record.frame) +
                         ": missing (the run has a fluid; every saved frame has its file)");
    const NpyMatrix& m = *fluid;
    summary.fluid_particles = static_cast<std::int64_t>(m.rows);
    std::vector<TriMesh> placed(meshes.size());
    std::vector<AABB> boxes(meshes.size());
    for (std::size_t b = 0; b < meshes.size(); ++b) {
        if (!closed[b]) continue;
        placed[b].vertices = world[b];
        placed[b].faces = meshes[b].faces;
        boxes[b] = placed[b].bounds();
    }
    std::int64_t inside = 0;
    int first_body = -2;
    for (std::size_t i = 0; i < m.rows; ++i) {
        const Vec3 x(m.data[5 * i], m.data[5 * i + 1], m.data[5 * i + 2]);
        int what = -2;
        for (const HalfSpace& p : planes)
            if ((x - p.point).dot(p.normal) < 0.0) what = -1;
        for (std::size_t b = 0; b < meshes.size() && what == -2; ++b) {
            if (!closed[b] || (x.array() < boxes[b].min.array()).any() ||
                (x.array() > boxes[b].max.array()).any())
                continue;
            if (point_in_closed_mesh(placed[b], x)) what = static_cast<int>(b);
        }
        if (what == -2) continue;
        if (inside++ == 0) first_body = what;
    }
    if (inside == 0) return;
    ++summary.frames_with_fluid_in_bodies;
    summary.fluid_in_bodies += inside;
    if (!summary.first_fluid_in_body)
        summary.first_fluid_in_body =
            OutputAuditSummary::FluidHit{record.frame, record.time, inside, first_body};
}

}  // namespace

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
    namespace fs = std::filesystem;
    summary.has_fluid = fs::exists(fs::path(reader.directory()) / output_layout::fluid_path(0));
    std::vector<bool> closed(meshes.size());
    for (std::size_t b = 0; b < meshes.size(); ++b) closed[b] = validate_mesh(meshes[b]).closed;
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
        AuditResult result = audit_intersections(bodies, planes, 16, reader.contact_exclusions());
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
        if (summary.has_fluid) audit_fluid(reader, record, meshes, world, closed, planes, summary);
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
    const std::string fluid =
        s.has_fluid ? ", " + plural(s.fluid_particles, "fluid particle") : std::string();
    if (s.clean()) {
        line << "clean: no intersection in " << scope << fluid << " (" << reader.directory() << ")";
        return line.str();
    }
    auto name = [&](int b) {
        return "\"" + reader.bodies()[static_cast<std::size_t>(b)].name + "\"";
    };
    if (!s.first_intersection) {
        const auto& h = *s.first_fluid_in_body;
        line << "FLUID IN BODIES in " << s.frames_with_fluid_in_bodies << " of " << scope << fluid
             << "; first at frame " << h.frame << " (t = " << h.time
             << "): " << plural(h.particles, "particle") << " inside "
             << (h.body < 0 ? std::string("a plane") : "body " + name(h.body));
        return line.str();
    }
    const FrameAudit& f = *s.first_intersection;
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
    if (s.frames_with_fluid_in_bodies > 0)
        line << "; fluid inside bodies in " << s.frames_with_fluid_in_bodies << " frames";
    return line.str();
}

}  // namespace concord
