#include "concord/geometry/mesh_io.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "concord/geometry/assimp_reader.hpp"
#include "concord/geometry/obj_reader.hpp"
#include "concord/geometry/ply_reader.hpp"
#include "concord/math/error.hpp"
#include "concord/math/regular_file.hpp"

namespace concord {

namespace {

std::string lowercase_extension(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext;
}

std::string format_double(double x) {
    std::array<char, 32> buffer{};
    const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), x);
    return ec == std::errc() ? std::string(buffer.data(), end) : std::string("nan");
}

// Checks that every reader's output must pass, whatever the format.
void check_loaded_mesh(const TriMesh& mesh, const std::string& path) {
    if (mesh.num_vertices() == 0) throw InputError(path + ": mesh has no vertices");
    if (mesh.num_faces() == 0) throw InputError(path + ": mesh has no faces");
    for (int v = 0; v < mesh.num_vertices(); ++v) {
        if (!mesh.vertices.row(v).allFinite()) {
            throw InputError(path + ": vertex " + std::to_string(v) +
                             " has a non-finite coordinate (" + format_double(mesh.vertices(v, 0)) +
                             ", " + format_double(mesh.vertices(v, 1)) + ", " +
                             format_double(mesh.vertices(v, 2)) + ")");
        }
    }
    check_face_indices(mesh.faces, mesh.num_vertices(), path);
}

}  // namespace

TriMesh load_mesh(const std::string& path) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (!std::filesystem::exists(status)) throw InputError(path + ": no such file");
    if (std::filesystem::is_directory(status)) {
        throw InputError(path + ": is a directory, not a mesh file");
    }
    require_regular_file(path);

    const std::string ext = lowercase_extension(path);
    TriMesh mesh;
    if (ext == ".obj") {
        mesh = read_obj_file(path);
    } else if (ext == ".stl") {
        mesh = read_stl_file(path);
    } else if (ext == ".ply") {
        mesh = read_ply_file(path);
    } else {
        throw InputError(path + ": unsupported mesh format '" + ext +
                         "' (expected .obj, .stl or .ply)");
    }
    check_loaded_mesh(mesh, path);
    mesh.build_connectivity();
    return mesh;
}

void save_obj(const TriMesh& mesh, const std::string& path) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path + ": cannot open for writing");
    out << "# " << mesh.num_vertices() << " vertices, " << mesh.num_faces() << " faces\n";
    std::string line;
    for (int v = 0; v < mesh.num_vertices(); ++v) {
        line = "v ";
        line += format_double(mesh.vertices(v, 0));
        line += ' ';
        line += format_double(mesh.vertices(v, 1));
        line += ' ';
        line += format_double(mesh.vertices(v, 2));
        line += '\n';
        out << line;
    }
    for (int f = 0; f < mesh.num_faces(); ++f) {
        out << "f " << mesh.faces(f, 0) + 1 << ' ' << mesh.faces(f, 1) + 1 << ' '
            << mesh.faces(f, 2) + 1 << '\n';
    }
    out.flush();
    if (!out) throw InputError(path + ": write failed");
}

}  // namespace concord
