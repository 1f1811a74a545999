#include <gtest/gtest.h>

#include "concord/export/mesh_sequence_export.hpp"
#include "concord/geometry/mesh_io.hpp"
#include "export/export_test_util.hpp"

namespace concord {
namespace {

TEST(MeshSequenceExport, FileNamesCarryTheFrameNumber) {
    EXPECT_EQ(mesh_sequence_file_name(42, MeshSequenceFormat::Obj), "frame_00042.obj");
    EXPECT_EQ(mesh_sequence_file_name(1234567, MeshSequenceFormat::Ply), "frame_1234567.ply");
}

TEST(MeshSequenceExport, ObjFramesHoldExactWorldVertices) {
    test::HandMadeOutput out("objseq", 2, 4);
    OutputReader reader(out.str());
    const std::string folder = out.dir.file("obj");
    const MeshSequenceSummary s = export_mesh_sequence(reader, folder, MeshSequenceFormat::Obj,
                                                       parse_frame_selection("1:3", "x"));
    EXPECT_EQ(s.files, 3);
    EXPECT_EQ(s.vertices_per_frame, 16);
    EXPECT_EQ(s.faces_per_frame, 24);
    EXPECT_FALSE(std::filesystem::exists(folder + "/frame_00000.obj"));
    const std::string text = test::read_file(folder + "/frame_00002.obj");
    EXPECT_TRUE(test::contains(text, "o cube0\n"));
    EXPECT_TRUE(test::contains(text, "o cube1\n"));

    const TriMesh merged = load_mesh(folder + "/frame_00002.obj");
    ASSERT_EQ(merged.num_vertices(), 16);
    ASSERT_EQ(merged.num_faces(), 24);
    const std::vector<TriMesh> local = reader.load_meshes();
    for (int b = 0; b < 2; ++b) {
        const Vec3 p = test::HandMadeOutput::position(b, 2);
        const Mat3 A = test::HandMadeOutput::orientation(b, 2);
        for (int v = 0; v < 8; ++v) {
            const Vec3 expected = p + A * local[b].vertices.row(v).transpose();
            EXPECT_EQ(Vec3(merged.vertices.row(8 * b + v).transpose()), expected);
        }
        // Faces count on from the previous bodies' vertices.
        EXPECT_EQ(merged.faces(12 * b, 0), local[b].faces(0, 0) + 8 * b);
    }
}

TEST(MeshSequenceExport, PlyFramesReadBack) {
    test::HandMadeOutput out("plyseq", 2, 2);
    OutputReader reader(out.str());
    const std::string folder = out.dir.file("ply");
    export_mesh_sequence(reader, folder, MeshSequenceFormat::Ply, {});
    const std::string bytes = test::read_file(folder + "/frame_00001.ply");
    EXPECT_EQ(bytes.rfind("ply\nformat binary_little_endian 1.0\n", 0), 0u);
    EXPECT_TRUE(test::contains(bytes, "element vertex 16\n"));
    EXPECT_TRUE(test::contains(bytes, "property int body\n"));
    const TriMesh merged = load_mesh(folder + "/frame_00001.ply");
    ASSERT_EQ(merged.num_vertices(), 16);
    ASSERT_EQ(merged.num_faces(), 24);
    const TriMesh cube1 = reader.load_mesh(1);
    const Vec3 expected =
        test::HandMadeOutput::position(1, 1) +
        test::HandMadeOutput::orientation(1, 1) * cube1.vertices.row(3).transpose();
    EXPECT_LT((Vec3(merged.vertices.row(11).transpose()) - expected).norm(),
              1e-6);  // assimp reads floats
}

TEST(MeshSequenceExport, BadSelectionNamesTheRange) {
    test::HandMadeOutput out("seqbad", 1, 2);
    OutputReader reader(out.str());
    EXPECT_TRUE(test::contains(test::error_of([&] {
                                   export_mesh_sequence(reader, out.dir.file("o"),
                                                        MeshSequenceFormat::Obj, single_frame(7));
                               }),
                               "no saved frame 7 (saved frames: 0..1)"));
}

}  // namespace
}  // namespace concord
