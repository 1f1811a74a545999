#include "concord/geometry/assimp_reader.hpp"

#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <assimp/Importer.hpp>
#include <string>
#include <vector>

#include "concord/math/error.hpp"

namespace concord {

TriMesh read_with_assimp(const std::string& path) {
    Assimp::Importer importer;
    // Joining compares every vertex attribute; STL files carry a normal per facet, which would
    // keep the corners of different facets apart. Only positions matter here.
    importer.SetPropertyInteger(AI_CONFIG_PP_RVC_FLAGS,
                                aiComponent_NORMALS | aiComponent_TANGENTS_AND_BITANGENTS |
                                    aiComponent_COLORS | aiComponent_TEXCOORDS |
                                    aiComponent_BONEWEIGHTS);
    // Validation runs before the other steps and catches out-of-range indices, which the
    // joining step would otherwise read through.
    const unsigned flags = aiProcess_ValidateDataStructure | aiProcess_RemoveComponent |
                           aiProcess_Triangulate | aiProcess_JoinIdenticalVertices;
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

}  // namespace concord
