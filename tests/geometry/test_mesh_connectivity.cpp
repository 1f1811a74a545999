#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>

#include "concord/geometry/mesh.hpp"
#include "concord/geometry/primitives.hpp"
#include "geometry/geometry_test_support.hpp"

using namespace concord;
using concord::test::throws_input_error;

namespace {

// Checks every connectivity array against its definition in mesh.hpp, by brute force.
void expect_connectivity_consistent(const TriMesh& m) {
    const int nv = m.num_vertices(), nf = m.num_faces(), ne = m.num_edges();
    ASSERT_EQ(m.face_edges.rows(), nf);
    ASSERT_EQ(m.edge_faces.rows(), ne);

    std::set<std::pair<int, int>> from_faces;
    for (int f = 0; f < nf; ++f) {
        for (int k = 0; k < 3; ++k) {
            const int a = m.faces(f, k), b = m.faces(f, (k + 1) % 3);
            from_faces.insert({std::min(a, b), std::max(a, b)});
            const int e = m.face_edges(f, k);
            ASSERT_GE(e, 0);
            ASSERT_LT(e, ne);
            EXPECT_EQ(m.edges(e, 0), std::min(a, b));
            EXPECT_EQ(m.edges(e, 1), std::max(a, b));
            EXPECT_TRUE(m.edge_faces(e, 0) == f || m.edge_faces(e, 1) == f ||
                        m.edge_faces(e, 1) != -1)
                << "face " << f << " missing from edge " << e;
        }
    }
    // Edges: unique, sorted, smaller index first, exactly the edges of the faces.
    EXPECT_EQ(static_cast<int>(from_faces.size()), ne);
    for (int e = 0; e < ne; ++e) {
        EXPECT_LE(m.edges(e, 0), m.edges(e, 1));
        if (e > 0) {
            EXPECT_LT(std::make_pair(m.edges(e - 1, 0), m.edges(e - 1, 1)),
                      std::make_pair(m.edges(e, 0), m.edges(e, 1)));
        }
        EXPECT_TRUE(from_faces.count({m.edges(e, 0), m.edges(e, 1)}));
    }

    ASSERT_EQ(static_cast<int>(m.vertex_face_offsets.size()), nv + 1);
    ASSERT_EQ(static_cast<int>(m.vertex_edge_offsets.size()), nv + 1);
    for (int v = 0; v < nv; ++v) {
        std::vector<int> expected_faces, expected_edges;
        for (int f = 0; f < nf; ++f) {
            if ((m.faces.row(f).array() == v).any()) expected_faces.push_back(f);
        }
        for (int e = 0; e < ne; ++e) {
            if (m.edges(e, 0) == v || m.edges(e, 1) == v) expected_edges.push_back(e);
        }
        const std::vector<int> faces(m.vertex_faces.begin() + m.vertex_face_offsets[v],
                                     m.vertex_faces.begin() + m.vertex_face_offsets[v + 1]);
        const std::vector<int> edges(m.vertex_edges.begin() + m.vertex_edge_offsets[v],
                                     m.vertex_edges.begin() + m.vertex_edge_offsets[v + 1]);
        EXPECT_EQ(faces, expected_faces) << "vertex " << v;
        EXPECT_EQ(edges, expected_edges) << "vertex " << v;
    }
}

void expect_closed_two_faces_per_edge(const TriMesh& m) {
    for (int e = 0; e < m.num_edges(); ++e) {
        const int f0 = m.edge_faces(e, 0), f1 = m.edge_faces(e, 1);
        ASSERT_GE(f0, 0);
        ASSERT_GE(f1, 0);
        EXPECT_LT(f0, f1);
        for (int f : {f0, f1}) {
            EXPECT_TRUE((m.face_edges.row(f).array() == e).any());
        }
    }
    // Each edge is used by exactly two face corners.
    std::vector<int> uses(static_cast<std::size_t>(m.num_edges()), 0);
    for (int f = 0; f < m.num_faces(); ++f) {
        for (int k = 0; k < 3; ++k) ++uses[m.face_edges(f, k)];
    }
    for (int u : uses) EXPECT_EQ(u, 2);
}

}  // namespace

TEST(MeshConnectivity, BoxCountsAndEuler) {
    const TriMesh m = box(Vec3(1, 2, 3));
    EXPECT_EQ(m.num_vertices(), 8);
    EXPECT_EQ(m.num_faces(), 12);
    EXPECT_EQ(m.num_edges(), 18);
    EXPECT_EQ(m.num_vertices() - m.num_edges() + m.num_faces(), 2);
    expect_closed_two_faces_per_edge(m);
    expect_connectivity_consistent(m);
}

