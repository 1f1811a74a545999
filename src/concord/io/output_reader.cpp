#include "concord/io/output_reader.hpp"

#include <algorithm>
#include <cmath>

#include <filesystem>

#include "concord/body/affine_body.hpp"
#include "concord/geometry/mesh_io.hpp"
#include "concord/io/output_layout.hpp"
#include "concord/io/run_resume.hpp"
#include "concord/io/step_stats_json.hpp"
#include "concord/math/error.hpp"
#include "concord/scene/body_name.hpp"
#include "concord/scene/json_file.hpp"
#include "concord/scene/json_node.hpp"
#include "concord/scene/scene_names.hpp"
#include "concord/scene/scene_parser.hpp"

namespace concord {

namespace fs = std::filesystem;

namespace {

/// Largest number of coordinates one body may have per frame (12 affine + reduced modes).
constexpr int kMaxDofs = 12 + 100000;

/// A mesh path from bodies.json must stay inside the output directory.
bool is_inside_relative_path(const std::string& p) {
    fs::path path(p);
    if (path.empty() || path.is_absolute()) return false;
    for (const auto& part : path) {
        if (part == "..") return false;
    }
    return true;
}

std::vector<OutputBodyInfo> parse_bodies(const nlohmann::json& json, const std::string& source,
                                         const fs::path& dir) {
    JsonNode root(json, source);
    std::size_t count = root.array_size();
    std::vector<OutputBodyInfo> bodies;
    bodies.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        JsonNode node = root.element(i);
        if (!node.value().is_object()) node.fail("expected an object, got " + node.describe());
        OutputBodyInfo b;
        JsonNode name = node.child("name");
        b.name = name.name();
        if (!is_file_safe_name(b.name)) name.fail("not a valid body name: " + name.describe());
        JsonNode mesh = node.child("mesh");
        b.mesh = mesh.name();
        if (!is_inside_relative_path(b.mesh)) {
            mesh.fail("expected a path inside the output directory, got " + mesh.describe());
        }
        std::error_code ec;
        if (!fs::is_regular_file(dir / b.mesh, ec)) {
            mesh.fail("mesh file not found: " + (dir / b.mesh).string());
        }
        JsonNode motion = node.child("motion");
        auto m = motion_type_from_name(motion.string());
        if (!m)
            motion.fail("expected \"dynamic\", \"static\" or \"kinematic\", got " +
                        motion.describe());
        b.motion = *m;
        if (auto n = node.find("dofs")) b.dofs = n->integer(12, kMaxDofs);
        if (auto n = node.find("modes")) {
            b.modes = n->name();
            if (!is_inside_relative_path(b.modes))
                n->fail("expected a path inside the output directory, got " + n->describe());
            if (!fs::is_regular_file(dir / b.modes, ec))
                n->fail("modes file not found: " + (dir / b.modes).string());
        } else if (b.dofs > 12) {
            node.fail("a body with " + std::to_string(b.dofs) +
                      " coordinates needs a \"modes\" file");
        }
        bodies.push_back(std::move(b));
    }
    return bodies;
}

}  // namespace

OutputReader::OutputReader(std::string dir) : dir_(std::move(dir)) {
    fs::path path(dir_);
    std::error_code ec;
    if (!fs::is_directory(path, ec))
        throw InputError(dir_ + ": not an output directory (no such folder)");
    std::string bodies_file = (path / output_layout::kBodies).string();
    bodies_ = parse_bodies(read_json_file(bodies_file), bodies_file, path);
    std::string scene_file = (path / output_layout::kScene).string();
    scene_ = read_json_file(scene_file);
    planes_ = parse_scene_planes(scene_, scene_file);
    if (scene_.is_object() && scene_.contains("contact") && scene_["contact"].is_object() &&
        scene_["contact"].contains("exclude")) {
        const nlohmann::json& list = scene_["contact"]["exclude"];
        const auto bad = [&](const std::string& why) {
            return InputError(scene_file + ": contact.exclude: " + why);
        };
        if (!list.is_array()) throw bad("expected an array of body name pairs");
        auto index = [&](const nlohmann::json& name) {
            if (name.is_string())
                for (std::size_t b = 0; b < bodies_.size(); ++b)
                    if (bodies_[b].name == name.get<std::string>()) return static_cast<int>(b);
            throw bad("unknown body " + name.dump());
        };
        for (const auto& e : list) {
            if (!e.is_array() || e.size() != 2) throw bad("expected pairs [a, b], got " + e.dump());
            const int a = index(e[0]), b = index(e[1]);
            exclude_.emplace_back(std::min(a, b), std::max(a, b));
        }
        std::sort(exclude_.begin(), exclude_.end());
        exclude_.erase(std::unique(exclude_.begin(), exclude_.end()), exclude_.end());
    }
}

