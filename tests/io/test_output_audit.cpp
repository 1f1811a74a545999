// Auditing saved frames: a clean run, an intersection between bodies, a vertex through a plane.
#include <gtest/gtest.h>

#include "concord/geometry/primitives.hpp"
#include "concord/io/output_audit.hpp"
#include "concord/io/output_writer.hpp"
#include "io_test_util.hpp"

namespace concord {
namespace {

using test::contains;
using test::ScratchDir;

VecX translated(const Vec3& p) {
    VecX q(12);
    q << p, 1, 0, 0, 0, 1, 0, 0, 0, 1;
    return q;
}

/// Two unit cubes above the plane y = 0: frames 0 and 1 apart, frame 2 overlapping (if asked),
/// frame 3 with cube "b" pushed through the plane (if asked).
void write_run(const std::string& dir, bool overlap, bool through_plane) {
    TriMesh cube = box(Vec3::Ones());
    SceneSpec scene;
    scene.planes.push_back(PlaneSpec{});
    OutputWriter w(dir, false);
    w.write_header(scene, {{"a", &cube, MotionType::Dynamic}, {"b", &cube, MotionType::Dynamic}});
    w.write_frame(0, 0.0, {translated(Vec3(0, 1, 0)), translated(Vec3(2, 1, 0))}, nullptr);
    w.write_frame(1, 0.1, {translated(Vec3(0, 1, 0)), translated(Vec3(1.001, 1, 0))}, nullptr);
    w.write_frame(2, 0.2, {translated(Vec3(0, 1, 0)), translated(Vec3(overlap ? 0.9 : 1.5, 1, 0))},
                  nullptr);
    // A rotation by 90 degrees about z keeps the cube a cube: the audit must use A, not just p.
    VecX turned = translated(Vec3(3, through_plane ? 0.4 : 0.6, 0));
    turned.segment<9>(3) << 0, -1, 0, 1, 0, 0, 0, 0, 1;
    w.write_frame(3, 0.3, {translated(Vec3(0, 1, 0)), turned}, nullptr);
}

TEST(OutputAudit, CleanRun) {
    ScratchDir dir("audit_clean");
    write_run(dir.str(), false, false);
    OutputReader reader(dir.str());
    int seen = 0;
    OutputAuditSummary s = audit_output(reader, [&](int) { ++seen; });
    EXPECT_TRUE(s.clean());
    EXPECT_EQ(s.frames, 4);
    EXPECT_EQ(seen, 4);
    EXPECT_EQ(s.bodies, 2);
    EXPECT_EQ(s.planes, 1);
    EXPECT_TRUE(contains(audit_summary_line(s, reader),
                         "clean: no intersection in 4 frames, 2 bodies, 1 plane"));
}

TEST(OutputAudit, IntersectionBetweenBodies) {
    ScratchDir dir("audit_bodies");
    write_run(dir.str(), true, false);
    OutputReader reader(dir.str());
    OutputAuditSummary s = audit_output(reader);
    EXPECT_FALSE(s.clean());
    EXPECT_EQ(s.frames_with_intersections, 1);
    ASSERT_TRUE(s.first_intersection);
    EXPECT_EQ(s.first_intersection->frame, 2);
    EXPECT_GT(s.triangle_hits, 0);
    EXPECT_EQ(s.plane_hits, 0);
    std::string line = audit_summary_line(s, reader);
    EXPECT_TRUE(contains(line, "INTERSECTION in 1 of 4 frames"));
    EXPECT_TRUE(contains(line, "first at frame 2"));
    EXPECT_TRUE(contains(line, "bodies \"a\" and \"b\""));
}

TEST(OutputAudit, VertexThroughAPlane) {
    ScratchDir dir("audit_plane");
    write_run(dir.str(), false, true);
    OutputReader reader(dir.str());
    OutputAuditSummary s = audit_output(reader);
    ASSERT_TRUE(s.first_intersection);
    EXPECT_EQ(s.first_intersection->frame, 3);
    EXPECT_EQ(s.plane_hits, 4) << "the four bottom corners of the turned cube";
    EXPECT_TRUE(contains(audit_summary_line(s, reader), "body \"b\" vertex"));
}

TEST(OutputAudit, GarbledFrameIsAnInputErrorATornLastLineIsSkipped) {
    ScratchDir dir("audit_garbled");
    write_run(dir.str(), false, false);
    std::string frames = test::read_file(dir.file("frames.jsonl"));
    // A killed run: the last line cut short, without its newline. The frames before it audit.
    test::write_file(dir.file("frames.jsonl"), frames.substr(0, frames.size() - 20));
    OutputReader reader(dir.str());
    const OutputAuditSummary s = audit_output(reader);
    EXPECT_EQ(s.frames, 3);
    EXPECT_TRUE(s.clean());
    // Cut short and followed by a newline: not what a writer leaves, an error naming the line.
    test::write_file(dir.file("frames.jsonl"), frames.substr(0, frames.size() - 20) + "\n");
    EXPECT_TRUE(contains(test::error_of([&] { audit_output(reader); }),
                         "frames.jsonl: line 4: invalid JSON"));
}

}  // namespace
}  // namespace concord
