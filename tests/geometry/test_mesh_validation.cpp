#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "concord/geometry/mesh_validation.hpp"
#include "concord/geometry/primitives.hpp"
#include "geometry/geometry_test_support.hpp"

using namespace concord;
using concord::test::throws_input_error;

namespace {

bool mentions(const std::vector<std::string>& lines, const std::string& text) {
    return std::any_of(lines.begin(), lines.end(),
                       [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

std::string joined(const std::vector<std::string>& lines) {
    std::string s;
    for (const auto& l : lines) s += l + "\n";
    return s;
}

TriMesh without_face(const TriMesh& m, int removed) {
    Faces f(m.num_faces() - 1, 3);
    for (int i = 0, j = 0; i < m.num_faces(); ++i) {
        if (i != removed) f.row(j++) = m.faces.row(i);
    }
    return make_mesh(m.vertices, f);
}

std::string edge_name(int a, int b) {
    return "(" + std::to_string(std::min(a, b)) + ", " + std::to_string(std::max(a, b)) + ")";
}

}  // namespace

TEST(MeshValidation, DetectsAndNamesHole) {
    const TriMesh cube = box(Vec3::Ones());
    const TriMesh holed = without_face(cube, 3);
    const MeshReport r = validate_mesh(holed);
    EXPECT_FALSE(r.closed);
    EXPECT_TRUE(r.manifold);
    EXPECT_TRUE(r.consistently_oriented);
    EXPECT_FALSE(r.ok());
    for (int k = 0; k < 3; ++k) {
        const std::string e = edge_name(cube.faces(3, k), cube.faces(3, (k + 1) % 3));
        EXPECT_TRUE(mentions(r.problems, "boundary edge " + e)) << e << "\n" << joined(r.problems);
    }
    EXPECT_TRUE(throws_input_error([&] { require_closed_oriented(holed, "holed.obj"); },
                                   "holed.obj: mesh is not closed: boundary edge ("));
    EXPECT_TRUE(
        throws_input_error([&] { require_closed_oriented(holed, "holed.obj"); }, "(and 2 more)"));
}

TEST(MeshValidation, DetectsAndNamesFlippedFace) {
    TriMesh m = box(Vec3::Ones());
    const Eigen::RowVector3i original = m.faces.row(5);
    std::swap(m.faces(5, 1), m.faces(5, 2));
    m.build_connectivity();
    const MeshReport r = validate_mesh(m);
    EXPECT_TRUE(r.closed);
    EXPECT_TRUE(r.manifold);
    EXPECT_FALSE(r.consistently_oriented);
    EXPECT_FALSE(r.ok());
    for (int k = 0; k < 3; ++k) {
        const std::string e = edge_name(original[k], original[(k + 1) % 3]);
        EXPECT_TRUE(mentions(r.problems, "inconsistently oriented edge " + e))
            << e << "\n"
            << joined(r.problems);
    }
    EXPECT_TRUE(mentions(r.problems, "and 5 traverse it in the same direction"));
    EXPECT_TRUE(throws_input_error([&] { require_closed_oriented(m, "flip"); },
                                   "flip: mesh is not consistently oriented: inconsistently "
                                   "oriented edge ("));
}

TEST(MeshValidation, DetectsAndNamesNonManifoldEdge) {
    // A fin: one more triangle on the cube's edge (0, 1).
    const TriMesh cube = box(Vec3::Ones());
    Vertices v(9, 3);
    v << cube.vertices, Eigen::RowVector3d(0, -2, -2);
    Faces f(13, 3);
    f << cube.faces, Eigen::RowVector3i(1, 0, 8);
    const TriMesh m = make_mesh(v, f);
    const MeshReport r = validate_mesh(m);
    EXPECT_FALSE(r.manifold);
    EXPECT_TRUE(mentions(r.problems, "non-manifold edge (0, 1) shared by 3 faces"))
        << joined(r.problems);
    EXPECT_TRUE(throws_input_error([&] { require_closed_oriented(m, "fin"); }, "fin: mesh is not"));
}

TEST(MeshValidation, DetectsAndNamesNonManifoldVertex) {
    // Two cubes touching at one corner: closed and oriented, but vertex 7 of the first cube is
    // where two separate fans of faces meet.
    const TriMesh a = box(Vec3::Ones());
    Vertices v(15, 3);
    v.topRows(8) = a.vertices;
    for (int i = 1; i < 8; ++i) v.row(7 + i) = a.vertices.row(i).array() + 1.0;
    Faces f(24, 3);
    f.topRows(12) = a.faces;
    for (int i = 0; i < 12; ++i) {
        for (int k = 0; k < 3; ++k) {
            const int c = a.faces(i, k);
            f(12 + i, k) = c == 0 ? 7 : 7 + c;  // second cube's corner 0 is the first's corner 7
        }
    }
    const TriMesh m = make_mesh(v, f);
    const MeshReport r = validate_mesh(m);
    EXPECT_TRUE(r.closed);
    EXPECT_TRUE(r.consistently_oriented);
    EXPECT_FALSE(r.manifold);
    EXPECT_TRUE(mentions(r.problems, "non-manifold vertex 7: its faces form 2 separate fans"))
        << joined(r.problems);
    EXPECT_TRUE(throws_input_error([&] { require_closed_oriented(m, "bowtie"); },
                                   "bowtie: mesh is not manifold: non-manifold vertex 7"));
}

TEST(MeshValidation, DetectsAndNamesDegenerateFaces) {
    // A tetrahedron whose edge (0, 1) is split by vertex 4 on one side only; the sliver
    // (0, 1, 4) keeps the surface closed but has zero area.
    Vertices v(5, 3);
    v << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.5, 0, 0;
    Faces f(6, 3);
    f << 0, 2, 1,  // uses edge (0, 1) from 1 to 0
        0, 4, 3,   // the split face, from 0 to 4 ...
        4, 1, 3,   // ... and on from 4 to 1
        0, 3, 2,   //
        1, 2, 3,   //
        0, 1, 4;   // the sliver: 0 -> 1, 1 -> 4, 4 -> 0 pairs every edge above
    const TriMesh m = make_mesh(v, f);
    const MeshReport r = validate_mesh(m);
    EXPECT_TRUE(r.has_degenerate_faces);
    EXPECT_FALSE(r.ok());
    EXPECT_TRUE(mentions(r.problems, "degenerate face 5 (vertices 0, 1, 4): area 0"))
        << joined(r.problems);
    // Degenerate faces do not stop the mesh from bounding a solid.
    EXPECT_NO_THROW(require_closed_oriented(m, "sliver"));

    Vertices v3 = box(Vec3::Ones()).vertices;
    Faces repeated = box(Vec3::Ones()).faces;
    repeated(4, 2) = repeated(4, 0);
    const MeshReport r2 = validate_mesh(make_mesh(v3, repeated));
    EXPECT_TRUE(r2.has_degenerate_faces);
    EXPECT_TRUE(mentions(r2.problems, "degenerate face 4")) << joined(r2.problems);
    EXPECT_TRUE(mentions(r2.problems, "repeated vertex"));
}

TEST(MeshValidation, NearlyFlatButValidFaceIsNotDegenerate) {
    // A thin but honest face (height 1e-6 of the size) must not be flagged.
    Vertices v(4, 3);
    v << 0, 0, 0, 1, 0, 0, 0.5, 1e-6, 0, 0.5, 0, 1;
    Faces f(4, 3);
    f << 0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3;
    const MeshReport r = validate_mesh(make_mesh(v, f));
    EXPECT_FALSE(r.has_degenerate_faces) << joined(r.problems);
}

TEST(MeshValidation, DuplicateFacesAndZeroVolume) {
    Vertices v(3, 3);
    v << 0, 0, 0, 1, 0, 0, 0, 1, 0;
    Faces f(2, 3);
    f << 0, 1, 2, 0, 2, 1;  // a two-sided triangle: closed and oriented, but no interior
    const TriMesh m = make_mesh(v, f);
    const MeshReport r = validate_mesh(m);
    EXPECT_TRUE(r.closed);
    EXPECT_TRUE(r.consistently_oriented);
    EXPECT_TRUE(r.has_duplicate_faces);
    EXPECT_FALSE(r.outward);
    EXPECT_TRUE(mentions(r.problems, "duplicate faces 0 and 1 (vertices 0, 1, 2)"))
        << joined(r.problems);
    EXPECT_TRUE(mentions(r.problems, "mesh encloses no volume"));
    EXPECT_TRUE(throws_input_error([&] { require_closed_oriented(m, "sheet"); },
                                   "sheet: mesh encloses no volume"));
}

TEST(MeshValidation, InsideOutMesh) {
    TriMesh m = box(Vec3(1, 2, 3));
    m.faces.col(1).swap(m.faces.col(2));
    m.build_connectivity();
    const MeshReport r = validate_mesh(m);
    EXPECT_TRUE(r.closed);
    EXPECT_TRUE(r.consistently_oriented);
    EXPECT_FALSE(r.outward);
    EXPECT_DOUBLE_EQ(r.signed_volume, -6.0);
    EXPECT_TRUE(mentions(r.problems, "mesh is inside out (signed volume -6 < 0)"))
        << joined(r.problems);
    EXPECT_TRUE(throws_input_error([&] { require_closed_oriented(m, "inv"); },
                                   "inv: mesh is inside out: signed volume -6 < 0"));
}

TEST(MeshValidation, UnreferencedVertexIsOnlyAWarning) {
    const TriMesh cube = box(Vec3::Ones());
    Vertices v(9, 3);
    v << cube.vertices, Eigen::RowVector3d(5, 5, 5);
    const MeshReport r = validate_mesh(make_mesh(v, cube.faces));
    EXPECT_TRUE(r.ok());
    EXPECT_TRUE(r.problems.empty());
    EXPECT_TRUE(mentions(r.warnings, "vertex 8 is not used by any face")) << joined(r.warnings);
}

TEST(MeshValidation, InvalidIndexOrCoordinateStopsTheExamination) {
    TriMesh m = box(Vec3::Ones());
    m.faces(2, 1) = 99;  // connectivity not rebuilt: validate_mesh must not rely on it
    MeshReport r = validate_mesh(m);
    EXPECT_FALSE(r.closed || r.manifold || r.consistently_oriented || r.outward);
    EXPECT_TRUE(mentions(r.problems, "face 2 references vertex 99 but the mesh has 8 vertices"));
    EXPECT_TRUE(throws_input_error([&] { require_closed_oriented(m, "bad"); },
                                   "bad: face 2 references vertex 99"));

    m = box(Vec3::Ones());
    m.vertices(3, 1) = std::numeric_limits<double>::quiet_NaN();
    r = validate_mesh(m);
    EXPECT_TRUE(mentions(r.problems, "vertex 3 has a non-finite coordinate"));
    EXPECT_FALSE(r.ok());

    EXPECT_TRUE(mentions(validate_mesh(TriMesh()).problems, "mesh has no faces"));
}

TEST(MeshValidation, LongListsAreTruncatedWithACount) {
    // An open strip of 20 triangles has 22 boundary edges: 5 are named, the rest counted.
    Vertices v(22, 3);
    Faces f(20, 3);
    for (int i = 0; i < 11; ++i) {
        v.row(2 * i) << i, 0, 0;
        v.row(2 * i + 1) << i, 1, 0;
    }
    for (int i = 0; i < 10; ++i) {
        f.row(2 * i) << 2 * i, 2 * i + 2, 2 * i + 1;
        f.row(2 * i + 1) << 2 * i + 1, 2 * i + 2, 2 * i + 3;
    }
    const MeshReport r = validate_mesh(make_mesh(v, f));
    EXPECT_TRUE(r.consistently_oriented);
    EXPECT_FALSE(r.closed);
    EXPECT_EQ(r.problems.size(), 6u) << joined(r.problems);
    EXPECT_EQ(r.problems.back(), "... and 17 more boundary edges");
}
