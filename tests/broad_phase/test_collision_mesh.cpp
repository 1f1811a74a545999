#include <gtest/gtest.h>

#include <string>

#include "concord/collision/broad_phase/collision_mesh.hpp"
#include "concord/geometry/primitives.hpp"
#include "concord/math/error.hpp"

using namespace concord;

namespace {

Faces tetrahedron_faces() {
    Faces f(4, 3);
    f << 0, 2, 1, 0, 1, 3, 1, 2, 3, 0, 3, 2;
    return f;
}

CollisionMesh two_tetrahedra() {
    CollisionMesh mesh;
    append_body(mesh, 0, 4, tetrahedron_faces());
    append_body(mesh, 1, 4, tetrahedron_faces());
    return mesh;
}

std::string error_of(const CollisionMesh& mesh) {
    try {
        validate_collision_mesh(mesh);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(CollisionMesh, UniqueEdgesOfATetrahedron) {
    const Edges edges = unique_edges(tetrahedron_faces());
    Edges expected(6, 2);
    expected << 0, 1, 0, 2, 0, 3, 1, 2, 1, 3, 2, 3;
    EXPECT_EQ(edges, expected);
}

TEST(CollisionMesh, AppendBodyOffsetsIndices) {
    const CollisionMesh mesh = two_tetrahedra();
    EXPECT_EQ(mesh.num_vertices(), 8);
    EXPECT_EQ(mesh.num_faces(), 8);
    EXPECT_EQ(mesh.num_edges(), 12);
    EXPECT_EQ(Eigen::RowVector3i(mesh.faces.row(4)),
              Eigen::RowVector3i(tetrahedron_faces().row(0).array() + 4));
    EXPECT_EQ(Eigen::RowVector2i(mesh.edges.row(6)), Eigen::RowVector2i(4, 5));
    EXPECT_EQ(mesh.vertex_body[3], 0);
    EXPECT_EQ(mesh.vertex_body[4], 1);
    EXPECT_EQ(mesh.face_body[7], 1);
    EXPECT_EQ(mesh.edge_body[5], 0);
    EXPECT_EQ(error_of(mesh), "");
}

// Sizing the arrays once gives the arrays of appending body by body, after bodies already there.
TEST(CollisionMesh, AppendBodiesEqualsAppendingOneByOne) {
    TriMesh cuboid = box(Vec3(1, 2, 3));
    TriMesh sphere = icosphere(0.5, 1);
    cuboid.build_connectivity();
    sphere.build_connectivity();
    const std::vector<const TriMesh*> meshes = {&sphere, &cuboid, &sphere};
    CollisionMesh one_by_one = two_tetrahedra(), at_once = two_tetrahedra();
    for (std::size_t k = 0; k < meshes.size(); ++k)
        append_body(one_by_one, static_cast<int>(k) + 2, meshes[k]->num_vertices(),
                    meshes[k]->faces, meshes[k]->edges);
    append_bodies(at_once, 2, meshes);
    EXPECT_EQ(at_once.faces, one_by_one.faces);
    EXPECT_EQ(at_once.edges, one_by_one.edges);
    EXPECT_EQ(at_once.vertex_body, one_by_one.vertex_body);
    EXPECT_EQ(at_once.face_body, one_by_one.face_body);
    EXPECT_EQ(at_once.edge_body, one_by_one.edge_body);
    EXPECT_EQ(at_once.num_faces(), 8 + 2 * sphere.num_faces() + 12);
    EXPECT_EQ(error_of(at_once), "");
}

TEST(CollisionMesh, ValidationNamesTheBadElement) {
    CollisionMesh mesh = two_tetrahedra();
    mesh.faces(5, 1) = 99;
    EXPECT_NE(error_of(mesh).find("face 5 references vertex 99"), std::string::npos)
        << error_of(mesh);

    mesh = two_tetrahedra();
    mesh.edges(2, 0) = 6;  // edge of body 0 using a vertex of body 1
    EXPECT_NE(error_of(mesh).find("edge 2 of body 0 uses vertex 6 of body 1"), std::string::npos)
        << error_of(mesh);

    mesh = two_tetrahedra();
    mesh.face_body.pop_back();
    EXPECT_NE(error_of(mesh).find("face_body has 7 entries"), std::string::npos) << error_of(mesh);

    mesh = two_tetrahedra();
    mesh.vertex_body[2] = -1;
    EXPECT_NE(error_of(mesh).find("vertex 2 has negative body id"), std::string::npos)
        << error_of(mesh);

    EXPECT_EQ(error_of(CollisionMesh{}), "");
}
