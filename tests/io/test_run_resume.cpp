// Resuming a run (issue 18): the frame loop's checkpoints, where a killed run's directory ends,
// which checkpoint a resume takes, and what makes a resume refuse.
#include <gtest/gtest.h>

#include <filesystem>

#include "concord/io/frame_loop.hpp"
#include "concord/io/output_layout.hpp"
#include "concord/io/output_reader.hpp"
#include "concord/io/output_writer.hpp"
#include "concord/io/run_resume.hpp"
#include "concord/world/world.hpp"
#include "io_test_util.hpp"

namespace concord {
namespace {

namespace fs = std::filesystem;
using test::contains;
using test::error_of;

SceneSpec falling_box(int frames) {
    SceneSpec s;
    s.time_step = 0.01;
    s.frames = frames;
    s.planes.push_back(PlaneSpec{});
    BodySpec b;
    b.name = "box";
    b.position = Vec3(0.0, 0.52, 0.0);
    s.bodies.push_back(b);
    return s;
}

/// `concord run` in miniature: a new run of `scene` into `dir`, checkpointing every `every`.
int run_new(const SceneSpec& scene, const std::string& dir, int every) {
    World w(scene);
    OutputWriter out(dir, true);
    out.write_header(scene, output_bodies(w));
    FrameLoopOptions o;
    o.checkpoint_every = every;
    o.scene_digest = scene_digest(scene);
    return run_frames(w, scene, out, o, [](int, const StepStats&) { return true; });
}

std::vector<std::string> checkpoint_files(const std::string& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(fs::path(dir) / output_layout::kCheckpointFolder))
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

TEST(RunResume, TheFrameLoopKeepsTheLastTwoCheckpointsAndOneAtTheEnd) {
    test::ScratchDir dir("resume_loop");
    EXPECT_EQ(run_new(falling_box(11), dir.str(), 3), 11);
    EXPECT_EQ(checkpoint_files(dir.str()), (std::vector<std::string>{"000009.ckpt", "000011.ckpt"}));
    const Checkpoint c = load_checkpoint(dir.file("checkpoints/000011.ckpt"));
    EXPECT_EQ(c.frame, 11);
    EXPECT_EQ(c.world.steps, 11);
    EXPECT_EQ(c.scene_digest, scene_digest(falling_box(11)));
    // 0: only at the end; < 0 (the Python API's loop): none.
    test::ScratchDir end("resume_loop_end");
    run_new(falling_box(4), end.str(), 0);
    EXPECT_EQ(checkpoint_files(end.str()), (std::vector<std::string>{"000004.ckpt"}));
}

TEST(RunResume, ScanFramesFindsTheLastCompleteLine) {
    test::ScratchDir dir("resume_scan");
    run_new(falling_box(3), dir.str(), 0);
    const std::string frames = dir.file("frames.jsonl");
    const std::string whole = test::read_file(frames);
    FramesOnDisk f = scan_frames(frames);
    EXPECT_EQ(f.last_frame, 3);
    EXPECT_EQ(f.complete_bytes, whole.size());
    EXPECT_FALSE(f.partial_tail);
    test::write_file(frames, whole + whole.substr(0, 30));  // a kill inside frame 4's line
    f = scan_frames(frames);
    EXPECT_EQ(f.last_frame, 3);
    EXPECT_EQ(f.complete_bytes, whole.size());
    EXPECT_TRUE(f.partial_tail);

    // Readers stop before the partial line and say the run did not finish.
    OutputReader reader(dir.str());
    FrameStream s = reader.frames();
    FrameRecord r;
    int n = 0;
    while (s.next(r)) ++n;
    EXPECT_EQ(n, 4);
    EXPECT_TRUE(s.partial_tail());
    const auto note = reader.unfinished_run_note();
    ASSERT_TRUE(note.has_value());
    EXPECT_TRUE(contains(*note, "stopped after frame 3 of 3"));
    EXPECT_TRUE(contains(*note, "partial frame line"));
    test::write_file(frames, whole);
    EXPECT_FALSE(OutputReader(dir.str()).unfinished_run_note().has_value());
}

TEST(RunResume, AResumeTakesTheNewestCheckpointWhoseFrameIsComplete) {
    test::ScratchDir dir("resume_point");
    const SceneSpec scene = falling_box(8);
    run_new(scene, dir.str(), 3);  // checkpoints 6 and 8
    const std::string frames = dir.file("frames.jsonl");
    const std::string whole = test::read_file(frames);
    // Killed while writing frame 8's line: its checkpoint is not usable, 6 is.
    const FramesOnDisk f = scan_frames(frames);
    const std::size_t frame7_end = whole.rfind('\n', whole.size() - 2) + 1;
    test::write_file(frames, whole.substr(0, frame7_end + 10));
    std::optional<ResumePoint> p = find_resume_point(dir.str(), scene);
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(p->checkpoint.frame, 6);
    EXPECT_EQ(p->last_complete_frame, 7);
    EXPECT_EQ(whole.substr(p->frames_bytes - 1, 1), "\n");
    EXPECT_EQ(whole.substr(p->frames_bytes, 10), "{\"frame\":7");

    // A damaged checkpoint is passed over for the one before; none left: start again.
    test::write_file(frames, whole);
    test::write_file(dir.file("checkpoints/000008.ckpt"), "garbage");
    p = find_resume_point(dir.str(), scene);
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(p->checkpoint.frame, 6);
    fs::remove_all(dir.path() / "checkpoints");
    EXPECT_FALSE(find_resume_point(dir.str(), scene).has_value());
    (void)f;
}

TEST(RunResume, ChangesThatAlterResultsAreRefusedOthersAreNot) {
    test::ScratchDir dir("resume_scene");
    const SceneSpec scene = falling_box(4);
    run_new(scene, dir.str(), 2);
    SceneSpec longer = scene;
    longer.frames = 40;
    longer.checkpoint_every = 7;
    longer.distributed.workers = 2;
    EXPECT_TRUE(find_resume_point(dir.str(), longer).has_value());
    EXPECT_EQ(scene_digest(longer), scene_digest(scene));

    SceneSpec other = scene;
    other.contact.dhat *= 2;
    const std::string e = error_of([&] { find_resume_point(dir.str(), other); });
    EXPECT_TRUE(contains(e, "/contact/dhat"));
    EXPECT_TRUE(contains(e, dir.str()));
    EXPECT_NE(scene_digest(other), scene_digest(scene));

    // A checkpoint of another scene in the folder (copied there by hand) is refused.
    test::ScratchDir foreign("resume_foreign");
    run_new(other, foreign.str(), 2);
    fs::copy_file(foreign.path() / "checkpoints/000004.ckpt", dir.path() / "checkpoints/000004.ckpt",
                  fs::copy_options::overwrite_existing);
    EXPECT_TRUE(contains(error_of([&] { find_resume_point(dir.str(), scene); }), "another scene"));

    test::ScratchDir empty("resume_empty");
    EXPECT_TRUE(nothing_to_resume(empty.str()));
    EXPECT_TRUE(nothing_to_resume(empty.file("missing")));
    test::write_file(empty.file("notes.txt"), "x");
    EXPECT_FALSE(nothing_to_resume(empty.str()));
    EXPECT_TRUE(contains(error_of([&] { find_resume_point(empty.str(), scene); }), "no earlier run"));
}

TEST(RunResume, AResumedRunWritesWhatTheUninterruptedRunWrote) {
    const SceneSpec scene = falling_box(9);
    test::ScratchDir whole("resume_whole"), cut("resume_cut");
    run_new(scene, whole.str(), 4);
    SceneSpec first = scene;
    first.frames = 5;
    run_new(first, cut.str(), 4);  // checkpoints 4 and 5
    // Killed in frame 6: a partial line after frame 5.
    test::write_file(cut.file("frames.jsonl"), test::read_file(cut.file("frames.jsonl")) + "{\"fra");
    const std::optional<ResumePoint> p = find_resume_point(cut.str(), scene);
    ASSERT_TRUE(p.has_value());
    ASSERT_EQ(p->checkpoint.frame, 5);
    World w(scene);
    w.restore_checkpoint(p->checkpoint);
    OutputWriter out(cut.str(), true);
    out.resume(scene, static_cast<std::size_t>(w.num_bodies()), 5, p->frames_bytes);
    FrameLoopOptions o;
    o.resume_after = 5;
    o.checkpoint_every = 4;
    o.scene_digest = scene_digest(scene);
    EXPECT_EQ(run_frames(w, scene, out, o, [](int, const StepStats&) { return true; }), 9);
    const auto a = OutputReader(whole.str()).read_all_frames();
    const auto b = OutputReader(cut.str()).read_all_frames();
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t k = 0; k < a.size(); ++k) {
        EXPECT_EQ(a[k].frame, b[k].frame);
        EXPECT_EQ(a[k].time, b[k].time);
        for (std::size_t i = 0; i < a[k].q.size(); ++i) EXPECT_EQ(a[k].q[i], b[k].q[i]) << k;
        EXPECT_EQ(a[k].stats.newton_iterations, b[k].stats.newton_iterations);
    }
    EXPECT_EQ(test::read_file(whole.file("checkpoints/000009.ckpt")),
              test::read_file(cut.file("checkpoints/000009.ckpt")));
    // scene.json says what the resumed run ran (frames 9, not the first part's 5).
    EXPECT_EQ(test::read_file(whole.file("scene.json")), test::read_file(cut.file("scene.json")));
}

}  // namespace
}  // namespace concord