TEST(MeshConnectivity, IcosphereCountsAndEuler) {
    for (int s = 0; s <= 3; ++s) {
        const TriMesh m = icosphere(1.0, s);
        const int four_s = 1 << (2 * s);
        EXPECT_EQ(m.num_vertices(), 10 * four_s + 2);
        EXPECT_EQ(m.num_faces(), 20 * four_s);
        EXPECT_EQ(m.num_edges(), 30 * four_s);
        EXPECT_EQ(m.num_vertices() - m.num_edges() + m.num_faces(), 2);
        expect_closed_two_faces_per_edge(m);
        if (s <= 2) expect_connectivity_consistent(m);
    }
}

TEST(MeshConnectivity, TorusHasEulerCharacteristicZero) {
    const TriMesh m = torus(2.0, 0.5, 12, 6);
    EXPECT_EQ(m.num_vertices() - m.num_edges() + m.num_faces(), 0);
    expect_closed_two_faces_per_edge(m);
    expect_connectivity_consistent(m);
}

TEST(MeshConnectivity, OpenAndNonManifoldEdgesKeepFirstTwoFaces) {
    Vertices v(5, 3);
    v << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, -1, 0;
    Faces f(3, 3);
    f << 0, 1, 2,  // three faces on edge (0, 1)
        1, 0, 3,   //
        0, 1, 4;
    const TriMesh m = make_mesh(v, f);
    expect_connectivity_consistent(m);
    const int e01 = m.face_edges(0, 0);
    EXPECT_EQ(m.edge_faces(e01, 0), 0);
    EXPECT_EQ(m.edge_faces(e01, 1), 1);
    const int e12 = m.face_edges(0, 1);  // boundary edge (1, 2)
    EXPECT_EQ(m.edge_faces(e12, 0), 0);
    EXPECT_EQ(m.edge_faces(e12, 1), -1);
}

TEST(MeshConnectivity, DegenerateFaceIsListedOncePerDistinctVertex) {
    Vertices v(3, 3);
    v << 0, 0, 0, 1, 0, 0, 0, 1, 0;
    Faces f(2, 3);
    f << 0, 1, 2, 0, 0, 1;
    const TriMesh m = make_mesh(v, f);
    expect_connectivity_consistent(m);
    EXPECT_EQ(m.num_edges(), 4);  // (0,0) (0,1) (0,2) (1,2)
    const int e01 = m.face_edges(1, 1);
    EXPECT_EQ(m.edges(e01, 0), 0);
    EXPECT_EQ(m.edges(e01, 1), 1);
    EXPECT_EQ(m.edge_faces(e01, 0), 0);
    EXPECT_EQ(m.edge_faces(e01, 1), 1);
}

TEST(MeshConnectivity, RebuildIsDeterministicAndReflectsNewFaces) {
    TriMesh m = icosphere(1.0, 1);
    const TriMesh again = icosphere(1.0, 1);
    EXPECT_EQ(m.edges, again.edges);
    EXPECT_EQ(m.vertex_faces, again.vertex_faces);
    // Reversing every face changes no undirected edge, but face_edges follows the new order.
    m.faces.col(1).swap(m.faces.col(2));
    m.build_connectivity();
    EXPECT_EQ(m.edges, again.edges);
    expect_connectivity_consistent(m);
}

TEST(MeshConnectivity, RejectsIndicesOutOfRange) {
    Vertices v(3, 3);
    v << 0, 0, 0, 1, 0, 0, 0, 1, 0;
    Faces bad(2, 3);
    bad << 0, 1, 2, 0, 2, 7;
    EXPECT_TRUE(throws_input_error([&] { make_mesh(v, bad); },
                                   "mesh: face 1 references vertex 7 but the mesh has 3 vertices"));
    bad(1, 2) = -1;
    EXPECT_TRUE(throws_input_error([&] { make_mesh(v, bad); },
                                   "mesh: face 1 has negative vertex index -1"));
}

TEST(MeshConnectivity, Bounds) {
    const TriMesh m = box(Vec3(1, 2, 4));
    const AABB b = m.bounds();
    EXPECT_EQ(b.min, Vec3(-0.5, -1, -2));
    EXPECT_EQ(b.max, Vec3(0.5, 1, 2));
    EXPECT_TRUE(TriMesh().bounds().empty());
}
