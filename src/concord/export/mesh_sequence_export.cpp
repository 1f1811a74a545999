#include "concord/export/mesh_sequence_export.hpp"

#include <array>
#include <bit>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "concord/export/affine_map.hpp"
#include "concord/export/selected_frames.hpp"
#include "concord/io/npy_file.hpp"
#include "concord/io/output_layout.hpp"
#include "concord/math/error.hpp"

namespace concord {

namespace fs = std::filesystem;

namespace {

void append_double(std::string& out, double x) {
    std::array<char, 32> buf;
    const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), x);
    out.append(buf.data(), end);
}

template <typename T>
void append_le(std::string& out, T value) {
    static_assert(std::endian::native == std::endian::little,
                  "PLY output assumes a little-endian host");
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out.append(bytes, sizeof(T));
}

std::string obj_text(const OutputReader& reader, const std::vector<TriMesh>& meshes,
                     const std::vector<MatX>& modes, const FrameRecord& r) {
    std::string out = "# concord export: frame " + std::to_string(r.frame) + ", time ";
    append_double(out, r.time);
    out += "\n";
    long offset = 1;
    for (std::size_t b = 0; b < meshes.size(); ++b) {
        out += "o " + reader.bodies()[b].name + "\n";
        const Vertices x = row_world_vertices(meshes[b], modes[b], r.q[b]);  // elastic: deformed
        for (Eigen::Index v = 0; v < x.rows(); ++v) {
            out += "v ";
            append_double(out, x(v, 0));
            out += ' ';
            append_double(out, x(v, 1));
            out += ' ';
            append_double(out, x(v, 2));
            out += '\n';
        }
        for (Eigen::Index f = 0; f < meshes[b].faces.rows(); ++f) {
            out += "f " + std::to_string(offset + meshes[b].faces(f, 0)) + ' ' +
                   std::to_string(offset + meshes[b].faces(f, 1)) + ' ' +
                   std::to_string(offset + meshes[b].faces(f, 2)) + '\n';
        }
        offset += x.rows();
    }
    return out;
}

std::string ply_bytes(const std::vector<TriMesh>& meshes, const std::vector<MatX>& modes,
                      const FrameRecord& r, long vertices, long faces) {
    std::string out = "ply\nformat binary_little_endian 1.0\ncomment concord export: frame " +
                      std::to_string(r.frame) + ", time ";
    append_double(out, r.time);
    out += "\nelement vertex " + std::to_string(vertices) +
           "\nproperty double x\nproperty double y\nproperty double z\nelement face " +
           std::to_string(faces) +
           "\nproperty list uchar int vertex_indices\nproperty int body\nend_header\n";
    for (std::size_t b = 0; b < meshes.size(); ++b) {
        const Vertices x = row_world_vertices(meshes[b], modes[b], r.q[b]);  // elastic: deformed
        for (Eigen::Index v = 0; v < x.rows(); ++v)
            for (int k = 0; k < 3; ++k) append_le<double>(out, x(v, k));
    }
    int offset = 0;
    for (std::size_t b = 0; b < meshes.size(); ++b) {
        for (Eigen::Index f = 0; f < meshes[b].faces.rows(); ++f) {
            append_le<std::uint8_t>(out, 3);
            for (int k = 0; k < 3; ++k)
                append_le<std::int32_t>(out, offset + meshes[b].faces(f, k));
            append_le<std::int32_t>(out, static_cast<std::int32_t>(b));
        }
        offset += meshes[b].num_vertices();
    }
    return out;
}

}  // namespace

std::string mesh_sequence_file_name(int frame, MeshSequenceFormat format) {
    std::string digits = std::to_string(frame);
    if (digits.size() < 5) digits.insert(0, 5 - digits.size(), '0');
    return "frame_" + digits + (format == MeshSequenceFormat::Obj ? ".obj" : ".ply");
}

std::string fluid_point_cloud_file_name(int frame) {
    std::string name = mesh_sequence_file_name(frame, MeshSequenceFormat::Ply);
    return "fluid_" + name.substr(std::string("frame_").size());
}

namespace {

std::string fluid_ply_bytes(const NpyMatrix& m, const FrameRecord& r) {
    std::string out =
        "ply\nformat binary_little_endian 1.0\ncomment concord export: fluid, frame " +
        std::to_string(r.frame) + ", time ";
    append_double(out, r.time);
    out += "\nelement vertex " + std::to_string(m.rows) +
           "\nproperty float x\nproperty float y\nproperty float z\nproperty float speed"
           "\nproperty float pressure\nend_header\n";
    const std::size_t at = out.size(), bytes = m.data.size() * sizeof(float);
    out.resize(at + bytes);
    if (bytes) std::memcpy(out.data() + at, m.data.data(), bytes);
    return out;
}

void write_file(const std::string& file, const std::string& data) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    out.close();
    if (!out) throw InputError(file + ": cannot write file");
}

}  // namespace

MeshSequenceSummary export_mesh_sequence(const OutputReader& reader, const std::string& out_dir,
                                         MeshSequenceFormat format,
                                         const FrameSelection& selection) {
    const std::vector<TriMesh> meshes = reader.load_meshes();
    std::vector<MatX> modes;
    for (std::size_t b = 0; b < meshes.size(); ++b)
        modes.push_back(reader.load_modes(static_cast<int>(b)));
    MeshSequenceSummary s;
    for (const TriMesh& m : meshes) {
        s.vertices_per_frame += m.num_vertices();
        s.faces_per_frame += m.num_faces();
    }
    std::error_code ec;
    fs::create_directories(out_dir, ec);
    if (!fs::is_directory(out_dir, ec)) throw InputError(out_dir + ": cannot create folder");

    for_each_selected_frame(reader, selection, [&](const FrameRecord& r) {
        const std::string file =
            (fs::path(out_dir) / mesh_sequence_file_name(r.frame, format)).string();
        const std::string data =
            format == MeshSequenceFormat::Obj
                ? obj_text(reader, meshes, modes, r)
                : ply_bytes(meshes, modes, r, s.vertices_per_frame, s.faces_per_frame);
        write_file(file, data);
        // PLY: the fluid's particles of the frame as a point cloud beside it.
        if (format == MeshSequenceFormat::Ply) {
            if (const std::optional<NpyMatrix> fluid = reader.load_fluid(r.frame)) {
                write_file((fs::path(out_dir) / fluid_point_cloud_file_name(r.frame)).string(),
                           fluid_ply_bytes(*fluid, r));
                ++s.fluid_files;
            }
        }
        if (s.files == 0) s.first_file = file;
        s.last_file = file;
        ++s.files;
    });
    return s;
}

}  // namespace concord
