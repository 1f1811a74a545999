// Concord's own PLY reader (geometry/ply_reader.cpp), through load_mesh: exact coordinates in
// every encoding, elements and properties it must read past, and malformed data it must refuse
// with a message naming the place (the cases assimp got wrong, found by fuzz_mesh_reader).
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "concord/geometry/mesh_io.hpp"
#include "geometry/geometry_test_support.hpp"

namespace concord {
namespace {

using concord::test::throws_input_error;
using concord::test::write_temp_file;

// Appends `value` to `data` in the byte order the file declares.
template <class T>
void put(std::string& data, T value, bool big_endian) {
    char b[sizeof(T)];
    std::memcpy(b, &value, sizeof(T));
    if (big_endian != (std::endian::native == std::endian::big))
        for (std::size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(b[i], b[sizeof(T) - 1 - i]);
    data.append(b, sizeof(T));
}

// A tetrahedron whose coordinates need all 53 bits, stored as double, with a colour per vertex,
// a normal list per vertex, an extra "edge" element before the faces and a face list that is
// not the first property of the face: everything but x, y, z and vertex_indices is read past.
std::string binary_tetrahedron(bool big_endian, const std::vector<double>& xyz) {
    std::string data = std::string("ply\nformat ") +
                       (big_endian ? "binary_big_endian" : "binary_little_endian") +
                       " 1.0\ncomment made by hand\nelement vertex 4\nproperty uchar red\n"
                       "property double x\nproperty double y\nproperty list uint8 float normal\n"
                       "property double z\nelement edge 2\nproperty int a\nproperty int b\n"
                       "element face 4\nproperty ushort flags\nproperty list uchar uint "
                       "vertex_indices\nend_header\n";
    for (int v = 0; v < 4; ++v) {
        put<std::uint8_t>(data, 200, big_endian);
        put<double>(data, xyz[3 * v], big_endian);
        put<double>(data, xyz[3 * v + 1], big_endian);
        put<std::uint8_t>(data, 3, big_endian);
        for (int k = 0; k < 3; ++k) put<float>(data, 0.5f, big_endian);
        put<double>(data, xyz[3 * v + 2], big_endian);
    }
    for (int e = 0; e < 2; ++e) {
        put<std::int32_t>(data, e, big_endian);
        put<std::int32_t>(data, e + 1, big_endian);
    }
    const std::uint32_t faces[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    for (const auto& f : faces) {
        put<std::uint16_t>(data, 7, big_endian);
        put<std::uint8_t>(data, 3, big_endian);
        for (std::uint32_t i : f) put<std::uint32_t>(data, i, big_endian);
    }
    return data;
}

TEST(PlyReader, BinaryDoublesReadBackExactlyInBothByteOrders) {
    const std::vector<double> xyz = {0.1, 1.0 / 3.0, -2.0 / 7.0, 1.0 + 1e-15, 0, 0,
                                     0, 1.0 - 1e-16, 0, 0, 0, 0.7000000000000001};
    for (bool big : {false, true}) {
        const std::string path = write_temp_file(big ? "tet_be.ply" : "tet_le.ply",
                                                 binary_tetrahedron(big, xyz));
        const TriMesh m = load_mesh(path);
        ASSERT_EQ(m.num_vertices(), 4);
        for (int v = 0; v < 4; ++v)
            for (int k = 0; k < 3; ++k) EXPECT_EQ(m.vertices(v, k), xyz[3 * v + k]) << big;
        ASSERT_EQ(m.num_faces(), 4);
        EXPECT_EQ(m.faces.row(0), Eigen::RowVector3i(0, 2, 1));
        EXPECT_EQ(m.faces.row(3), Eigen::RowVector3i(1, 2, 3));
    }
}

TEST(PlyReader, AsciiKeepsDoublesExactlyAndReadsFacesBeforeVertices) {
    // vertex_index (the older name), faces first, a pentagon split into a fan, CRLF line ends.
    const std::string path = write_temp_file(
        "faces_first.ply",
        "ply\r\nformat ascii 1.0\r\nelement face 2\r\nproperty list uchar int vertex_index\r\n"
        "element vertex 6\r\nproperty float64 x\r\nproperty float64 y\r\nproperty float64 z\r\n"
        "end_header\r\n5 0 1 2 3 4\r\n3 0 4 5\r\n0.1 0 0\r\n1 0 0\r\n1 1 0\r\n0.5 1.5 0\r\n"
        "0 1 0\r\n+0.30000000000000004 0.2 -1e-300\r\n");
    const TriMesh m = load_mesh(path);
    ASSERT_EQ(m.num_vertices(), 6);
    EXPECT_EQ(m.vertices(0, 0), 0.1);
    EXPECT_EQ(m.vertices(5, 0), 0.30000000000000004);
    EXPECT_EQ(m.vertices(5, 2), -1e-300);
    ASSERT_EQ(m.num_faces(), 4);
    EXPECT_EQ(m.faces.row(0), Eigen::RowVector3i(0, 1, 2));
    EXPECT_EQ(m.faces.row(2), Eigen::RowVector3i(0, 3, 4));
    EXPECT_EQ(m.faces.row(3), Eigen::RowVector3i(0, 4, 5));
}

std::string ascii_triangle(const std::string& vertex_lines, const std::string& face_line) {
    return "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
           "property float z\nelement face 1\nproperty list uchar int vertex_indices\n"
           "end_header\n" +
           vertex_lines + face_line;
}

TEST(PlyReaderErrors, AsciiValuesThatAreNotNumbersOfTheirType) {
    struct Case {
        const char* name;
        std::string text;
        std::string expected;
    };
    const std::string ok_vertices = "0 0 0\n1 0 0\n0 1 0\n";
    const std::vector<Case> cases = {
        // assimp read "nan" as 0; it now reaches load_mesh's finiteness check.
        {"nan.ply", ascii_triangle("0 0 0\n1 nan 0\n0 1 0\n", "3 0 1 2\n"),
         ": vertex 1 has a non-finite coordinate (1, nan, 0)"},
        {"overflow.ply", ascii_triangle("0 0 0\n1 0 0\n0 1e999 0\n", "3 0 1 2\n"),
         ": vertex 2 has a non-finite coordinate (0, inf, 0)"},
        {"word.ply", ascii_triangle("0 0 0\n1 abc 0\n0 1 0\n", "3 0 1 2\n"),
         ": cannot read mesh: PLY line 11, element vertex 1, property y: 'abc' is not a float"},
        {"fraction_index.ply", ascii_triangle(ok_vertices, "3 0 1.5 2\n"),
         ": cannot read mesh: PLY line 13, element face 0, property vertex_indices: '1.5' is "
         "not a int"},
        {"count_range.ply", ascii_triangle(ok_vertices, "300 0 1 2\n"),
         "element face 0, property vertex_indices: '300' is not a uchar"},
        {"short.ply", ascii_triangle("0 0 0\n1 0 0\n0 1\n", ""),
         "element vertex 2, property z: the data ends here"},
        {"truncated_face.ply", ascii_triangle(ok_vertices, "3 0 1\n"),
         "element face 0, property vertex_indices: the data ends here"},
        {"negative_count.ply",
         "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
         "property float z\nelement face 1\nproperty list char int vertex_indices\nend_header\n" +
             ok_vertices + "-3 0 1 2\n",
         "a negative list length -3"},
    };
    for (const Case& c : cases) {
        const std::string path = write_temp_file(c.name, c.text);
        EXPECT_TRUE(throws_input_error([&] { load_mesh(path); }, c.expected)) << c.name;
    }
}

TEST(PlyReaderErrors, BinaryDataThatEndsEarlyOrClaimsTooMuch) {
    const std::vector<double> xyz(12, 0.25);
    const std::string full = binary_tetrahedron(false, xyz);
    // Cut inside the first vertex's x, and inside the last face's indices (whose length is
    // checked against the bytes left before any is read).
    const std::size_t body = full.find("end_header\n") + 11;
    const std::string cut_vertex = write_temp_file("cut_vertex.ply", full.substr(0, body + 5));
    EXPECT_TRUE(throws_input_error([&] { load_mesh(cut_vertex); },
                                   cut_vertex + ": cannot read mesh: PLY element vertex 0, "
                                                "property x: the data ends here"));
    const std::string cut = write_temp_file("cut.ply", full.substr(0, full.size() - 2));
    EXPECT_TRUE(throws_input_error([&] { load_mesh(cut); },
                                   cut + ": cannot read mesh: PLY element face 3, property "
                                         "vertex_indices: a list of 3 values, more than the "
                                         "data holds"));
    // A list length far beyond the file (assimp allocated length x 4 bytes before failing).
    std::string huge =
        "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\n"
        "property float y\nproperty float z\nelement face 1\n"
        "property list uint int vertex_indices\nend_header\n";
    for (int k = 0; k < 9; ++k) put<float>(huge, static_cast<float>(k % 2), false);
    put<std::uint32_t>(huge, 4000000000u, false);
    const std::string huge_path = write_temp_file("huge_list.ply", huge);
    EXPECT_TRUE(throws_input_error([&] { load_mesh(huge_path); },
                                   "element face 0, property vertex_indices: a list of "
                                   "4000000000 values, more than the data holds"));
    // An element of ten billion items with no properties is read past at once, and one with
    // properties fails at the end of the data, not after ten billion steps.
    const std::string empty_element = write_temp_file(
        "empty_element.ply",
        "ply\nformat binary_little_endian 1.0\nelement nothing 9999999999\nelement vertex "
        "9999999999\nproperty uchar x\nproperty uchar y\nproperty uchar z\nend_header\n\x01\x02\x03");
    EXPECT_TRUE(throws_input_error([&] { load_mesh(empty_element); },
                                   "element vertex 1, property x: the data ends here"));
}

TEST(PlyReaderErrors, HeadersTheDataLoopCouldNotTrust) {
    struct Case {
        const char* name;
        std::string header;
        std::string expected;
    };
    const std::vector<Case> cases = {
        {"no_z.ply", "element vertex 1\nproperty float x\nproperty float y\n",
         "PLY header line 3: element vertex has no scalar property z"},
        {"list_x.ply",
         "element vertex 1\nproperty list uchar float x\nproperty float y\nproperty float z\n",
         "PLY header line 3: element vertex has no scalar property x"},
        {"no_indices.ply",
         "element vertex 1\nproperty float x\nproperty float y\nproperty float z\nelement face "
         "1\nproperty list uchar int corners\n",
         "PLY header line 7: element face has no integer list property vertex_indices"},
        {"float_indices.ply",
         "element vertex 1\nproperty float x\nproperty float y\nproperty float z\nelement face "
         "1\nproperty list uchar float vertex_indices\n",
         "PLY header line 7: element face has no integer list property vertex_indices"},
        {"twice_x.ply",
         "element vertex 1\nproperty float x\nproperty float x\nproperty float y\n",
         "PLY header line 5: a second property x in element vertex"},
        {"twice_vertex.ply",
         "element vertex 0\nproperty float x\nproperty float y\nproperty float z\nelement "
         "vertex 0\n",
         "PLY header line 7: a second element vertex"},
        {"format.ply", "", "PLY header line 2: expected \"format"},
    };
    for (const Case& c : cases) {
        const std::string format =
            std::string(c.name) == "format.ply" ? "format binary 1.0\n" : "format ascii 1.0\n";
        const std::string path =
            write_temp_file(c.name, "ply\n" + format + c.header + "end_header\n");
        EXPECT_TRUE(throws_input_error([&] { load_mesh(path); }, c.expected)) << c.name;
    }
}

}  // namespace
}  // namespace concord
