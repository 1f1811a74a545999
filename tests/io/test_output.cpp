// The output directory: writer and reader agree bit for bit, refuse what they should, and the
// reader names the file and line of anything garbled.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "concord/geometry/primitives.hpp"
#include "concord/io/output_reader.hpp"
#include "concord/io/output_writer.hpp"
#include "concord/io/step_stats_json.hpp"
#include "concord/scene/json_node.hpp"
#include "concord/scene/splitmix64.hpp"
#include "io_test_util.hpp"

namespace concord {
namespace {

using test::contains;
using test::error_of;
using test::ScratchDir;

/// Two boxes side by side and a ground plane.
struct TwoBoxes {
    TriMesh a = box(Vec3(1, 1, 1));
    TriMesh b = box(Vec3(0.5, 2, 0.25));
    SceneSpec scene;
    std::vector<OutputBody> bodies;

    TwoBoxes() {
        scene.name = "two";
        scene.planes.push_back(PlaneSpec{Vec3(0, -1, 0), Vec3::UnitY(), 0.5});
        BodySpec ba, bb;
        ba.name = "left";
        bb.name = "right";
        bb.position = Vec3(3, 0, 0);
        bb.motion = MotionType::Static;
        scene.bodies = {ba, bb};
        bodies = {{"left", &a, MotionType::Dynamic}, {"right", &b, MotionType::Static}};
    }
};

VecX identity_q(const Vec3& p) {
    VecX q(12);
    q << p, 1, 0, 0, 0, 1, 0, 0, 0, 1;
    return q;
}

TEST(OutputWriter, WritesTheContractLayout) {
    ScratchDir dir("io_layout");
    TwoBoxes s;
    OutputWriter w(dir.file("out"), false);
    w.write_header(s.scene, s.bodies);
    w.write_frame(0, 0.0, {identity_q(Vec3::Zero()), identity_q(Vec3(3, 0, 0))}, nullptr);
    EXPECT_EQ(w.frames_written(), 1);

    auto bodies = nlohmann::json::parse(test::read_file(dir.file("out/bodies.json")));
    EXPECT_EQ(bodies, nlohmann::json::parse(R"([
        {"name": "left", "mesh": "meshes/left.obj", "motion": "dynamic"},
        {"name": "right", "mesh": "meshes/right.obj", "motion": "static"}])"));
    auto scene = nlohmann::json::parse(test::read_file(dir.file("out/scene.json")));
    EXPECT_EQ(scene.at("name"), "two");
    EXPECT_EQ(scene.at("bodies").size(), 2u);
    EXPECT_TRUE(std::filesystem::is_regular_file(dir.file("out/meshes/left.obj")));

    std::string frames = test::read_file(dir.file("out/frames.jsonl"));
    ASSERT_FALSE(frames.empty());
    EXPECT_EQ(frames.back(), '\n');
    auto line = nlohmann::json::parse(frames);
    EXPECT_EQ(line.at("frame"), 0);
    EXPECT_EQ(line.at("time"), 0.0);
    EXPECT_EQ(line.at("q").size(), 2u);
    EXPECT_EQ(line.at("q").at(1).size(), 12u);
    EXPECT_EQ(line.at("q").at(1).at(0), 3.0);
    for (const char* key : {"newton_iterations", "contacts", "candidates", "min_distance", "t_coll",
                            "t_solve", "t_frame"}) {
        EXPECT_TRUE(line.at("stats").contains(key)) << key;
    }
    EXPECT_TRUE(line.at("stats").at("min_distance").is_null()) << "infinity is written as null";
}

TEST(OutputWriter, FramesAreFlushedAsTheyAreWritten) {
    ScratchDir dir("io_flush");
    TwoBoxes s;
    OutputWriter w(dir.str(), false);
    w.write_header(s.scene, s.bodies);
    for (int k = 0; k < 3; ++k) {
        w.write_frame(k, 0.1 * k, {identity_q(Vec3::Zero()), identity_q(Vec3(3, 0, 0))}, nullptr);
        // Readable while the writer is still open, as after a crash.
        OutputReader r(dir.str());
        EXPECT_EQ(r.read_all_frames().size(), static_cast<std::size_t>(k + 1));
    }
}

TEST(OutputWriter, RoundTripIsBitExact) {
    ScratchDir dir("io_roundtrip");
    TwoBoxes s;
    OutputWriter w(dir.str(), false);
    w.write_header(s.scene, s.bodies);
    const double awkward[] = {0.1,
                              1.0 / 3.0,
                              -0.0,
                              5e-324,
                              2.2250738585072014e-308,
                              1.7976931348623157e308,
                              -1e-300,
                              3.141592653589793,
                              123456789.12345678,
                              std::nextafter(1.0, 2.0),
                              std::nextafter(1.0, 0.0),
                              9007199254740993.0};
    SplitMix64 rng(3);
    std::vector<std::vector<VecX>> written;
    std::vector<StepStats> stats;
    for (int k = 0; k < 20; ++k) {
        std::vector<VecX> q(2, VecX(12));
        for (auto& row : q) {
            for (int i = 0; i < 12; ++i) {
                // Random finite bit patterns cover every exponent; every 5th is an awkward one.
                double x;
                do {
                    x = std::bit_cast<double>(rng.next());
                } while (!std::isfinite(x));
                row[i] = (i + k) % 5 == 0 ? awkward[(i + k) % 12] : x;
            }
        }
        StepStats st;
        st.newton_iterations = k;
        st.converged = k % 2 == 0;
        st.contacts = 3 * k;
        if (k > 0) st.body_contacts = {3 * k, k};  // frame 0: none recorded
        st.candidates = 7 * k;
        st.min_distance = k % 3 == 0 ? std::numeric_limits<double>::infinity() : 1e-4 / (k + 1);
        st.barrier_stiffness = 1e5 + k;
        st.line_search_trials = k + 1;
        st.ccd_limited_steps = k + 2;
        st.al_switches = k % 4;
        st.linear_solver_iterations = k + 3;
        st.t_coll = 0.001 * k;
        st.t_solve = 0.002 * k;
        st.t_frame = 0.0031 * k;
        st.status = k % 3 == 1 ? ConvergenceStatus::Stopped : ConvergenceStatus::Converged;
        st.stop_reason = k % 2 ? StopReason::MaxIterations : StopReason::Residual;
        st.residual = 1e-7 * k;
        st.islands = k + 4;
        st.substeps = 1 + k % 2;
        st.retries = k % 2;
        st.time_step = 0.01 / (1 + k % 2);
        st.t_assembly = 0.0004 * k;
        st.t_linear = 0.0005 * k;
        st.t_line_search = 0.0006 * k;
        w.write_frame(k, k * 0.01, q, &st);
        written.push_back(q);
        stats.push_back(st);
    }

    OutputReader r(dir.str());
    ASSERT_EQ(r.bodies().size(), 2u);
    EXPECT_EQ(r.bodies()[1].name, "right");
    EXPECT_EQ(r.bodies()[1].motion, MotionType::Static);
    ASSERT_EQ(r.planes().size(), 1u);
    EXPECT_EQ(r.planes()[0].point, Vec3(0, -1, 0));
    EXPECT_EQ(r.planes()[0].friction, 0.5);
    TriMesh mesh = r.load_mesh(1);
    EXPECT_EQ(mesh.vertices, s.b.vertices);
    EXPECT_EQ(mesh.faces, s.b.faces);

    std::vector<FrameRecord> frames = r.read_all_frames();
    ASSERT_EQ(frames.size(), 20u);
    for (int k = 0; k < 20; ++k) {
        const FrameRecord& f = frames[static_cast<std::size_t>(k)];
        EXPECT_EQ(f.frame, k);
        EXPECT_EQ(f.time, k * 0.01);
        for (int b = 0; b < 2; ++b) {
            for (int i = 0; i < 12; ++i) {
                double in = written[k][b][i], out = f.q[b][i];
                EXPECT_EQ(std::bit_cast<std::uint64_t>(in), std::bit_cast<std::uint64_t>(out))
                    << "frame " << k << " body " << b << " coordinate " << i << ": " << in;
            }
        }
        const StepStats& e = stats[static_cast<std::size_t>(k)];
        EXPECT_EQ(f.stats.newton_iterations, e.newton_iterations);
        EXPECT_EQ(f.stats.converged, e.converged);
        EXPECT_EQ(f.stats.contacts, e.contacts);
        EXPECT_EQ(f.stats.body_contacts, e.body_contacts);
        EXPECT_EQ(f.stats.candidates, e.candidates);
        EXPECT_EQ(f.stats.min_distance, e.min_distance);
        EXPECT_EQ(f.stats.barrier_stiffness, e.barrier_stiffness);
        EXPECT_EQ(f.stats.line_search_trials, e.line_search_trials);
        EXPECT_EQ(f.stats.ccd_limited_steps, e.ccd_limited_steps);
        EXPECT_EQ(f.stats.al_switches, e.al_switches);
        EXPECT_EQ(f.stats.linear_solver_iterations, e.linear_solver_iterations);
        EXPECT_EQ(f.stats.t_coll, e.t_coll);
        EXPECT_EQ(f.stats.t_solve, e.t_solve);
        EXPECT_EQ(f.stats.t_frame, e.t_frame);
        EXPECT_EQ(f.stats.status, e.status);
        EXPECT_EQ(f.stats.stop_reason, e.stop_reason);
        EXPECT_EQ(f.stats.residual, e.residual);
        EXPECT_EQ(f.stats.islands, e.islands);
        EXPECT_EQ(f.stats.substeps, e.substeps);
        EXPECT_EQ(f.stats.retries, e.retries);
        EXPECT_EQ(f.stats.time_step, e.time_step);
        EXPECT_EQ(f.stats.t_assembly, e.t_assembly);
        EXPECT_EQ(f.stats.t_linear, e.t_linear);
        EXPECT_EQ(f.stats.t_line_search, e.t_line_search);
    }
}

TEST(OutputWriter, FluidStatsRoundTripAndFold) {
    StepStats s;
    s.fluid = FluidStepStats{1234, 3, 17, 7.5e-4, false, 2, 0.5, 0.25, 0.125, 0.0625, 5};
    const StepStats back = step_stats_from_json(
        JsonNode(nlohmann::json::parse(step_stats_to_json(s).dump()), "stats"));
    ASSERT_TRUE(back.fluid.has_value());
    const FluidStepStats& f = *back.fluid;
    EXPECT_EQ(f.particles, 1234);
    EXPECT_EQ(f.substeps, 3);
    EXPECT_EQ(f.pressure_iterations, 17);
    EXPECT_EQ(f.density_error, 7.5e-4);
    EXPECT_FALSE(f.converged);
    EXPECT_EQ(f.particles_in_bodies, 2);
    EXPECT_EQ(f.t_fluid, 0.5);
    EXPECT_EQ(f.t_neighbors, 0.25);
    EXPECT_EQ(f.t_pressure, 0.125);
    EXPECT_EQ(f.t_coupling, 0.0625);
    EXPECT_EQ(f.pushed_out, 5);
    EXPECT_FALSE(
        step_stats_from_json(
            JsonNode(nlohmann::json::parse(step_stats_to_json(StepStats{}).dump()), "stats"))
            .fluid.has_value());
    // A frame of two steps: counts and times add, the worst error and inside count stay.
    StepStats frame, second = s;
    second.fluid->density_error = 1e-4;
    second.fluid->particles_in_bodies = 0;
    second.fluid->converged = true;
    accumulate_substep(frame, s, true);
    accumulate_substep(frame, second, false);
    EXPECT_EQ(frame.fluid->substeps, 6);
    EXPECT_EQ(frame.fluid->pressure_iterations, 34);
    EXPECT_EQ(frame.fluid->density_error, 7.5e-4);
    EXPECT_EQ(frame.fluid->particles_in_bodies, 2);
    EXPECT_FALSE(frame.fluid->converged);
    EXPECT_EQ(frame.fluid->t_fluid, 1.0);
    EXPECT_EQ(frame.fluid->pushed_out, 10);
}

TEST(OutputWriter, StatsSerialiseEveryField) {
    // A new StepStats field must be added to step_stats_to_json / step_stats_from_json (and to
    // docs/cli.md); then update this size.
    EXPECT_EQ(sizeof(StepStats), 424u) << "StepStats changed: update io/step_stats_json.cpp";
    EXPECT_EQ(sizeof(FluidStepStats), 72u)
        << "FluidStepStats changed: update io/step_stats_json.cpp";
    // No distributed keys by default, and no body_contacts while it is empty.
    EXPECT_EQ(step_stats_to_json(StepStats{}).size(), 23u);
    EXPECT_EQ(sizeof(DistributedStepStats), 136u)
        << "DistributedStepStats changed: update io/step_stats_json.cpp";
}

TEST(OutputWriter, DistributedStatsRoundTrip) {
    StepStats s;
    DistributedStepStats d;
    d.workers = 2;
    d.admm_iterations = 17;
    d.merge_blocked = 1;
    d.anderson_steps = 4;
    d.anderson_restarts = 3;
    d.primal_residual = 1e-4;
    d.dual_residual = 2e-4;
    d.t_sync = 0.25;
    d.t_parallel = 1.5;
    d.overlap_width = 0.3;
    d.planes = {{0.5}, {}, {}};
    d.owners = {0, 1, -1};
    WorkerStepStats w;
    w.bodies = 3;
    w.shared = 1;
    w.owned = 2;
    d.per_worker = {w, w};
    s.distributed = d;
    const nlohmann::json j = step_stats_to_json(s);
    EXPECT_EQ(j.at("admm_iterations"), 17);
    EXPECT_EQ(j.at("per_worker").size(), 2u);
    EXPECT_EQ(j.at("per_worker")[0].at("owned"), 2);
    const StepStats back = step_stats_from_json(JsonNode(j, "frames.jsonl"));
    ASSERT_TRUE(back.distributed.has_value());
    EXPECT_EQ(back.distributed->admm_iterations, 17);
    EXPECT_EQ(back.distributed->merge_blocked, 1);
    EXPECT_EQ(back.distributed->anderson_steps, 4);
    EXPECT_EQ(back.distributed->anderson_restarts, 3);
    EXPECT_EQ(back.distributed->primal_residual, 1e-4);
    EXPECT_EQ(back.distributed->overlap_width, 0.3);
    EXPECT_EQ(back.distributed->planes, d.planes);
    EXPECT_EQ(back.distributed->owners, d.owners);
}

// stats.body_contacts: written when recorded, all zeros in frame 0 (null stats), optional when
// read (runs written before the key existed), and a bad entry is an error naming the key.
TEST(OutputWriter, BodyContactsAreOptionalAndChecked) {
    ScratchDir dir("io_body_contacts");
    TwoBoxes s;
    {
        OutputWriter w(dir.str(), false);
        w.write_header(s.scene, s.bodies);
        const std::vector<VecX> q{identity_q(Vec3::Zero()), identity_q(Vec3(3, 0, 0))};
        w.write_frame(0, 0.0, q, nullptr);
        StepStats st;
        st.contacts = 4;
        st.body_contacts = {4, 0};
        w.write_frame(1, 0.01, q, &st);
    }
    const std::string text = test::read_file(dir.file("frames.jsonl"));
    EXPECT_TRUE(contains(text, R"("body_contacts":[0,0])")) << text;
    EXPECT_TRUE(contains(text, R"("body_contacts":[4,0])")) << text;
    const std::vector<FrameRecord> frames = OutputReader(dir.str()).read_all_frames();
    ASSERT_EQ(frames.size(), 2u);
    EXPECT_EQ(frames[0].stats.body_contacts, std::vector<int>({0, 0}));
    EXPECT_EQ(frames[1].stats.body_contacts, std::vector<int>({4, 0}));

    EXPECT_TRUE(step_stats_from_json(JsonNode(nlohmann::json::parse(R"({"contacts": 2})"), "f"))
                    .body_contacts.empty());
    EXPECT_TRUE(contains(error_of([] {
                             step_stats_from_json(JsonNode(
                                 nlohmann::json::parse(R"({"body_contacts": [1, -1]})"), "f"));
                         }),
                         "body_contacts"));
    EXPECT_TRUE(contains(error_of([] {
                             step_stats_from_json(
                                 JsonNode(nlohmann::json::parse(R"({"body_contacts": 3})"), "f"));
                         }),
                         "body_contacts"));
}

TEST(OutputWriter, RefusesANonEmptyFolderUnlessForced) {
    ScratchDir dir("io_refuse");
    test::write_file(dir.file("notes.txt"), "keep me");
    EXPECT_TRUE(contains(error_of([&] { OutputWriter(dir.str(), false); }),
                         dir.str() + ": output directory is not empty (use --force"));
    TwoBoxes s;
    {
        OutputWriter w(dir.str(), true);
        w.write_header(s.scene, s.bodies);
        w.write_frame(0, 0, {identity_q(Vec3::Zero()), identity_q(Vec3(3, 0, 0))}, nullptr);
    }
    // A forced rewrite with other bodies leaves no stale mesh or frame behind, but other files.
    test::write_file(dir.file("meshes/extra.obj"), "v 0 0 0\n");
    {
        OutputWriter w(dir.str(), true);
        TwoBoxes t;
        t.bodies[0].name = "solo";
        t.bodies.pop_back();
        w.write_header(t.scene, t.bodies);
    }
    EXPECT_FALSE(std::filesystem::exists(dir.file("meshes/left.obj")));
    EXPECT_FALSE(std::filesystem::exists(dir.file("meshes/extra.obj")));
    EXPECT_TRUE(std::filesystem::exists(dir.file("meshes/solo.obj")));
    EXPECT_EQ(test::read_file(dir.file("frames.jsonl")), "");
    EXPECT_EQ(test::read_file(dir.file("notes.txt")), "keep me");

    test::write_file(dir.file("plain"), "x");
    EXPECT_TRUE(contains(error_of([&] { OutputWriter(dir.file("plain"), true); }),
                         "plain: exists and is not a directory"));
}

// Bodies of one shape (an array) share the previous body's mesh file by a hard link: every
// body still has its own readable file with its mesh, also after a forced rewrite in which the
// same names get different meshes (no write goes through an old link).
TEST(OutputWriter, BodiesOfOneShapeGetTheirOwnMeshFile) {
    ScratchDir dir("io_shared_mesh");
    const TriMesh cube = box(Vec3(1, 1, 1)), same = box(Vec3(1, 1, 1)), other = box(Vec3(2, 1, 1));
    SceneSpec scene;
    auto write = [&](std::vector<OutputBody> bodies) {
        scene.bodies.assign(bodies.size(), BodySpec{});
        for (std::size_t i = 0; i < bodies.size(); ++i) scene.bodies[i].name = bodies[i].name;
        OutputWriter w(dir.str(), true);
        w.write_header(scene, bodies);
    };
    write({{"a", &cube, MotionType::Dynamic},
           {"b", &same, MotionType::Dynamic},
           {"c", &same, MotionType::Dynamic},
           {"d", &other, MotionType::Dynamic}});
    const std::string cube_text = test::read_file(dir.file("meshes/a.obj"));
    EXPECT_EQ(test::read_file(dir.file("meshes/b.obj")), cube_text);
    EXPECT_EQ(test::read_file(dir.file("meshes/c.obj")), cube_text);
    EXPECT_NE(test::read_file(dir.file("meshes/d.obj")), cube_text);
    OutputReader r(dir.str());
    ASSERT_EQ(r.bodies().size(), 4u);
    EXPECT_EQ(r.bodies()[2].mesh, "meshes/c.obj");
    EXPECT_EQ(r.load_mesh(2).faces, cube.faces);
    EXPECT_LT((r.load_mesh(2).vertices - cube.vertices).cwiseAbs().maxCoeff(), 1e-12);

    // Rewritten: a and b now differ, c keeps the cube.
    write({{"a", &other, MotionType::Dynamic},
           {"b", &cube, MotionType::Dynamic},
           {"c", &same, MotionType::Dynamic}});
    const std::string other_text = test::read_file(dir.file("meshes/a.obj"));
    EXPECT_NE(other_text, cube_text);
    EXPECT_EQ(test::read_file(dir.file("meshes/b.obj")), cube_text);
    EXPECT_EQ(test::read_file(dir.file("meshes/c.obj")), cube_text);
    EXPECT_FALSE(std::filesystem::exists(dir.file("meshes/d.obj")));
}

TEST(OutputWriter, CreatesMissingFoldersOnlyWhenWriting) {
    ScratchDir dir("io_create");
    std::string out = dir.file("a/b/c");
    OutputWriter w(out, false);
    EXPECT_FALSE(std::filesystem::exists(out)) << "nothing is created before write_header";
    TwoBoxes s;
    w.write_header(s.scene, s.bodies);
    EXPECT_TRUE(std::filesystem::is_directory(out + "/meshes"));
}

TEST(OutputWriter, RejectsNamesThatAreNotFileNames) {
    ScratchDir dir("io_names");
    TwoBoxes s;
    s.bodies[0].name = "../escape";
    OutputWriter w(dir.str(), false);
    EXPECT_TRUE(contains(error_of([&] { w.write_header(s.scene, s.bodies); }),
                         "body '../escape': its name cannot be a file name"));
}

TEST(SubstepStats, AccumulateOverAFrame) {
    StepStats a, b, frame;
    a.newton_iterations = 3;
    a.converged = true;
    a.contacts = 5;
    a.body_contacts = {5, 0};
    a.candidates = 10;
    a.min_distance = 1e-3;
    a.t_frame = 0.5;
    a.time_step = 0.01;
    a.residual = 1e-3;
    b.newton_iterations = 4;
    b.converged = false;
    b.contacts = 2;
    b.body_contacts = {1, 1};
    b.candidates = 8;
    b.min_distance = 2e-4;
    b.t_frame = 0.25;
    b.time_step = 0.005;
    b.substeps = 2;
    b.retries = 1;
    b.status = ConvergenceStatus::Stopped;
    b.stop_reason = StopReason::MaxIterations;
    b.residual = 1e-4;
    accumulate_substep(frame, a, true);
    accumulate_substep(frame, b, false);
    EXPECT_EQ(frame.newton_iterations, 7);
    EXPECT_FALSE(frame.converged);
    EXPECT_EQ(frame.contacts, 2);
    EXPECT_EQ(frame.body_contacts, std::vector<int>({1, 1}));
    EXPECT_EQ(frame.candidates, 10);
    EXPECT_EQ(frame.min_distance, 2e-4);
    EXPECT_EQ(frame.t_frame, 0.75);
    EXPECT_EQ(frame.status, ConvergenceStatus::Stopped);
    EXPECT_EQ(frame.stop_reason, StopReason::MaxIterations);
    EXPECT_EQ(frame.residual, 1e-3);
    EXPECT_EQ(frame.substeps, 3);
    EXPECT_EQ(frame.retries, 1);
    EXPECT_EQ(frame.time_step, 0.005);
}

/// Writes a valid two-body output directory by hand, then lets the test garble one part.
struct HandMadeOutput {
    ScratchDir dir;
    explicit HandMadeOutput(const std::string& name) : dir(name) {
        TwoBoxes s;
        OutputWriter w(dir.str(), false);
        w.write_header(s.scene, s.bodies);
    }
    void frames(const std::string& text) { test::write_file(dir.file("frames.jsonl"), text); }
    std::string read_error() {
        return error_of([&] { OutputReader(dir.str()).read_all_frames(); });
    }
};

const char* kRow = "[0,0,0,1,0,0,0,1,0,0,0,1]";

std::string frame_line(int k, const std::string& q0 = kRow, const std::string& q1 = kRow) {
    return R"({"frame":)" + std::to_string(k) + R"(,"time":0.5,"q":[)" + q0 + "," + q1 +
           R"(],"stats":{"newton_iterations":1,"min_distance":null}})" + "\n";
}

TEST(OutputReader, ReadsHandWrittenFrames) {
    HandMadeOutput out("io_hand");
    out.frames(frame_line(0) + frame_line(1) + "\n");
    auto frames = OutputReader(out.dir.str()).read_all_frames();
    ASSERT_EQ(frames.size(), 2u);
    EXPECT_EQ(frames[1].frame, 1);
    EXPECT_EQ(frames[1].stats.newton_iterations, 1);
    EXPECT_TRUE(std::isinf(frames[1].stats.min_distance));
}

TEST(OutputReader, GarbledFramesNameFileAndLine) {
    HandMadeOutput out("io_garbled");
    const std::string file = out.dir.file("frames.jsonl");
    out.frames(frame_line(0) + R"({"frame":1,"time":0.5,"q":[[0,0)" + "\n" + frame_line(2));
    EXPECT_TRUE(contains(out.read_error(), file + ": line 2: invalid JSON"));
    // The same torn line at the end, without its newline, is what a killed run leaves: skipped.
    out.frames(frame_line(0) + R"({"frame":1,"time":0.5,"q":[[0,0)");
    {
        FrameStream stream = OutputReader(out.dir.str()).frames();
        FrameRecord r;
        int n = 0;
        while (stream.next(r)) ++n;
        EXPECT_EQ(n, 1);
        EXPECT_TRUE(stream.partial_tail());
    }
    out.frames(frame_line(0) + frame_line(1, "[0,0,0,1,0,0,0,1,0,0,0]"));
    EXPECT_TRUE(contains(out.read_error(), file + ": line 2: q[0]: expected 12 numbers, got 11"));
    out.frames(R"({"frame":0,"time":0,"q":[)" + std::string(kRow) + R"(],"stats":{}})" + "\n");
    EXPECT_TRUE(
        contains(out.read_error(), file + ": line 1: q: expected 2 rows (one per body), got 1"));
    out.frames(frame_line(0, "[0,0,NaN,1,0,0,0,1,0,0,0,1]"));
    EXPECT_TRUE(contains(out.read_error(), file + ": line 1: invalid JSON"));
    out.frames(frame_line(0, "[0,0,null,1,0,0,0,1,0,0,0,1]"));
    EXPECT_TRUE(
        contains(out.read_error(), file + ": line 1: q[0][2]: expected a number, got null"));
    out.frames(frame_line(0, "[0,0,1e999,1,0,0,0,1,0,0,0,1]"));
    EXPECT_TRUE(contains(out.read_error(), file + ": line 1: invalid JSON"));
    out.frames(frame_line(0) + frame_line(0));
    EXPECT_TRUE(contains(out.read_error(), file + ": line 2: frame: frame numbers must increase"));
    out.frames(R"({"frame":0,"time":0,"q":[]})" + std::string("\n"));
    EXPECT_TRUE(contains(out.read_error(), file + ": line 1: q: expected 2 rows"));
    out.frames(R"({"frame":0,"q":[],"stats":{}})" + std::string("\n"));
    EXPECT_TRUE(contains(out.read_error(), file + ": line 1: time: missing required key"));
    out.frames("[1, 2]\n");
    EXPECT_TRUE(contains(out.read_error(), file + ": line 1: expected an object"));
    out.frames(frame_line(0) + R"({"frame":1,"time":0.5,"q":[)" + kRow + "," + kRow +
               R"(],"stats":{"contacts":-1}})" + "\n");
    EXPECT_TRUE(contains(out.read_error(), file + ": line 2: stats.contacts: expected an integer"));
    out.frames(R"({"frame":0,"time":0,"q":[)" + std::string(kRow) + "," + kRow +
               R"(],"stats":{"status":"fine"}})" + "\n");
    EXPECT_TRUE(
        contains(out.read_error(),
                 file + ": line 1: stats.status: expected one of converged, stopped, diverged"));
}

TEST(OutputReader, MissingOrBadHeaderFiles) {
    {
        ScratchDir dir("io_missing");
        EXPECT_TRUE(contains(error_of([&] { OutputReader r(dir.file("nope")); }),
                             "not an output directory"));
        EXPECT_TRUE(contains(error_of([&] { OutputReader r(dir.str()); }),
                             "bodies.json: cannot read file"));
    }
    HandMadeOutput out("io_badheader");
    std::filesystem::remove(out.dir.file("meshes/right.obj"));
    EXPECT_TRUE(contains(error_of([&] { OutputReader r(out.dir.str()); }),
                         "bodies.json: [1].mesh: mesh file not found"));
    test::write_file(out.dir.file("bodies.json"),
                     R"([{"name": "left", "mesh": "../../etc/passwd", "motion": "dynamic"}])");
    EXPECT_TRUE(contains(error_of([&] { OutputReader r(out.dir.str()); }),
                         "bodies.json: [0].mesh: expected a path inside the output directory"));
    test::write_file(out.dir.file("bodies.json"),
                     R"([{"name": "left", "mesh": "meshes/left.obj", "motion": "floating"}])");
    EXPECT_TRUE(contains(error_of([&] { OutputReader r(out.dir.str()); }),
                         "bodies.json: [0].motion: expected"));
    test::write_file(out.dir.file("bodies.json"),
                     R"([{"name": "left", "mesh": "meshes/left.obj", "motion": "dynamic"}])");
    test::write_file(out.dir.file("scene.json"), R"({"planes": [{"normal": [0, 0, 0]}]})");
    EXPECT_TRUE(contains(error_of([&] { OutputReader r(out.dir.str()); }),
                         "scene.json: planes[0].normal: expected a non-zero vector"));
}

}  // namespace
}  // namespace concord
