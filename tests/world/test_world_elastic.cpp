// Reduced elastic bodies in the world: scene keys, free fall, momentum, contact (audited), and
// the output directory's modes.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>

#include <filesystem>

#include "concord/collision/audit/intersection_audit.hpp"
#include "concord/io/output_audit.hpp"
#include "concord/io/output_reader.hpp"
#include "concord/io/output_writer.hpp"
#include "concord/math/error.hpp"
#include "concord/scene/scene_json.hpp"
#include "concord/scene/scene_parser.hpp"
#include "concord/world/world.hpp"

using namespace concord;
using nlohmann::json;

namespace {

// A 1 m x 0.1 m x 0.1 m beam along x (10 kg), deformed by the first `modes` cantilever
// bending modes in y of a matching beam basis clamped at its x = -0.5 end.
json beam_scene(int modes, double youngs_modulus = 1e6) {
    return json::parse(R"({
      "time_step": 0.01, "frames": 10, "gravity": [0, 0, 0],
      "modal_bases": {
        "rod": { "type": "beam", "length": 1.0, "width": 0.1, "height": 0.1,
                 "youngs_modulus": 1e6, "density": 1000, "bending_y_modes": 2 }
      },
      "bodies": [
        { "name": "beam", "shape": { "box": { "size": [1, 0.1, 0.1], "divisions": [10, 1, 1] } },
          "material": { "density": 1000, "youngs_modulus": 1e6 },
          "elastic": { "basis": "rod", "origin": [-0.5, 0, 0] } }
      ]
    })")
        .patch(json::parse(R"([{"op": "replace", "path": "/modal_bases/rod/bending_y_modes", "value": )" +
                           std::to_string(modes) + "}, " +
                           R"({"op": "replace", "path": "/modal_bases/rod/youngs_modulus", "value": )" +
                           json(youngs_modulus).dump() + "}]"));
}

SceneSpec parse(const json& j) { return parse_scene(j, "test.json", ""); }

std::string scratch_dir(const std::string& name) {
    auto dir = std::filesystem::temp_directory_path() /
               ("concord_elastic_" + name + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    return dir.string();
}

}  // namespace

TEST(WorldElastic, SceneKeysAreCheckedWithTheirPaths) {
    json j = beam_scene(2);
    j["bodies"][0]["elastic"]["basis"] = "nope";
    try {
        parse(j);
        FAIL() << "accepted an unknown basis";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("bodies[0].elastic.basis"), std::string::npos) << e.what();
    }
    j = beam_scene(2);
    j["bodies"][0]["elastic"]["initial"] = {0.1};
    EXPECT_THROW(parse(j), InputError);  // 2 modes, 1 value
    j = beam_scene(2);
    j["modal_bases"]["rod"]["bending_y_modes"] = 0;
    EXPECT_THROW(parse(j), InputError);  // a basis without modes
    j = beam_scene(2);
    j["modal_bases"]["rod"]["youngs_modulus"] = -1;
    try {
        parse(j);
        FAIL() << "accepted a negative modulus";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("modal_bases.rod.youngs_modulus"), std::string::npos)
            << e.what();
    }
    j = beam_scene(2);
    j["bodies"][0]["motion"] = "static";
    EXPECT_THROW(parse(j), InputError);  // elastic bodies are dynamic
    // The basis's mass must match the body's: a 2 m basis on a 1 m box is refused.
    j = beam_scene(2);
    j["modal_bases"]["rod"]["length"] = 2.0;
    EXPECT_THROW(World w(parse(j)), InputError);
}

TEST(WorldElastic, ResolvedSceneRoundTrips) {
    json j = beam_scene(2);
    j["bodies"][0]["elastic"]["initial"] = {0.01, 0.0};
    const SceneSpec s = parse(j);
    ASSERT_TRUE(s.bodies[0].elastic);
    EXPECT_EQ(s.modal_bases.size(), 1u);
    EXPECT_EQ(s.modal_bases[0].num_modes, 2);
    const SceneSpec again = parse_scene(scene_to_json(s), "test.json", "");
    EXPECT_EQ(again.bodies[0].elastic, s.bodies[0].elastic);
    EXPECT_EQ(again.modal_bases[0].definition, s.modal_bases[0].definition);
}

