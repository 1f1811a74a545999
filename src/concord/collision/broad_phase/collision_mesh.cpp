#include "concord/collision/broad_phase/collision_mesh.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "concord/math/error.hpp"
#include "concord/math/parallel_all_of.hpp"

namespace concord {

namespace {

[[noreturn]] void fail(const std::string& what) {
    throw InputError("collision mesh: " + what);
}

void check_size(std::size_t actual, Eigen::Index expected, const char* array, const char* rows) {
    if (actual != static_cast<std::size_t>(expected))
        fail(std::string(array) + " has " + std::to_string(actual) + " entries but there are " +
             std::to_string(expected) + " " + rows);
}

// Checks element `index` of an E x K index array against the vertex range and bodies.
template <class Rows>
void check_element(const CollisionMesh& mesh, const Rows& rows, const std::vector<int>& body_of,
                   int index, const char* kind) {
    const int body = body_of[static_cast<std::size_t>(index)];
    if (body < 0)
        fail(std::string(kind) + " " + std::to_string(index) + " has negative body id " +
             std::to_string(body));
    for (Eigen::Index k = 0; k < rows.cols(); ++k) {
        const int v = rows(index, k);
        if (v < 0 || v >= mesh.num_vertices())
            fail(std::string(kind) + " " + std::to_string(index) + " references vertex " +
                 std::to_string(v) + " but there are " + std::to_string(mesh.num_vertices()) +
                 " vertices");
        const int vertex_body = mesh.vertex_body[static_cast<std::size_t>(v)];
        if (vertex_body != body)
            fail(std::string(kind) + " " + std::to_string(index) + " of body " +
                 std::to_string(body) + " uses vertex " + std::to_string(v) + " of body " +
                 std::to_string(vertex_body));
    }
}

// Whether element `index` passes check_element.
template <class Rows>
bool element_ok(const CollisionMesh& mesh, const Rows& rows, const std::vector<int>& body_of,
                long index) {
    const int body = body_of[static_cast<std::size_t>(index)];
    if (body < 0) return false;
    for (Eigen::Index k = 0; k < rows.cols(); ++k) {
        const int v = rows(index, k);
        if (v < 0 || v >= mesh.num_vertices() ||
            mesh.vertex_body[static_cast<std::size_t>(v)] != body)
            return false;
    }
    return true;
}

}  // namespace

void validate_collision_mesh(const CollisionMesh& mesh) {
    check_size(mesh.edge_body.size(), mesh.edges.rows(), "edge_body", "edges");
    check_size(mesh.face_body.size(), mesh.faces.rows(), "face_body", "faces");
    // Checked on every query: in parallel first, the first failure named by the serial pass.
    if (parallel_all_of(
            mesh.num_vertices(),
            [&](long v) { return mesh.vertex_body[static_cast<std::size_t>(v)] >= 0; }) &&
        parallel_all_of(mesh.num_edges(),
                        [&](long e) { return element_ok(mesh, mesh.edges, mesh.edge_body, e); }) &&
        parallel_all_of(mesh.num_faces(),
                        [&](long f) { return element_ok(mesh, mesh.faces, mesh.face_body, f); }))
        return;
    for (int v = 0; v < mesh.num_vertices(); ++v)
        if (mesh.vertex_body[static_cast<std::size_t>(v)] < 0)
            fail("vertex " + std::to_string(v) + " has negative body id " +
                 std::to_string(mesh.vertex_body[static_cast<std::size_t>(v)]));
    for (int e = 0; e < mesh.num_edges(); ++e)
        check_element(mesh, mesh.edges, mesh.edge_body, e, "edge");
    for (int f = 0; f < mesh.num_faces(); ++f)
        check_element(mesh, mesh.faces, mesh.face_body, f, "face");
}

Edges unique_edges(const Faces& faces) {
    std::vector<std::pair<int, int>> pairs;
    pairs.reserve(static_cast<std::size_t>(faces.rows()) * 3);
    for (Eigen::Index f = 0; f < faces.rows(); ++f)
        for (int k = 0; k < 3; ++k) {
            const int a = faces(f, k), b = faces(f, (k + 1) % 3);
            if (a != b) pairs.emplace_back(std::min(a, b), std::max(a, b));
        }
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    Edges edges(static_cast<Eigen::Index>(pairs.size()), 2);
    for (std::size_t e = 0; e < pairs.size(); ++e) {
        edges(static_cast<Eigen::Index>(e), 0) = pairs[e].first;
        edges(static_cast<Eigen::Index>(e), 1) = pairs[e].second;
    }
    return edges;
}

void append_body(CollisionMesh& mesh, int body, int num_vertices, const Faces& local_faces,
                 const Edges& local_edges) {
    const int offset = mesh.num_vertices();
    mesh.vertex_body.insert(mesh.vertex_body.end(), static_cast<std::size_t>(num_vertices), body);

    const Eigen::Index f0 = mesh.faces.rows();
    mesh.faces.conservativeResize(f0 + local_faces.rows(), Eigen::NoChange);
    mesh.faces.bottomRows(local_faces.rows()) = local_faces.array() + offset;
    mesh.face_body.insert(mesh.face_body.end(), static_cast<std::size_t>(local_faces.rows()), body);

    const Eigen::Index e0 = mesh.edges.rows();
    mesh.edges.conservativeResize(e0 + local_edges.rows(), Eigen::NoChange);
    mesh.edges.bottomRows(local_edges.rows()) = local_edges.array() + offset;
    mesh.edge_body.insert(mesh.edge_body.end(), static_cast<std::size_t>(local_edges.rows()), body);
}

void append_bodies(CollisionMesh& mesh, int first_body, std::span<const TriMesh* const> meshes) {
    Eigen::Index faces = mesh.faces.rows(), edges = mesh.edges.rows();
    std::size_t vertices = mesh.vertex_body.size();
    for (const TriMesh* m : meshes) {
        faces += m->faces.rows();
        edges += m->edges.rows();
        vertices += static_cast<std::size_t>(m->num_vertices());
    }
    mesh.vertex_body.reserve(vertices);
    mesh.face_body.reserve(static_cast<std::size_t>(faces));
    mesh.edge_body.reserve(static_cast<std::size_t>(edges));
    Eigen::Index f0 = mesh.faces.rows(), e0 = mesh.edges.rows();
    mesh.faces.conservativeResize(faces, Eigen::NoChange);
    mesh.edges.conservativeResize(edges, Eigen::NoChange);
    int body = first_body;
    for (const TriMesh* m : meshes) {
        const int offset = mesh.num_vertices();
        mesh.vertex_body.insert(mesh.vertex_body.end(), static_cast<std::size_t>(m->num_vertices()),
                                body);
        mesh.faces.middleRows(f0, m->faces.rows()) = m->faces.array() + offset;
        mesh.face_body.insert(mesh.face_body.end(), static_cast<std::size_t>(m->faces.rows()), body);
        mesh.edges.middleRows(e0, m->edges.rows()) = m->edges.array() + offset;
        mesh.edge_body.insert(mesh.edge_body.end(), static_cast<std::size_t>(m->edges.rows()), body);
        f0 += m->faces.rows();
        e0 += m->edges.rows();
        ++body;
    }
}

void append_body(CollisionMesh& mesh, int body, int num_vertices, const Faces& local_faces) {
    append_body(mesh, body, num_vertices, local_faces, unique_edges(local_faces));
}

}  // namespace concord
