#include "concord/geometry/assimp_reader.hpp"

#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <array>
#include <assimp/Importer.hpp>
#include <cmath>
#include <cstddef>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "concord/math/error.hpp"

namespace concord {

namespace {

// Every mesh of the file concatenated, in file order, with no vertices joined. assimp's own
// aiProcess_JoinIdenticalVertices is not used: it compares normals too (so STL facets stay
// apart) and it merges NaN corners into unrelated vertices, hiding them from the finiteness check.
TriMesh import_unjoined(const std::string& path) {
    Assimp::Importer importer;
    // Validation runs before triangulation and catches out-of-range indices, which later steps
    // would otherwise read through.
    const unsigned flags = aiProcess_ValidateDataStructure | aiProcess_Triangulate;
    const aiScene* scene = importer.ReadFile(path, flags);
    if (scene == nullptr) {
        throw InputError(path + ": cannot read mesh: " + importer.GetErrorString());
    }
    if ((scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE) != 0) {
        throw InputError(path + ": cannot read mesh: the file holds no complete mesh");
    }

    std::vector<double> coordinates;
    std::vector<int> triangles;
    for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
        const aiMesh* part = scene->mMeshes[m];
        const int offset = static_cast<int>(coordinates.size() / 3);
        for (unsigned v = 0; v < part->mNumVertices; ++v) {
            coordinates.push_back(part->mVertices[v].x);
            coordinates.push_back(part->mVertices[v].y);
            coordinates.push_back(part->mVertices[v].z);
        }
        for (unsigned f = 0; f < part->mNumFaces; ++f) {
            const aiFace& face = part->mFaces[f];
            if (face.mNumIndices != 3) {
                throw InputError(path + ": face " + std::to_string(triangles.size() / 3) + " has " +
                                 std::to_string(face.mNumIndices) +
                                 " vertices; points and lines are not surfaces");
            }
            for (int k = 0; k < 3; ++k) {
                triangles.push_back(offset + static_cast<int>(face.mIndices[k]));
            }
        }
    }

    TriMesh mesh;
    mesh.vertices =
        Eigen::Map<const Vertices>(coordinates.data(), Eigen::Index(coordinates.size() / 3), 3);
    mesh.faces = Eigen::Map<const Faces>(triangles.data(), Eigen::Index(triangles.size() / 3), 3);
    return mesh;
}

struct PositionHash {
    std::size_t operator()(const std::array<double, 3>& p) const {
        std::size_t h = 0;
        for (double x : p) h = h * 1000003u ^ std::hash<double>{}(x);
        return h;
    }
};

}  // namespace

TriMesh read_stl_file(const std::string& path) {
    const TriMesh soup = import_unjoined(path);
    for (int f = 0; f < soup.num_faces(); ++f) {
        for (int k = 0; k < 3; ++k) {
            const auto p = soup.vertices.row(soup.faces(f, k));
            if (!p.allFinite()) {
                std::ostringstream s;
                s << path << ": facet " << f << " has a non-finite coordinate (" << p(0) << ", "
                  << p(1) << ", " << p(2) << ")";
                throw InputError(s.str());
            }
        }
    }

    // Exact joining: corners with identical coordinates (0 and -0 count as equal) become one
    // vertex, numbered by first appearance in facet order.
    std::unordered_map<std::array<double, 3>, int, PositionHash> index_of;
    index_of.reserve(static_cast<std::size_t>(soup.num_vertices()));
    std::vector<double> coordinates;
    TriMesh mesh;
    mesh.faces.resize(soup.num_faces(), 3);
    for (int f = 0; f < soup.num_faces(); ++f) {
        for (int k = 0; k < 3; ++k) {
            const auto p = soup.vertices.row(soup.faces(f, k));
            const std::array<double, 3> key = {p(0) + 0.0, p(1) + 0.0, p(2) + 0.0};
            const auto [it, inserted] =
                index_of.try_emplace(key, static_cast<int>(coordinates.size() / 3));
            if (inserted) coordinates.insert(coordinates.end(), key.begin(), key.end());
            mesh.faces(f, k) = it->second;
        }
    }
    mesh.vertices =
        Eigen::Map<const Vertices>(coordinates.data(), Eigen::Index(coordinates.size() / 3), 3);
    return mesh;
}

namespace {

/// assimp 5.2.4 never returns on a PLY file whose header has no end_header line (it reads past
/// the end for ever; found by fuzz_mesh_reader): the header is checked here first.
void check_ply_header(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot read file");
    std::string line;
    for (int n = 0; std::getline(in, line); ++n) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (n == 0 && line != "ply")
            throw InputError(path + ": cannot read mesh: not a PLY file (no \"ply\" line first)");
        if (line == "end_header") return;
    }
    throw InputError(path + ": cannot read mesh: PLY header without an end_header line");
}

}  // namespace

TriMesh read_ply_file(const std::string& path) {
    check_ply_header(path);
    return import_unjoined(path);
}

}  // namespace concord
