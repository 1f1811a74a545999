#include "concord/export/output_renderer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "concord/export/affine_map.hpp"
#include "concord/export/software_rasterizer.hpp"
#include "concord/math/error.hpp"

namespace concord {

namespace {

Vec3 mean_vertex(const TriMesh& m) {
    return m.vertices.rows() > 0 ? Vec3(m.vertices.colwise().mean().transpose()) : Vec3::Zero();
}

std::optional<Vec3> scene_gravity(const nlohmann::json& scene) {
    const auto it = scene.find("gravity");
    if (it == scene.end() || !it->is_array() || it->size() != 3) return std::nullopt;
    for (const auto& x : *it)
        if (!x.is_number()) return std::nullopt;
    return Vec3((*it)[0].get<double>(), (*it)[1].get<double>(), (*it)[2].get<double>());
}

/// The particle radius of the first fluid block of scene.json (every block has the same one,
/// docs/scene-format.md); 0 when the scene has no fluid.
double scene_fluid_radius(const nlohmann::json& scene) {
    const auto it = scene.find("fluids");
    if (it == scene.end() || !it->is_array() || it->empty()) return 0.0;
    const auto& block = (*it)[0];
    const auto r = block.find("particle_radius");
    return r != block.end() && r->is_number() && r->get<double>() > 0 ? r->get<double>() : 0.0;
}

/// Scene plane as a checkerboard of tiles, `size` across, centred near `centre`.
void draw_plane(SoftwareRasterizer& r, const PlaneSpec& plane, const Vec3& centre, double size) {
    const Vec3 n = plane.normal.normalized();
    const Vec3 c = centre - n * n.dot(centre - plane.point);
    const Vec3 u = n.unitOrthogonal();
    const Vec3 v = n.cross(u);
    constexpr int kTiles = 20;
    const double step = size / kTiles;
    const Rgb light = {0.54f, 0.56f, 0.60f}, dark = {0.42f, 0.44f, 0.48f};
    for (int i = 0; i < kTiles; ++i) {
        for (int j = 0; j < kTiles; ++j) {
            const Vec3 o = c + u * (step * i - size / 2) + v * (step * j - size / 2);
            const Rgb& colour = (i + j) % 2 == 0 ? light : dark;
            r.draw_triangle(o, o + u * step, o + u * step + v * step, colour);
            r.draw_triangle(o, o + u * step + v * step, o + v * step, colour);
        }
    }
}

}  // namespace

ColourMode parse_colour_mode(const std::string& name) {
    if (name == "body") return ColourMode::Body;
    if (name == "worker") return ColourMode::Worker;
    if (name == "speed") return ColourMode::Speed;
    if (name == "contacts") return ColourMode::Contacts;
    throw InputError("--color: expected body, worker, speed or contacts, got \"" + name + "\"");
}

RunOverview survey_run(const OutputReader& reader, const std::vector<TriMesh>& meshes,
                       bool with_speeds, bool with_fluid) {
    RunOverview o;
    o.fluid_radius = scene_fluid_radius(reader.scene());
    const std::optional<Vec3> gravity = scene_gravity(reader.scene());
    const Vec3 up = up_from_gravity(gravity);
    const double g = gravity && gravity->norm() > 0 ? gravity->norm() : 9.81;
    const std::size_t n = meshes.size();
    std::vector<Eigen::AlignedBox3d> local(n);
    std::vector<Vec3> centroid(n), previous(n);
    for (std::size_t b = 0; b < n; ++b) {
        const AABB box = meshes[b].bounds();
        local[b] = box.empty() ? Eigen::AlignedBox3d(Vec3::Zero(), Vec3::Zero())
                               : Eigen::AlignedBox3d(box.min, box.max);
        centroid[b] = mean_vertex(meshes[b]);
    }
    FrameStream stream = reader.frames();
    FrameRecord r;
    while (stream.next(r)) {
        for (std::size_t b = 0; b < n; ++b) {
            const AffineMap map = affine_map_from_row(r.q[b]);
            for (int k = 0; k < 8; ++k)
                o.bounds.extend(
                    map.apply(local[b].corner(static_cast<Eigen::AlignedBox3d::CornerType>(k))));
            if (with_speeds) {
                const Vec3 c = map.apply(centroid[b]);
                float speed = 0.0f;
                if (!o.frames.empty()) {
                    const double dt = r.time - o.times.back();
                    speed = dt > 0 ? static_cast<float>((c - previous[b]).norm() / dt) : 0.0f;
                }
                o.speeds.push_back(speed);
                o.max_speed = std::max(o.max_speed, static_cast<double>(speed));
                previous[b] = c;
            }
        }
        if (o.first_owners.empty() && r.stats.distributed)
            o.first_owners = r.stats.distributed->owners;
        if (!r.stats.body_contacts.empty()) {
            o.has_body_contacts = true;
            for (int c : r.stats.body_contacts)
                o.max_body_contacts = std::max(o.max_body_contacts, c);
        }
        if (with_fluid && o.fluid_radius > 0) {
            if (const std::optional<NpyMatrix> fluid = reader.load_fluid(r.frame)) {
                double low = std::numeric_limits<double>::infinity(), high = -low;
                for (std::size_t i = 0; i < fluid->rows; ++i) {
                    const float* row = &fluid->data[5 * i];
                    const Vec3 x(row[0], row[1], row[2]);
                    if (!x.allFinite()) continue;
                    o.bounds.extend(x);
                    low = std::min(low, x.dot(up));
                    high = std::max(high, x.dot(up));
                }
                if (!o.has_fluid && high > low)
                    o.fluid_speed_scale = std::sqrt(2 * g * (high - low));
                o.has_fluid = true;
                o.max_fluid_particles =
                    std::max(o.max_fluid_particles, static_cast<long>(fluid->rows));
            }
        }
        o.frames.push_back(r.frame);
        o.times.push_back(r.time);
    }
    if (with_speeds && o.frames.size() > 1)
        std::copy(o.speeds.begin() + static_cast<long>(n),
                  o.speeds.begin() + 2 * static_cast<long>(n), o.speeds.begin());
    return o;
}

OutputRenderer::OutputRenderer(const OutputReader& reader, std::vector<TriMesh> meshes,
                               RenderOptions options, const RunOverview& overview)
    : reader_(reader),
      meshes_(std::move(meshes)),
      options_(std::move(options)),
      overview_(overview),
      mode_(options_.colour) {
    const Vec3 up = up_from_gravity(scene_gravity(reader.scene()));
    const double aspect = static_cast<double>(options_.width) / options_.height;
    camera_ = fit_camera(overview.bounds, up, aspect, options_.fov_deg);
    if (!options_.camera.empty())
        camera_ = parse_camera(options_.camera, camera_.target, up, options_.fov_deg);
    for (const TriMesh& m : meshes_) triangles_ += m.num_faces();
    // Elastic bodies are drawn deformed: x = p + A (X + Phi eta).
    for (std::size_t b = 0; b < meshes_.size(); ++b)
        modes_.push_back(b < reader.bodies().size() ? reader.load_modes(static_cast<int>(b))
                                                    : MatX());

    // Owners come with every frame of a distributed run (but frame 0); asking for worker colours
    // of a single-machine run is a mistake worth stopping for, not a picture in body colours.
    if (mode_ == ColourMode::Worker) {
        if (overview_.first_owners.empty())
            throw InputError(reader.directory() +
                             "/frames.jsonl: --color worker needs a distributed run (no frame has "
                             "stats.owners; run with --workers N)");
        check_owners(overview_.first_owners, "the first frame with owners");
    } else if (mode_ == ColourMode::Contacts && !overview_.has_body_contacts) {
        // Runs written before stats.body_contacts existed have only the total count.
        colour_note_ =
            "no per-body contact counts in frames.jsonl (stats.body_contacts): using body colours";
        mode_ = ColourMode::Body;
    } else if (mode_ == ColourMode::Speed && overview_.speeds.empty()) {
        colour_note_ = "speeds were not surveyed: using body colours";
        mode_ = ColourMode::Body;
    }
}

void OutputRenderer::check_owners(const std::vector<int>& owners, const std::string& where) const {
    if (owners.size() != meshes_.size())
        throw InputError(reader_.directory() + "/frames.jsonl: " + where + ": stats.owners has " +
                         std::to_string(owners.size()) + " entries, expected " +
                         std::to_string(meshes_.size()) + " (one per body)");
}

void OutputRenderer::check_body_contacts(const FrameRecord& frame) const {
    const std::size_t n = frame.stats.body_contacts.size();
    if (n != 0 && n != meshes_.size())
        throw InputError(reader_.directory() + "/frames.jsonl: frame " +
                         std::to_string(frame.frame) + ": stats.body_contacts has " +
                         std::to_string(n) + " entries, expected " +
                         std::to_string(meshes_.size()) + " (one per body)");
}

std::vector<Rgb> OutputRenderer::body_colours(const FrameRecord& frame) const {
    const std::size_t n = meshes_.size();
    std::vector<Rgb> colours(n);
    if (mode_ == ColourMode::Worker) {
        const bool own = frame.stats.distributed && !frame.stats.distributed->owners.empty();
        const std::vector<int>& owners =
            own ? frame.stats.distributed->owners : overview_.first_owners;
        if (own) check_owners(owners, "frame " + std::to_string(frame.frame));
        for (std::size_t b = 0; b < n; ++b) colours[b] = worker_colour(owners[b]);
        return colours;
    }
    if (mode_ == ColourMode::Contacts) {
        // The viewer's ramp: count / (largest count of the run); a frame without counts (frame
        // 0 of an older run) shows zeros.
        check_body_contacts(frame);
        const std::vector<int>& c = frame.stats.body_contacts;
        const double top = std::max(1, overview_.max_body_contacts);
        for (std::size_t b = 0; b < n; ++b) colours[b] = ramp_colour(c.empty() ? 0.0 : c[b] / top);
        return colours;
    }
    if (mode_ == ColourMode::Speed) {
        const auto it =
            std::lower_bound(overview_.frames.begin(), overview_.frames.end(), frame.frame);
        const std::size_t f = static_cast<std::size_t>(it - overview_.frames.begin());
        for (std::size_t b = 0; b < n; ++b) {
            const double v = f < overview_.frames.size() ? overview_.speeds[f * n + b] : 0.0;
            colours[b] = ramp_colour(overview_.max_speed > 0 ? v / overview_.max_speed : 0.0);
        }
        return colours;
    }
    for (std::size_t b = 0; b < n; ++b) colours[b] = body_colour(static_cast<int>(b));
    return colours;
}

Image OutputRenderer::render(const FrameRecord& frame) const {
    SoftwareRasterizer r(options_.width, options_.height, camera_, options_.supersample);
    r.clear(options_.background);
    const std::vector<Rgb> colours = body_colours(frame);
    for (std::size_t b = 0; b < meshes_.size(); ++b) {
        const Vertices x = row_world_vertices(meshes_[b], modes_[b], frame.q[b]);
        const Faces& faces = meshes_[b].faces;
        for (Eigen::Index f = 0; f < faces.rows(); ++f) {
            r.draw_triangle(x.row(faces(f, 0)).transpose(), x.row(faces(f, 1)).transpose(),
                            x.row(faces(f, 2)).transpose(), colours[b]);
        }
    }
    particles_ = 0;
    if (options_.fluid && overview_.has_fluid) {
        if (const std::optional<NpyMatrix> fluid = reader_.load_fluid(frame.frame)) {
            // Speed colours the water from blue to foam white (viridis with --color speed).
            const double top = overview_.fluid_speed_scale;
            for (std::size_t i = 0; i < fluid->rows; ++i) {
                const float* row = &fluid->data[5 * i];
                const double t = row[3] / top;
                r.draw_sphere(Vec3(row[0], row[1], row[2]), overview_.fluid_radius,
                              mode_ == ColourMode::Speed ? ramp_colour(t) : fluid_colour(t));
            }
            particles_ = static_cast<long>(fluid->rows);
        }
    }
    if (options_.planes) {
        const Vec3 centre =
            overview_.bounds.isEmpty() ? Vec3(Vec3::Zero()) : Vec3(overview_.bounds.center());
        const double radius = std::max(
            1e-3, overview_.bounds.isEmpty() ? 1.0 : overview_.bounds.diagonal().norm() / 2);
        for (const PlaneSpec& p : reader_.planes()) draw_plane(r, p, centre, 6 * radius);
    }
    return r.resolve();
}

}  // namespace concord