TriMesh OutputReader::load_mesh(int i) const {
    return concord::load_mesh(
        (fs::path(dir_) / bodies_.at(static_cast<std::size_t>(i)).mesh).string());
}

std::vector<TriMesh> OutputReader::load_meshes() const {
    std::vector<TriMesh> meshes;
    meshes.reserve(bodies_.size());
    for (std::size_t i = 0; i < bodies_.size(); ++i)
        meshes.push_back(load_mesh(static_cast<int>(i)));
    return meshes;
}

std::optional<NpyMatrix> OutputReader::load_fluid(int frame) const {
    const std::string file = (fs::path(dir_) / output_layout::fluid_path(frame)).string();
    std::error_code ec;
    if (!fs::exists(file, ec)) return std::nullopt;
    NpyMatrix m = read_npy(file);
    if (m.cols != 5)
        throw InputError(file + ": expected 5 columns (x, y, z, speed, pressure), got " +
                         std::to_string(m.cols));
    return m;
}

MatX OutputReader::load_modes(int i) const {
    const OutputBodyInfo& b = bodies_.at(static_cast<std::size_t>(i));
    if (b.modes.empty()) return {};
    const std::string file = (fs::path(dir_) / b.modes).string();
    const nlohmann::json j = read_json_file(file);
    const int m = b.dofs - 12;
    const auto bad = [&](const std::string& why) { return InputError(file + ": " + why); };
    if (!j.is_object() || !j.contains("num_modes") || !j.contains("num_vertices") ||
        !j.contains("values") || !j["values"].is_array())
        throw bad("expected {\"num_modes\", \"num_vertices\", \"values\"}");
    if (!j["num_modes"].is_number_integer() || j["num_modes"].get<long long>() != m)
        throw bad("num_modes does not match the body's " + std::to_string(b.dofs) + " coordinates");
    if (!j["num_vertices"].is_number_integer() || j["num_vertices"].get<long long>() < 0)
        throw bad("num_vertices must be a non-negative integer");
    const auto n = j["num_vertices"].get<long long>();
    const auto& values = j["values"];
    if (static_cast<long long>(values.size()) != 3 * n * m)
        throw bad("expected " + std::to_string(3 * n * m) + " values, got " +
                  std::to_string(values.size()));
    MatX phi(3 * n, m);
    std::size_t idx = 0;
    for (Eigen::Index r = 0; r < phi.rows(); ++r)
        for (Eigen::Index k = 0; k < m; ++k, ++idx) {
            if (!values[idx].is_number())
                throw bad("value " + std::to_string(idx) + " is not a number");
            phi(r, k) = values[idx].get<double>();
            if (!std::isfinite(phi(r, k)))
                throw bad("value " + std::to_string(idx) + " is not finite");
        }
    return phi;
}

Vertices row_world_vertices(const TriMesh& mesh, const MatX& vertex_modes, const VecX& row) {
    const Vec12 q = row.head<12>();
    const bool elastic = vertex_modes.cols() > 0 && row.size() == 12 + vertex_modes.cols() &&
                         vertex_modes.rows() == 3 * mesh.vertices.rows();
    if (vertex_modes.cols() > 0 && !elastic)
        throw InputError("mode values do not match the body's mesh or frame row");
    VecX u;
    if (elastic) u = vertex_modes * row.tail(vertex_modes.cols());
    // p + A X as a matrix product (the arithmetic every reader of an affine row uses).
    const Vec3 p = affine_translation(q);
    const Mat3 A = affine_matrix(q);
    Vertices x(mesh.vertices.rows(), 3);
    for (Eigen::Index v = 0; v < mesh.vertices.rows(); ++v) {
        Vec3 X = mesh.vertices.row(v).transpose();
        if (elastic) X += u.segment<3>(3 * v);
        x.row(v) = (p + A * X).transpose();
    }
    return x;
}

