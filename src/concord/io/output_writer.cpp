#include "concord/io/output_writer.hpp"

#include "concord/io/npy_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "concord/geometry/mesh_io.hpp"
#include "concord/io/frame_loop.hpp"
#include "concord/io/output_layout.hpp"
#include "concord/io/step_stats_json.hpp"
#include "concord/math/error.hpp"
#include "concord/scene/body_name.hpp"
#include "concord/scene/scene_json.hpp"
#include "concord/scene/scene_names.hpp"
#include "concord/world/atomic_file.hpp"
#include "concord/world/world.hpp"

namespace concord {

namespace fs = std::filesystem;

namespace {

void write_text_file(const fs::path& path, const std::string& text) {
    write_file_atomically(path.string(), text);
}

/// The checkpoints in `folder` by frame, oldest first.
std::vector<std::pair<int, fs::path>> checkpoints_in(const fs::path& folder) {
    std::vector<std::pair<int, fs::path>> out;
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) return out;
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
        if (entry.path().extension() != ".ckpt") continue;
        const std::string stem = entry.path().stem().string();
        if (stem.empty() || stem.find_first_not_of("0123456789") != std::string::npos ||
            stem.size() > 9)
            continue;
        out.emplace_back(std::stoi(stem), entry.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

/// Removes what a previous run wrote, so that a forced rewrite leaves no stale frames or meshes.
void remove_previous_output(const fs::path& dir) {
    std::error_code ec;
    for (const char* name :
         {output_layout::kScene, output_layout::kBodies, output_layout::kFrames}) {
        fs::remove(dir / name, ec);
    }
    for (const auto& [frame, path] : checkpoints_in(dir / output_layout::kCheckpointFolder))
        fs::remove(path, ec);
    fs::path meshes = dir / output_layout::kMeshFolder;
    if (!fs::is_directory(meshes, ec)) return;
    std::vector<fs::path> stale;
    for (const auto& entry : fs::directory_iterator(meshes, ec)) {
        const std::string name = entry.path().filename().string();
        const bool modes = name.size() > 11 && name.ends_with(".modes.json");
        if (entry.path().extension() == ".obj" || modes) stale.push_back(entry.path());
    }
    for (const auto& p : stale) fs::remove(p, ec);
}

}  // namespace

OutputWriter::OutputWriter(std::string dir, bool force) : dir_(std::move(dir)) {
    if (dir_.empty()) throw InputError("output directory: the path is empty");
    std::error_code ec;
    fs::path path(dir_);
    if (!fs::exists(path, ec)) return;
    if (!fs::is_directory(path, ec)) {
        throw InputError(dir_ + ": exists and is not a directory");
    }
    if (!fs::is_empty(path, ec) && !force) {
        throw InputError(dir_ + ": output directory is not empty (use --force to overwrite)");
    }
}

void OutputWriter::write_header(const SceneSpec& scene, const std::vector<OutputBody>& bodies) {
    if (header_written_) throw std::logic_error("OutputWriter::write_header called twice");
    for (const OutputBody& b : bodies) {
        if (!is_file_safe_name(b.name)) {
            throw InputError("body '" + b.name + "': its name cannot be a file name (use " +
                             kFileSafeNameRule + ")");
        }
        if (b.mesh == nullptr) throw std::logic_error("OutputWriter: body without a mesh");
    }
    fs::path dir(dir_);
    std::error_code ec;
    fs::create_directories(dir / output_layout::kMeshFolder, ec);
    if (ec) throw InputError(dir_ + ": cannot create the output directory (" + ec.message() + ")");
    remove_previous_output(dir);

    nlohmann::json list = nlohmann::json::array();
    // A body whose mesh equals the previous body's (an array of one shape) gets a hard link to
    // that file instead of formatting it again (4,096 spheres: a fifth of a run's start-up);
    // where the file system cannot link, the mesh is written.
    const TriMesh* previous = nullptr;
    fs::path previous_file;
    auto same_mesh = [](const TriMesh& a, const TriMesh& b) {
        return a.vertices.rows() == b.vertices.rows() && a.faces.rows() == b.faces.rows() &&
               a.vertices == b.vertices && a.faces == b.faces;
    };
    for (const OutputBody& b : bodies) {
        std::string mesh = output_layout::mesh_path(b.name);
        const fs::path mesh_file = dir / mesh;
        const bool same = previous != nullptr && same_mesh(*previous, *b.mesh);
        std::error_code link_error;
        if (same) fs::create_hard_link(previous_file, mesh_file, link_error);
        if (!same || link_error) {
            if (link_error) fs::remove(mesh_file, link_error);  // never write through a link
            save_obj(*b.mesh, mesh_file.string());
        }
        previous = b.mesh;
        previous_file = mesh_file;
        nlohmann::json entry{{"name", b.name},
                             {"mesh", mesh},
                             {"motion", std::string(motion_type_name(b.motion))}};
        if (b.vertex_modes != nullptr && b.vertex_modes->cols() > 0) {
            // x = p + A (X + Phi eta): readers need Phi at every vertex to place the mesh.
            const MatX& phi = *b.vertex_modes;
            const std::string modes = output_layout::modes_path(b.name);
            nlohmann::json values = nlohmann::json::array();
            for (Eigen::Index r = 0; r < phi.rows(); ++r)
                for (Eigen::Index k = 0; k < phi.cols(); ++k) values.push_back(phi(r, k));
            nlohmann::json file{{"num_modes", phi.cols()},
                                {"num_vertices", phi.rows() / 3},
                                {"layout", "vertex-major: value (3 v + i) * num_modes + k is "
                                           "component i of mode k at vertex v"},
                                {"values", std::move(values)}};
            write_text_file(dir / modes, file.dump() + "\n");
            entry["dofs"] = 12 + phi.cols();
            entry["modes"] = modes;
        }
        list.push_back(std::move(entry));
    }
    write_text_file(dir / output_layout::kBodies, list.dump(2) + "\n");

    fs::path frames = dir / output_layout::kFrames;
    frames_.open(frames, std::ios::binary | std::ios::trunc);
    if (!frames_)
        throw InputError(frames.string() + ": cannot write file (" + std::strerror(errno) + ")");
    // Last: a directory with scene.json has its whole header.
    write_text_file(dir / output_layout::kScene, scene_to_json(scene).dump(2) + "\n");
    num_bodies_ = bodies.size();
    header_written_ = true;
}

void OutputWriter::resume(const SceneSpec& scene, std::size_t num_bodies, int last_frame,
                          std::uint64_t frames_bytes) {
    if (header_written_) throw std::logic_error("OutputWriter::resume after write_header");
    write_text_file(fs::path(dir_) / output_layout::kScene, scene_to_json(scene).dump(2) + "\n");
    const fs::path frames = fs::path(dir_) / output_layout::kFrames;
    std::error_code ec;
    fs::resize_file(frames, frames_bytes, ec);
    if (ec) throw InputError(frames.string() + ": cannot cut back to frame " +
                             std::to_string(last_frame) + " (" + ec.message() + ")");
    frames_.open(frames, std::ios::binary | std::ios::app);
    if (!frames_)
        throw InputError(frames.string() + ": cannot write file (" + std::strerror(errno) + ")");
    num_bodies_ = num_bodies;
    frames_written_ = last_frame + 1;
    header_written_ = true;
}

void OutputWriter::write_checkpoint(const Checkpoint& c) {
    const fs::path folder = fs::path(dir_) / output_layout::kCheckpointFolder;
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) throw InputError(folder.string() + ": cannot create (" + ec.message() + ")");
    save_checkpoint(c, (fs::path(dir_) / output_layout::checkpoint_path(c.frame)).string());
    auto all = checkpoints_in(folder);
    for (std::size_t i = 0; i + 2 < all.size(); ++i) fs::remove(all[i].second, ec);
}

void OutputWriter::write_header(const SceneSpec& scene, const World& world) {
    write_header(scene, output_bodies(world));
}

void OutputWriter::write_frame(int frame, double time, const std::vector<VecX>& q,
                               const StepStats* stats) {
    if (!header_written_) throw std::logic_error("OutputWriter::write_frame before write_header");
    if (q.size() != num_bodies_) {
        throw std::logic_error("OutputWriter::write_frame: " + std::to_string(q.size()) +
                               " states for " + std::to_string(num_bodies_) + " bodies");
    }
    nlohmann::json rows = nlohmann::json::array();
    for (const VecX& qb : q) {
        nlohmann::json row = nlohmann::json::array();
        for (Eigen::Index k = 0; k < qb.size(); ++k) row.push_back(qb[k]);
        rows.push_back(std::move(row));
    }
    // Without a step (frame 0) the stats are the defaults: no contacts, on any body.
    StepStats defaults;
    defaults.body_contacts.assign(num_bodies_, 0);
    nlohmann::json line{{"frame", frame},
                        {"time", time},
                        {"q", std::move(rows)},
                        {"stats", step_stats_to_json(stats ? *stats : defaults)}};
    // One write per line, then a flush: the file only ever ends in a complete line unless the
    // process dies inside this call.
    std::string text = line.dump() + "\n";
    frames_.write(text.data(), static_cast<std::streamsize>(text.size()));
    frames_.flush();
    if (!frames_) {
        throw std::runtime_error(dir_ + "/" + output_layout::kFrames + ": write failed (" +
                                 std::strerror(errno) + ")");
    }
    ++frames_written_;
}

void OutputWriter::write_fluid(int frame, const FluidParticles& fluid) {
    NpyMatrix m;
    m.rows = fluid.size();
    m.cols = 5;
    m.data.resize(m.rows * m.cols);
    for (std::size_t i = 0; i < m.rows; ++i) {
        float* row = m.data.data() + 5 * i;
        for (int a = 0; a < 3; ++a) row[a] = static_cast<float>(fluid.x[i][a]);
        row[3] = static_cast<float>(fluid.v[i].norm());
        row[4] = static_cast<float>(fluid.pressure[i]);
    }
    const std::filesystem::path dir = std::filesystem::path(dir_) / output_layout::kFluidFolder;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw InputError(dir.string() + ": cannot create (" + ec.message() + ")");
    write_file_atomically((std::filesystem::path(dir_) / output_layout::fluid_path(frame)).string(),
                          npy_bytes(m));
}

void OutputWriter::write_frame(int frame, double time, const World& world, const StepStats* stats) {
    write_fluid_frame(world, *this, frame);
    write_frame(frame, time, state_rows(world), stats);
}

}  // namespace concord
