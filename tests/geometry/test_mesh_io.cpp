#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "concord/geometry/mass_properties.hpp"
#include "concord/geometry/mesh_io.hpp"
#include "concord/geometry/mesh_validation.hpp"
#include "concord/geometry/primitives.hpp"
#include "geometry/geometry_test_support.hpp"

using namespace concord;
using concord::test::mesh_data_path;
using concord::test::throws_input_error;
using concord::test::write_temp_file;

namespace {

// The unit cube of the data files: vertex i has x, y, z = bits 0, 1, 2 of i; six quads
// counter-clockwise seen from outside, each split as (a, b, c), (a, c, d).
const std::array<std::array<int, 4>, 6> kCubeQuads = {
    {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}}};

Vec3 cube_corner(int i) {
    return Vec3(i & 1, (i >> 1) & 1, (i >> 2) & 1);
}

// A triangle as corner positions, rotated so the smallest corner comes first: equal for the same
// oriented triangle whatever the vertex numbering.
using PositionTriangle = std::array<std::array<double, 3>, 3>;
PositionTriangle canonical(const Vec3& a, const Vec3& b, const Vec3& c) {
    std::array<std::array<double, 3>, 3> t = {
        {{a.x(), a.y(), a.z()}, {b.x(), b.y(), b.z()}, {c.x(), c.y(), c.z()}}};
    const auto first = std::min_element(t.begin(), t.end()) - t.begin();
    std::rotate(t.begin(), t.begin() + first, t.end());
    return t;
}

