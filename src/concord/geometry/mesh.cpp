#include "concord/geometry/mesh.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "concord/math/error.hpp"

namespace concord {

namespace {

// One undirected edge as a single sortable number: smaller vertex in the high half, so that
// numeric order is the lexicographic (v0, v1) order the Edges contract promises.
std::uint64_t edge_key(int a, int b) {
    const auto lo = static_cast<std::uint32_t>(std::min(a, b));
    const auto hi = static_cast<std::uint32_t>(std::max(a, b));
    return (static_cast<std::uint64_t>(lo) << 32) | hi;
}

// Turns per-item counts (already stored at offsets[i + 1]) into CSR offsets.
void prefix_sum(std::vector<int>& offsets) {
    for (std::size_t i = 1; i < offsets.size(); ++i) offsets[i] += offsets[i - 1];
}

}  // namespace

void check_face_indices(const Faces& faces, int num_vertices, const std::string& name) {
    for (Eigen::Index f = 0; f < faces.rows(); ++f) {
        for (int k = 0; k < 3; ++k) {
            const int v = faces(f, k);
            if (v < 0) {
                throw InputError(name + ": face " + std::to_string(f) +
                                 " has negative vertex index " + std::to_string(v));
            }
            if (v >= num_vertices) {
                throw InputError(name + ": face " + std::to_string(f) + " references vertex " +
                                 std::to_string(v) + " but the mesh has " +
                                 std::to_string(num_vertices) + " vertices");
            }
        }
    }
}

void TriMesh::build_connectivity() {
    const int nv = num_vertices();
    const int nf = num_faces();
    check_face_indices(faces, nv, "mesh");

    // Half-edge (f, k) runs from faces(f, k) to faces(f, (k + 1) % 3); its id is 3 f + k, so
    // sorting by (key, id) groups each undirected edge with its faces in increasing face order.
    std::vector<std::pair<std::uint64_t, int>> half_edges;
    half_edges.reserve(static_cast<std::size_t>(nf) * 3);
    for (int f = 0; f < nf; ++f) {
        for (int k = 0; k < 3; ++k) {
            half_edges.emplace_back(edge_key(faces(f, k), faces(f, (k + 1) % 3)), 3 * f + k);
        }
    }
    std::sort(half_edges.begin(), half_edges.end());

    int ne = 0;
    for (std::size_t i = 0; i < half_edges.size(); ++i) {
        if (i == 0 || half_edges[i].first != half_edges[i - 1].first) ++ne;
    }
    edges.resize(ne, 2);
    edge_faces.setConstant(ne, 2, -1);
    face_edges.resize(nf, 3);

    int e = -1;
    for (std::size_t i = 0; i < half_edges.size(); ++i) {
        const auto [key, id] = half_edges[i];
        if (i == 0 || key != half_edges[i - 1].first) {
            ++e;
            edges(e, 0) = static_cast<int>(key >> 32);
            edges(e, 1) = static_cast<int>(key & 0xffffffffu);
        }
        const int f = id / 3;
        face_edges(f, id % 3) = e;
        // A degenerate face can contain the same edge twice; it is still one incident face.
        if (edge_faces(e, 0) == -1) {
            edge_faces(e, 0) = f;
        } else if (edge_faces(e, 0) != f && edge_faces(e, 1) == -1) {
            edge_faces(e, 1) = f;
        }
    }

    // Faces around each vertex; a face repeating a vertex is counted once for it.
    auto distinct_corner = [this](int f, int k) {
        for (int j = 0; j < k; ++j) {
            if (faces(f, j) == faces(f, k)) return false;
        }
        return true;
    };
    vertex_face_offsets.assign(static_cast<std::size_t>(nv) + 1, 0);
    for (int f = 0; f < nf; ++f) {
        for (int k = 0; k < 3; ++k) {
            if (distinct_corner(f, k)) ++vertex_face_offsets[faces(f, k) + 1];
        }
    }
    prefix_sum(vertex_face_offsets);
    vertex_faces.assign(static_cast<std::size_t>(vertex_face_offsets[nv]), 0);
    {
        std::vector<int> next(vertex_face_offsets.begin(), vertex_face_offsets.end() - 1);
        for (int f = 0; f < nf; ++f) {
            for (int k = 0; k < 3; ++k) {
                if (distinct_corner(f, k)) vertex_faces[next[faces(f, k)]++] = f;
            }
        }
    }

    // Edges around each vertex; a self-loop edge (v, v) from a degenerate face is listed once.
    vertex_edge_offsets.assign(static_cast<std::size_t>(nv) + 1, 0);
    for (int i = 0; i < ne; ++i) {
        ++vertex_edge_offsets[edges(i, 0) + 1];
        if (edges(i, 1) != edges(i, 0)) ++vertex_edge_offsets[edges(i, 1) + 1];
    }
    prefix_sum(vertex_edge_offsets);
    vertex_edges.assign(static_cast<std::size_t>(vertex_edge_offsets[nv]), 0);
    {
        std::vector<int> next(vertex_edge_offsets.begin(), vertex_edge_offsets.end() - 1);
        for (int i = 0; i < ne; ++i) {
            vertex_edges[next[edges(i, 0)]++] = i;
            if (edges(i, 1) != edges(i, 0)) vertex_edges[next[edges(i, 1)]++] = i;
        }
    }
}

AABB TriMesh::bounds() const {
    AABB box;
    for (Eigen::Index v = 0; v < vertices.rows(); ++v) box.expand(vertices.row(v).transpose());
    return box;
}

TriMesh make_mesh(Vertices vertices, Faces faces) {
    TriMesh mesh;
    mesh.vertices = std::move(vertices);
    mesh.faces = std::move(faces);
    mesh.build_connectivity();
    return mesh;
}

}  // namespace concord