std::optional<std::string> OutputReader::unfinished_run_note() const {
    FramesOnDisk f;
    try {
        f = scan_frames((fs::path(dir_) / output_layout::kFrames).string());
    } catch (const InputError&) {
        return std::nullopt;  // not a file `concord run` wrote; the frame reader says what is wrong
    }
    int planned = -1;
    if (auto it = scene_.find("frames"); it != scene_.end() && it->is_number_integer())
        planned = it->get<int>();
    if (!f.partial_tail && f.last_frame >= planned) return std::nullopt;
    std::string note = dir_ + ": the run stopped after frame " + std::to_string(f.last_frame);
    if (planned >= 0) note += " of " + std::to_string(planned);
    note += " (killed, interrupted, failed, or still running)";
    if (f.partial_tail) note += "; a partial frame line at the end is skipped";
    note += "; `concord run SCENE --out " + dir_ + " --resume` continues it";
    return note;
}

FrameStream OutputReader::frames() const {
    std::vector<int> dofs;
    for (const auto& b : bodies_) dofs.push_back(b.dofs);
    return FrameStream((fs::path(dir_) / output_layout::kFrames).string(), std::move(dofs));
}

std::vector<FrameRecord> OutputReader::read_all_frames() const {
    FrameStream stream = frames();
    std::vector<FrameRecord> frames;
    FrameRecord r;
    while (stream.next(r)) frames.push_back(r);
    return frames;
}

FrameStream::FrameStream(std::string path, std::vector<int> dofs)
    : path_(std::move(path)), dofs_(std::move(dofs)), in_(path_, std::ios::binary) {
    if (!in_) throw InputError(path_ + ": cannot read file");
}

bool FrameStream::next(FrameRecord& out) {
    std::string line;
    for (;;) {
        if (!std::getline(in_, line)) {
            if (in_.bad())
                throw InputError(path_ + ": read error after line " + std::to_string(line_number_));
            return false;
        }
        ++line_number_;
        if (line.find_first_not_of(" \t\r") != std::string::npos) break;
        // Blank lines carry nothing; they are tolerated (e.g. a trailing "\n\n").
    }
    const std::string source = path_ + ": line " + std::to_string(line_number_);
    nlohmann::json json;
    if (in_.eof()) {
        // The last line has no newline: a run killed while writing it leaves a part of a line,
        // which is skipped; a whole frame without the newline (a hand-made file) is read.
        json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
        if (json.is_discarded()) {
            partial_tail_ = true;
            return false;
        }
    } else {
        json = parse_json_text(line, source);
    }
    JsonNode root(json, source);
    root.expect_object({"frame", "time", "q", "stats"});
    FrameRecord r;
    r.frame = root.child("frame").integer(0, std::numeric_limits<int>::max());
    if (r.frame <= last_frame_) {
        root.child("frame").fail(
            "frame numbers must increase (previous: " + std::to_string(last_frame_) + ")");
    }
    r.time = root.child("time").number();
    JsonNode q = root.child("q");
    std::size_t rows = q.array_size();
    if (rows != dofs_.size()) {
        q.fail("expected " + std::to_string(dofs_.size()) + " rows (one per body), got " +
               std::to_string(rows));
    }
    r.q.resize(rows);
    for (std::size_t b = 0; b < rows; ++b) {
        JsonNode row = q.element(b);
        std::size_t n = row.array_size();
        if (n != static_cast<std::size_t>(dofs_[b])) {
            row.fail("expected " + std::to_string(dofs_[b]) + " numbers, got " + std::to_string(n));
        }
        r.q[b].resize(static_cast<Eigen::Index>(n));
        for (std::size_t k = 0; k < n; ++k)
            r.q[b][static_cast<Eigen::Index>(k)] = row.element(k).number();
    }
    r.stats = step_stats_from_json(root.child("stats"));
    last_frame_ = r.frame;
    out = std::move(r);
    return true;
}

}  // namespace concord