std::vector<PositionTriangle> triangles_of(const TriMesh& m) {
    std::vector<PositionTriangle> out;
    for (int f = 0; f < m.num_faces(); ++f) {
        out.push_back(canonical(m.vertices.row(m.faces(f, 0)), m.vertices.row(m.faces(f, 1)),
                                m.vertices.row(m.faces(f, 2))));
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<PositionTriangle> reference_cube_triangles() {
    std::vector<PositionTriangle> out;
    for (const auto& q : kCubeQuads) {
        out.push_back(canonical(cube_corner(q[0]), cube_corner(q[1]), cube_corner(q[2])));
        out.push_back(canonical(cube_corner(q[0]), cube_corner(q[2]), cube_corner(q[3])));
    }
    std::sort(out.begin(), out.end());
    return out;
}

// The data cubes must come back as one connected, closed, outward unit cube.
void expect_unit_cube(const TriMesh& m) {
    EXPECT_EQ(m.num_vertices(), 8);
    EXPECT_EQ(m.num_faces(), 12);
    EXPECT_EQ(m.num_edges(), 18);
    EXPECT_TRUE(validate_mesh(m).ok());
    EXPECT_EQ(triangles_of(m), reference_cube_triangles());
    EXPECT_DOUBLE_EQ(compute_mass_properties(m, 1.0, "cube").volume, 1.0);
}

}  // namespace

TEST(MeshIo, ObjKeepsVertexOrderAndIndicesExactly) {
    const TriMesh m = load_mesh(mesh_data_path("tetra.obj"));
    Vertices v(4, 3);
    v << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1;
    Faces f(4, 3);
    f << 0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3;
    EXPECT_EQ(m.vertices, v);
    EXPECT_EQ(m.faces, f);
    EXPECT_EQ(m.num_edges(), 6);
    EXPECT_TRUE(validate_mesh(m).ok());
}

TEST(MeshIo, ObjPolygonsAreSplitIntoFans) {
    const TriMesh m = load_mesh(mesh_data_path("cube_quads.obj"));
    ASSERT_EQ(m.num_vertices(), 8);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(Vec3(m.vertices.row(i)), cube_corner(i));
    ASSERT_EQ(m.num_faces(), 12);
    for (int q = 0; q < 6; ++q) {
        const auto& c = kCubeQuads[q];
        EXPECT_EQ(m.faces.row(2 * q), Eigen::RowVector3i(c[0], c[1], c[2]));
        EXPECT_EQ(m.faces.row(2 * q + 1), Eigen::RowVector3i(c[0], c[2], c[3]));
    }
    expect_unit_cube(m);
}

TEST(MeshIo, ExtensionIsCaseInsensitive) {
    const std::string path = write_temp_file("UPPER.OBJ", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    EXPECT_EQ(load_mesh(path).num_faces(), 1);
}

TEST(MeshIo, ObjRoundTripIsBitExact) {
    // Random doubles need all 17 digits; tiny, huge and subnormal values test the exponent path.
    TriMesh m = icosphere(1.37, 2);
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> noise(-1.0, 1.0);
    for (int i = 0; i < m.num_vertices(); ++i) {
        for (int k = 0; k < 3; ++k) m.vertices(i, k) += 1e-3 * noise(rng);
    }
    m.vertices(0, 0) = 0.1;
    m.vertices(0, 1) = -1e-300;
    m.vertices(0, 2) = std::numeric_limits<double>::denorm_min();
    m.vertices(1, 0) = 1e300;
    m.vertices(1, 1) = std::nextafter(1.0, 2.0);
    m.vertices(1, 2) = -std::numeric_limits<double>::max();
    const std::string path = write_temp_file("round_trip.obj", "");
    save_obj(m, path);
    const TriMesh back = load_mesh(path);
    ASSERT_EQ(back.num_vertices(), m.num_vertices());
    ASSERT_EQ(back.num_faces(), m.num_faces());
    EXPECT_EQ(std::memcmp(back.vertices.data(), m.vertices.data(),
                          sizeof(double) * static_cast<std::size_t>(m.vertices.size())),
              0);
    EXPECT_EQ(back.faces, m.faces);
    EXPECT_EQ(back.edges, m.edges);
}

TEST(MeshIo, AsciiStlGivesConnectedMesh) {
    expect_unit_cube(load_mesh(mesh_data_path("cube_ascii.stl")));
}

TEST(MeshIo, BinaryStlWithFacetNormalsGivesConnectedMesh) {
    expect_unit_cube(load_mesh(mesh_data_path("cube_binary.stl")));
}

TEST(MeshIo, PlyKeepsVertexOrderAndSplitsQuadsIntoFans) {
    const TriMesh m = load_mesh(mesh_data_path("cube_quads.ply"));
    ASSERT_EQ(m.num_vertices(), 8);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(Vec3(m.vertices.row(i)), cube_corner(i));
    ASSERT_EQ(m.num_faces(), 12);
    for (int q = 0; q < 6; ++q) {
        const auto& c = kCubeQuads[q];
        EXPECT_EQ(m.faces.row(2 * q), Eigen::RowVector3i(c[0], c[1], c[2]));
        EXPECT_EQ(m.faces.row(2 * q + 1), Eigen::RowVector3i(c[0], c[2], c[3]));
    }
    expect_unit_cube(m);
}

TEST(MeshIo, BinaryPly) {
    expect_unit_cube(load_mesh(mesh_data_path("cube_binary.ply")));
}

// ---- errors ---------------------------------------------------------------------------------

TEST(MeshIoErrors, MissingFileDirectoryAndUnknownFormat) {
    const std::string missing = mesh_data_path("does_not_exist.obj");
    EXPECT_TRUE(throws_input_error([&] { load_mesh(missing); }, missing + ": no such file"));
    const std::string dir = mesh_data_path("");
    EXPECT_TRUE(throws_input_error([&] { load_mesh(dir); }, ": is a directory"));
    const std::string xyz = write_temp_file("points.xyz", "0 0 0\n");
    EXPECT_TRUE(throws_input_error([&] { load_mesh(xyz); },
                                   xyz + ": unsupported mesh format '.xyz' (expected .obj, .stl "
                                         "or .ply)"));
    const std::string bare = write_temp_file("no_extension", "v 0 0 0\n");
    EXPECT_TRUE(throws_input_error([&] { load_mesh(bare); }, "unsupported mesh format ''"));
}

// Found by fuzz_mesh_reader when assimp read PLY: it never returned on a header without
// end_header and aborted on some malformed headers; the header is checked strictly; device files (which could feed a
// reader for ever) are refused before reading.
TEST(MeshIoErrors, PlyWithoutEndHeaderAndDeviceFilesAreRefused) {
    const std::string header = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                               "property float y\nproperty float z\n";
    const std::string ply = write_temp_file("no_end.ply", header);
    EXPECT_TRUE(throws_input_error([&] { load_mesh(ply); }, "PLY header without an end_header line"));
    const std::string typo = write_temp_file("typo.ply", header + "end_heafer\n0 0 0\n");
    EXPECT_TRUE(throws_input_error([&] { load_mesh(typo); }, "PLY header line 7: unexpected \"end_heafer\""));
    const std::string bad_type =
        write_temp_file("bad_type.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty flot x\nend_header\n0\n");
    EXPECT_TRUE(throws_input_error([&] { load_mesh(bad_type); }, "PLY header line 4: expected \"property TYPE NAME\""));
    const std::string float_count = write_temp_file(
        "float_count.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
                           "property float z\nelement face 1\nproperty list float int vertex_indices\n"
                           "end_header\n0 0 0\n3 0 0 0\n");
    EXPECT_TRUE(throws_input_error([&] { load_mesh(float_count); }, "PLY header line 8"));
    const std::string not_ply = write_temp_file("not.ply", "solid x\nendsolid x\n");
    EXPECT_TRUE(throws_input_error([&] { load_mesh(not_ply); }, "not a PLY file"));
    EXPECT_TRUE(throws_input_error([&] { load_mesh("/dev/zero"); }, "/dev/zero: not a regular file"));
}

TEST(MeshIoErrors, ObjEmptyMesh) {
    const std::string empty = write_temp_file("empty.obj", "# nothing here\n");
    EXPECT_TRUE(throws_input_error([&] { load_mesh(empty); }, empty + ": mesh has no vertices"));
    const std::string no_faces = write_temp_file("no_faces.obj", "v 0 0 0\nv 1 0 0\n");
    EXPECT_TRUE(throws_input_error([&] { load_mesh(no_faces); }, no_faces + ": mesh has no faces"));
}

TEST(MeshIoErrors, ObjBadCoordinates) {
    const std::string head = "v 0 0 0\nv 1 0 0\n";
    struct Case {
        const char* name;
        std::string line;
        std::string expected;
    };
    const std::vector<Case> cases = {
        {"nan.obj", "v 0 nan 1\n", ": line 3: vertex 3 has a non-finite coordinate 'nan'"},
        {"inf.obj", "v 0 1 -inf\n", ": line 3: vertex 3 has a non-finite coordinate '-inf'"},
        {"overflow.obj", "v 1e999 0 0\n", ": line 3: vertex 3 has a non-finite coordinate '1e999'"},
        {"word.obj", "v 0 abc 1\n", ": line 3: vertex 3: 'abc' is not a number"},
        {"comma.obj", "v 0,1 2 3\n", ": line 3: vertex 3: '0,1' is not a number"},
        {"short.obj", "v 0 1\n", ": line 3: vertex 3 needs 3 coordinates, found 2"},
    };
    for (const Case& c : cases) {
        const std::string path = write_temp_file(c.name, head + c.line + "f 1 2 3\n");
        EXPECT_TRUE(throws_input_error([&] { load_mesh(path); }, path + c.expected)) << c.name;
    }
}

TEST(MeshIoErrors, ObjBadFaces) {
    const std::string head = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\n";
    struct Case {
        const char* name;
        std::string line;
        std::string expected;
    };
    const std::vector<Case> cases = {
        {"out_of_range.obj", "f 1 2 99\n",
         ": line 6: face 2 references vertex 99 but the mesh has 4 vertices"},
        {"relative_out_of_range.obj", "f -1 -2 -10\n",
         ": line 6: face 2 references vertex -10 but only 4 vertices precede it"},
        {"zero.obj", "f 0 1 2\n", ": line 6: face 2 uses vertex 0 (OBJ indices start at 1)"},
        {"two_corners.obj", "f 1 2\n", ": line 6: face 2 has 2 vertices; a face needs at least 3"},
        {"garbage_corner.obj", "f 1 x 2\n", ": line 6: face 2: 'x' is not a vertex reference"},
        {"huge_index.obj", "f 1 2 99999999999999\n",
         ": line 6: face 2 references vertex 99999999999999"},
    };
    for (const Case& c : cases) {
        const std::string path = write_temp_file(c.name, head + c.line);
        EXPECT_TRUE(throws_input_error([&] { load_mesh(path); }, path + c.expected)) << c.name;
    }
    // A positive index may refer forward; it is judged against the final vertex count.
    const std::string forward =
        write_temp_file("forward.obj", "f 1 2 3\nv 0 0 0\nv 1 0 0\nv 0 1 0\n");
    EXPECT_EQ(load_mesh(forward).num_faces(), 1);
}

TEST(MeshIoErrors, StlAndPlyParseFailures) {
    const std::string garbage_stl = write_temp_file("garbage.stl", "hello\nthis is not stl\n");
    EXPECT_TRUE(
        throws_input_error([&] { load_mesh(garbage_stl); }, garbage_stl + ": cannot read mesh: "));
    const std::string empty_stl = write_temp_file("empty.stl", "");
    EXPECT_TRUE(
        throws_input_error([&] { load_mesh(empty_stl); }, empty_stl + ": cannot read mesh: "));
    const std::string garbage_ply = write_temp_file("garbage.ply", "not a ply file\n");
    EXPECT_TRUE(
        throws_input_error([&] { load_mesh(garbage_ply); }, garbage_ply + ": cannot read mesh: "));
}

namespace {
std::string ply_with_faces(const std::string& faces, int face_count) {
    return "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\n"
           "property float z\nelement face " +
           std::to_string(face_count) +
           "\nproperty list uchar int vertex_indices\nend_header\n"
           "0 0 0\n1 0 0\n0 1 0\n0 0 1\n" +
           faces;
}
}  // namespace

TEST(MeshIoErrors, PlyIndicesOutOfRange) {
    const std::string big =
        write_temp_file("big_index.ply", ply_with_faces("3 0 2 1\n3 0 1 99\n", 2));
    EXPECT_TRUE(throws_input_error([&] { load_mesh(big); }, big + ": cannot read mesh: "));
    EXPECT_TRUE(throws_input_error([&] { load_mesh(big); },
                                   "face 1 references vertex 99, out of range (4 vertices)"));
    const std::string negative =
        write_temp_file("negative_index.ply", ply_with_faces("3 0 2 1\n3 0 1 -3\n", 2));
    EXPECT_TRUE(throws_input_error([&] { load_mesh(negative); },
                                   negative + ": cannot read mesh: face 1 references vertex -3"));
}

TEST(MeshIoErrors, PlyLineIsNotASurface) {
    const std::string path = write_temp_file("line.ply", ply_with_faces("3 0 2 1\n2 0 1\n", 2));
    EXPECT_TRUE(throws_input_error([&] { load_mesh(path); },
                                   path + ": face 1 has 2 vertices; points and lines are not "
                                          "surfaces"));
}

TEST(MeshIoErrors, BinaryPlyNonFiniteCoordinate) {
    std::string data =
        "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\n"
        "property float y\nproperty float z\nelement face 1\n"
        "property list uchar int vertex_indices\nend_header\n";
    const float inf = std::numeric_limits<float>::infinity();
    const float xyz[9] = {0, 0, 0, 1, inf, 0, 0, 1, 0};
    data.append(reinterpret_cast<const char*>(xyz), sizeof xyz);
    const unsigned char corners = 3;
    const std::int32_t face[3] = {0, 1, 2};
    data.append(reinterpret_cast<const char*>(&corners), 1);
    data.append(reinterpret_cast<const char*>(face), sizeof face);
    const std::string path = write_temp_file("inf.ply", data);
    EXPECT_TRUE(throws_input_error([&] { load_mesh(path); },
                                   path + ": vertex 1 has a non-finite coordinate (1, inf, 0)"));
}

TEST(MeshIoErrors, BinaryStlNonFiniteCoordinate) {
    // One facet whose third corner has x = NaN (binary STL stores raw floats, so NaN survives).
    std::string data(80, ' ');
    const std::uint32_t count = 1;
    data.append(reinterpret_cast<const char*>(&count), 4);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float values[12] = {0, 0, 1, 0, 0, 0, 1, 0, 0, nan, 1, 0};
    data.append(reinterpret_cast<const char*>(values), sizeof values);
    data.append(2, '\0');
    const std::string path = write_temp_file("nan.stl", data);
    EXPECT_TRUE(throws_input_error([&] { load_mesh(path); },
                                   path + ": facet 0 has a non-finite coordinate (nan, 1, 0)"));
}

TEST(MeshIoErrors, SaveToUnwritablePath) {
    const std::string path = mesh_data_path("no_such_dir/out.obj");
    EXPECT_TRUE(throws_input_error([&] { save_obj(box(Vec3::Ones()), path); },
                                   path + ": cannot open for writing"));
}
