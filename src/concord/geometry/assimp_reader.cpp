#include "concord/geometry/assimp_reader.hpp"

#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <array>
#include <assimp/Importer.hpp>
#include <cmath>
#include <cstddef>
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
    // No post-processing: assimp 5.2.4 aborts the process in a post-processing step on some
    // malformed files (found by fuzz_mesh_reader), so the checks it would make (indices in
    // range, at least three per face) and the triangulation (fans) are done below.
    const aiScene* scene = importer.ReadFile(path, 0u);
    if (scene == nullptr) {
        throw InputError(path + ": cannot read mesh: " + importer.GetErrorString());
    }
    if ((scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE) != 0) {
        throw InputError(path + ": cannot read mesh: the file holds no complete mesh");
    }

    std::vector<double> coordinates;
    std::vector<int> triangles;
    std::size_t face_number = 0;
    for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
        const aiMesh* part = scene->mMeshes[m];
        if (part == nullptr || (part->mNumVertices > 0 && part->mVertices == nullptr) ||
            (part->mNumFaces > 0 && part->mFaces == nullptr))
            throw InputError(path + ": cannot read mesh: the file holds no complete mesh");
        const int offset = static_cast<int>(coordinates.size() / 3);
        for (unsigned v = 0; v < part->mNumVertices; ++v) {
            coordinates.push_back(part->mVertices[v].x);
            coordinates.push_back(part->mVertices[v].y);
            coordinates.push_back(part->mVertices[v].z);
        }
        for (unsigned f = 0; f < part->mNumFaces; ++f, ++face_number) {
            const aiFace& face = part->mFaces[f];
            if (face.mNumIndices < 3 || face.mIndices == nullptr) {
                throw InputError(path + ": face " + std::to_string(face_number) + " has " +
                                 std::to_string(face.mNumIndices) +
                                 " vertices; points and lines are not surfaces");
            }
            for (unsigned k = 0; k < face.mNumIndices; ++k)
                if (face.mIndices[k] >= part->mNumVertices)
                    throw InputError(path + ": cannot read mesh: mFaces[" + std::to_string(f) +
                                     "]: vertex index " + std::to_string(face.mIndices[k]) +
                                     " out of range (" + std::to_string(part->mNumVertices) +
                                     " vertices)");
            // A polygon becomes the fan (v0, vi, vi+1).
            for (unsigned k = 1; k + 1 < face.mNumIndices; ++k) {
                triangles.push_back(offset + static_cast<int>(face.mIndices[0]));
                triangles.push_back(offset + static_cast<int>(face.mIndices[k]));
                triangles.push_back(offset + static_cast<int>(face.mIndices[k + 1]));
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

}  // namespace concord