TEST(WorldElastic, FreeFallDoesNotDeform) {
    // Gravity accelerates every point alike: the exact step keeps eta = 0 and the frame falls
    // as discrete implicit Euler, y_{n+1} = 2 y_n - y_{n-1} - h^2 g.
    json j = beam_scene(2);
    j["gravity"] = {0, -9.81, 0};
    j["solver"] = {{"convergence_mode", "step_norm"}, {"tolerance", 1e-10}};
    World w(parse(j));
    const double h = 0.01;
    double y_prev = 0.0, y = 0.0;
    for (int n = 0; n < 20; ++n) {
        w.step();
        const double y_next = 2 * y - y_prev - h * h * 9.81;
        y_prev = y;
        y = y_next;
        EXPECT_LT(w.modal_coordinates(0).cwiseAbs().maxCoeff(), 1e-10);
        EXPECT_NEAR(w.q(0)[1], y, 1e-9);
    }
}

TEST(WorldElastic, ReleasedBendConservesLinearMomentum) {
    // No force acts: the bent beam vibrates and its frame moves to keep the centre of mass
    // still. The implicit-Euler prediction of every point conserves linear momentum exactly, so
    // the centre of mass stays put (to rounding and the solver tolerance).
    json j = beam_scene(2);
    j["bodies"][0]["elastic"]["initial"] = {0.02, -0.005};
    j["solver"] = {{"convergence_mode", "step_norm"}, {"tolerance", 1e-8}};
    World w(parse(j));
    // Centre of mass from the reduced coordinates: c = (M_z z)_p / m.
    const AffineBody& body = w.body(0);
    const MatX& Mz = body.modal->reduced_mass;
    auto com = [&] {
        const VecX z = reduced_coordinates(w.q(0), w.modal_coordinates(0));
        return Vec3((Mz.topRows(3) * z) / Mz(0, 0));
    };
    const Vec3 c0 = com();
    double max_eta = 0.0, min_eta = 0.0;
    for (int n = 0; n < 60; ++n) {
        w.step();
        EXPECT_LT((com() - c0).norm(), 1e-7) << "step " << n;
        max_eta = std::max(max_eta, w.modal_coordinates(0)[0]);
        min_eta = std::min(min_eta, w.modal_coordinates(0)[0]);
    }
    EXPECT_LT(min_eta, 0.0);  // it did vibrate through the straight shape
    EXPECT_GT(max_eta, 0.0);
}

TEST(WorldElastic, FallingBeamOnGroundStaysAboveIt) {
    // In both contact models (the augmented Lagrangian linearises the gaps through the modes too).
    for (const char* model : {"barrier", "augmented_lagrangian"}) {
        SCOPED_TRACE(model);
        // A bent elastic beam falls onto the ground plane; contact pushes on its modes. No vertex
        // ever goes below the plane, and the output directory audits clean with the modes.
        json j = beam_scene(2, 2e5);
        j["contact"]["model"] = model;
        j["gravity"] = {0, -9.81, 0};
        j["frames"] = 25;
        j["planes"] = {{{"point", {0, -0.3, 0}}, {"normal", {0, 1, 0}}}};
        j["bodies"][0]["elastic"]["initial"] = {0.03, 0.0};
        j["bodies"][0]["velocity"] = {0, -1.0, 0};
        const SceneSpec s = parse(j);
        World w(s);
        const std::string dir = scratch_dir("ground");
        OutputWriter out(dir, true);
        out.write_header(s, w);
        out.write_frame(0, w.time(), w, nullptr);
        double lowest = 1e9;
        bool deformed_by_contact = false;
        for (int f = 1; f <= 25; ++f) {
            w.step();
            out.write_frame(f, w.time(), w, &w.last_stats());
            const Vertices x = w.world_vertices(0);
            lowest = std::min(lowest, x.col(1).minCoeff());
            ASSERT_GT(x.col(1).minCoeff(), -0.3) << "frame " << f;
            if (w.last_stats().contacts > 0) deformed_by_contact = true;
        }
        EXPECT_TRUE(deformed_by_contact);
        EXPECT_LT(lowest, -0.3 + 2e-3);  // it reached the ground (within a few dhat)
        const OutputReader reader(dir);
        EXPECT_EQ(reader.bodies()[0].dofs, 14);
        const MatX phi = reader.load_modes(0);
        EXPECT_EQ(phi.cols(), 2);
        const auto frames = reader.read_all_frames();
        ASSERT_EQ(frames.size(), 26u);
        // The reader places the mesh exactly as the world does.
        const Vertices x_read = row_world_vertices(reader.load_mesh(0), phi, frames.back().q[0]);
        EXPECT_LT((x_read - w.world_vertices(0)).cwiseAbs().maxCoeff(), 1e-12);
        const OutputAuditSummary audit = audit_output(reader, {});
        EXPECT_EQ(audit.frames, 26);
        EXPECT_EQ(audit.frames_with_intersections, 0);
        std::filesystem::remove_all(dir);
    }
}

TEST(WorldElastic, TwoElasticBeamsPressedTogetherNeverIntersect) {
    for (const char* model : {"barrier", "augmented_lagrangian"}) {
        SCOPED_TRACE(model);
        // Elastic-elastic contact: two crossed beams driven into each other; every frame is
        // audited exactly.
        json j = beam_scene(2, 2e5);
        j["contact"]["model"] = model;
        j["frames"] = 30;
        json upper = j["bodies"][0];
        upper["name"] = "upper";
        upper["position"] = {0, 0.102, 0};
        upper["rotation"] = {{"axis", {0, 1, 0}}, {"angle_deg", 90}};
        upper["velocity"] = {0, -0.8, 0};
        j["bodies"][0]["velocity"] = {0, 0.8, 0};
        j["bodies"].push_back(upper);
        const SceneSpec s = parse(j);
        World w(s);
        const std::string dir = scratch_dir("pair");
        OutputWriter out(dir, true);
        out.write_header(s, w);
        out.write_frame(0, w.time(), w, nullptr);
        int contact_frames = 0;
        double max_eta = 0.0;
        for (int f = 1; f <= 30; ++f) {
            w.step();
            out.write_frame(f, w.time(), w, &w.last_stats());
            if (w.last_stats().contacts > 0) ++contact_frames;
            max_eta = std::max(max_eta, w.modal_coordinates(0).cwiseAbs().maxCoeff());
        }
        EXPECT_GT(contact_frames, 3);
        EXPECT_GT(max_eta, 1e-4);  // the contact bent them
        const OutputAuditSummary audit = audit_output(OutputReader(dir), {});
        EXPECT_EQ(audit.frames_with_intersections, 0);
        std::filesystem::remove_all(dir);
    }
}

TEST(WorldElastic, CaptureRestoreKeepsModalCoordinates) {
    json j = beam_scene(2);
    j["bodies"][0]["elastic"]["initial"] = {0.02, 0.0};
    World w(parse(j));
    for (int n = 0; n < 3; ++n) w.step();
    const WorldState s = w.capture_state();
    EXPECT_EQ(s.q.size(), 14);
    EXPECT_EQ(s.num_bodies, 1);  // 12 affine numbers, then the 2 modal coordinates
    const std::string file = scratch_dir("state") + ".bin";
    w.save_state(file);
    w.step();
    const VecX after = w.state_vector();
    World w2(parse(j));
    const WorldState loaded = load_world_state(file);
    EXPECT_EQ(loaded.num_bodies, 1);
    w2.restore_state(loaded);
    w2.step();
    EXPECT_EQ(w2.state_vector(), after);

    // A state whose layout names another body count is refused even when its size fits.
    WorldState wrong = s;
    wrong.num_bodies = 0;
    EXPECT_THROW(w2.restore_state(wrong), InputError);

    // A version-2 file (coordinates only, before the body count was stored) still loads, with
    // the body count unknown.
    {
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        auto put = [&](const auto& v) { out.write(reinterpret_cast<const char*>(&v), sizeof v); };
        out.write("CNCRDSTA", 8);
        put(std::uint32_t{2});
        put(std::uint32_t{0x01020304});
        put(std::uint64_t{14});
        put(s.time);
        put(std::int64_t{s.steps});
        put(s.barrier_stiffness);
        put(std::int32_t{s.time_step_level});
        put(std::int32_t{s.level_successes});
        out.write(reinterpret_cast<const char*>(s.q.data()), 14 * sizeof(double));
        out.write(reinterpret_cast<const char*>(s.q_dot.data()), 14 * sizeof(double));
    }
    const WorldState old = load_world_state(file);
    EXPECT_EQ(old.num_bodies, -1);
    EXPECT_TRUE(old.bitwise_equal(s));
    std::filesystem::remove(file);
}
