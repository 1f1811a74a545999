// Body arrays: grid layout, naming, kinematic data moving with the copies, and jitter that is
// deterministic (the same numbers from the same seed, on every platform).
#include <gtest/gtest.h>

#include <cstdio>

#include "concord/scene/body_array.hpp"
#include "concord/scene/splitmix64.hpp"
#include "scene_test_util.hpp"

namespace concord {
namespace {

using test::contains;
using test::parse_error;
using test::parse_text;

TEST(SplitMix64, MatchesTheReferenceSequence) {
    // Outputs of the reference implementation (Vigna, splitmix64.c) for seeds 0 and 1234567.
    SplitMix64 zero(0);
    EXPECT_EQ(zero.next(), 0xE220A8397B1DCDAFull);
    EXPECT_EQ(zero.next(), 0x6E789E6AA1B965F4ull);
    EXPECT_EQ(zero.next(), 0x06C45D188009454Full);
    SplitMix64 other(1234567);
    EXPECT_EQ(other.next(), 6457827717110365317ull);
    EXPECT_EQ(other.next(), 3203168211198807973ull);
}

TEST(SplitMix64, UnitNumbersStayInRange) {
    SplitMix64 rng(42);
    double lo = 1, hi = -1;
    for (int i = 0; i < 10000; ++i) {
        double u = rng.next_unit();
        ASSERT_GE(u, 0.0);
        ASSERT_LT(u, 1.0);
        double s = rng.next_signed_unit();
        lo = std::min(lo, s);
        hi = std::max(hi, s);
    }
    EXPECT_LT(lo, -0.99);
    EXPECT_GT(hi, 0.99);
}

TEST(BodyArray, GridOrderNamesAndPositions) {
    SceneSpec s = parse_text(R"({"bodies": [
      {"name": "crate", "shape": {"box": {}}, "position": [1, 2, 3],
       "array": {"count": [2, 3, 2], "spacing": [1.5, 2, -3]}},
      {"name": "after", "shape": {"box": {}}, "position": [50, 0, 0]}]})");
    ASSERT_EQ(s.bodies.size(), 13u);
    // x varies fastest, then y, then z.
    for (int iz = 0, k = 0; iz < 2; ++iz) {
        for (int iy = 0; iy < 3; ++iy) {
            for (int ix = 0; ix < 2; ++ix, ++k) {
                const BodySpec& b = s.bodies[static_cast<std::size_t>(k)];
                EXPECT_EQ(b.name, "crate_" + std::to_string(k));
                EXPECT_EQ(b.position, Vec3(1 + 1.5 * ix, 2 + 2.0 * iy, 3 - 3.0 * iz));
                EXPECT_EQ(b.rotation, Mat3::Identity());
            }
        }
    }
    EXPECT_EQ(s.bodies[12].name, "after");
}

TEST(BodyArray, KinematicDataMovesWithEachCopy) {
    SceneSpec s = parse_text(R"({"bodies": [
      {"name": "k", "shape": {"box": {}}, "motion": "kinematic", "position": [0, 1, 0],
       "kinematic": {"keyframes": [{"time": 0}, {"time": 1, "position": [0, 5, 0]}]},
       "array": {"count": [3, 1, 1], "spacing": [2, 0, 0], "jitter": {"rotation_deg": 30, "seed": 9}}},
      {"name": "p", "shape": {"box": {}}, "motion": "kinematic", "position": [0, 0, 9],
       "kinematic": {"angular_velocity": [0, 1, 0], "pivot": [1, 0, 9]},
       "array": {"count": [1, 2, 1], "spacing": [0, 3, 0]}}]})");
    ASSERT_EQ(s.bodies.size(), 5u);
    for (int k = 0; k < 3; ++k) {
        const BodySpec& b = s.bodies[static_cast<std::size_t>(k)];
        ASSERT_EQ(b.kinematic.keyframes.size(), 2u);
        EXPECT_EQ(b.kinematic.keyframes[0].position, Vec3(2.0 * k, 1, 0));
        EXPECT_EQ(b.kinematic.keyframes[1].position, Vec3(2.0 * k, 5, 0));
        // The copy's random turn applies to its initial pose and every keyframe pose alike.
        EXPECT_EQ(b.kinematic.keyframes[0].rotation, b.rotation);
        EXPECT_EQ(b.kinematic.keyframes[1].rotation, b.rotation);
        EXPECT_EQ(b.kinematic.pivot, b.position);
    }
    EXPECT_NE(s.bodies[0].rotation, s.bodies[1].rotation);
    EXPECT_EQ(s.bodies[3].kinematic.pivot, Vec3(1, 0, 9));
    EXPECT_EQ(s.bodies[4].kinematic.pivot, Vec3(1, 3, 9));
}

TEST(BodyArray, JitterStaysWithinItsBounds) {
    BodySpec body;
    body.name = "b";
    body.position = Vec3(1, 2, 3);
    BodyArraySpec array;
    array.count = {10, 10, 10};
    array.spacing = Vec3(1, 1, 1);
    array.jitter_position = 0.25;
    array.jitter_rotation_deg = 20;
    array.seed = 5;
    std::vector<BodySpec> copies = expand_body_array(body, array);
    ASSERT_EQ(copies.size(), 1000u);
    double largest_offset = 0, largest_angle = 0;
    for (int k = 0; k < 1000; ++k) {
        const BodySpec& c = copies[static_cast<std::size_t>(k)];
        Vec3 grid = body.position + Vec3(k % 10, (k / 10) % 10, k / 100);
        double offset = (c.position - grid).norm();
        EXPECT_LE(offset, 0.25);
        largest_offset = std::max(largest_offset, offset);
        const Mat3& R = c.rotation;
        EXPECT_LT((R.transpose() * R - Mat3::Identity()).norm(), 1e-14);
        double angle = Eigen::AngleAxisd(R).angle() * 180.0 / 3.14159265358979323846;
        EXPECT_LE(angle, 20.0 + 1e-9);
        largest_angle = std::max(largest_angle, angle);
    }
    // The draws cover their ranges (not stuck near zero).
    EXPECT_GT(largest_offset, 0.2);
    EXPECT_GT(largest_angle, 18.0);
}

TEST(BodyArray, JitterIsDeterministicAndSeeded) {
    const char* text = R"({"bodies": [{"name": "b", "shape": {"box": {}}, "array": {
        "count": [4, 1, 1], "spacing": [2, 0, 0],
        "jitter": {"position": 0.1, "rotation_deg": 15, "seed": %d}}}]})";
    char a[512], b[512];
    std::snprintf(a, sizeof a, text, 7);
    std::snprintf(b, sizeof b, text, 8);
    SceneSpec first = parse_text(a), again = parse_text(a), other = parse_text(b);
    EXPECT_EQ(first, again);
    EXPECT_NE(first.bodies[0].position, other.bodies[0].position);
    EXPECT_NE(first.bodies[0].rotation, other.bodies[0].rotation);
}

TEST(BodyArray, JitterGoldenValues) {
    // Pins the exact jitter stream: a change here changes every jittered scene ever written.
    BodySpec body;
    body.name = "b";
    BodyArraySpec array;
    array.count = {3, 1, 1};
    array.spacing = Vec3(1, 0, 0);
    array.jitter_position = 0.5;
    array.jitter_rotation_deg = 45;
    array.seed = 2024;
    std::vector<BodySpec> copies = expand_body_array(body, array);
    const BodySpec& c = copies[2];
    EXPECT_EQ(c.position, Vec3(2.412612333148326, 0.24091907096077747, -0.058202174622495773));
    EXPECT_NEAR(c.rotation(0, 1), -0.18177939458722353, 1e-15);
    EXPECT_NEAR(c.rotation(2, 0), 0.060690423924937426, 1e-15);
}

TEST(BodyArray, PositionJitterDoesNotDependOnRotationJitter) {
    BodySpec body;
    body.name = "b";
    BodyArraySpec with, without;
    with.count = without.count = {5, 1, 1};
    with.spacing = without.spacing = Vec3(1, 0, 0);
    with.jitter_position = without.jitter_position = 0.3;
    with.jitter_rotation_deg = 10;
    auto a = expand_body_array(body, with);
    auto b = expand_body_array(body, without);
    EXPECT_EQ(a[0].position, b[0].position);
}

TEST(BodyArray, Errors) {
    EXPECT_TRUE(contains(
        parse_error(
            R"({"bodies": [{"shape": {"box": {}}, "array": {"count": [2, 0, 1], "spacing": [1, 1, 1]}}]})"),
        "a.json: bodies[0].array.count[1]: expected an integer in [1, "));
    EXPECT_TRUE(contains(
        parse_error(
            R"({"bodies": [{"shape": {"box": {}}, "array": {"count": [2, 1], "spacing": [1, 1, 1]}}]})"),
        "a.json: bodies[0].array.count: expected an array of 3 positive integers"));
    EXPECT_TRUE(contains(
        parse_error(
            R"({"bodies": [{"shape": {"box": {}}, "array": {"count": [1000, 1000, 1000], "spacing": [1, 1, 1]}}]})"),
        "a.json: bodies[0].array.count: at most 1000000 copies"));
    EXPECT_TRUE(contains(
        parse_error(
            R"({"bodies": [{"shape": {"box": {}}, "array": {"count": [1, 2, 1], "spacing": [1, 0, 1]}}]})"),
        "a.json: bodies[0].array.spacing: copies along y would coincide"));
    EXPECT_TRUE(
        contains(parse_error(R"({"bodies": [{"shape": {"box": {}}, "array": {"count": [2, 1, 1],
        "spacing": [1, 0, 0], "jitter": {"position": -1}}}]})"),
                 "a.json: bodies[0].array.jitter.position: expected a number >= 0"));
    EXPECT_TRUE(
        contains(parse_error(R"({"bodies": [{"shape": {"box": {}}, "array": {"count": [2, 1, 1],
        "spacing": [1, 0, 0], "jitter": {"seed": -3}}}]})"),
                 "a.json: bodies[0].array.jitter.seed: expected an integer >= 0"));
    EXPECT_TRUE(
        contains(parse_error(R"({"bodies": [{"shape": {"box": {}}, "array": {"count": [2, 1, 1],
        "spacing": [1, 0, 0], "jitter": {"angle": 3}}}]})"),
                 "a.json: bodies[0].array.jitter.angle: unknown key"));
    EXPECT_TRUE(contains(
        parse_error(R"({"bodies": [{"shape": {"box": {}}, "array": {"spacing": [1, 0, 0]}}]})"),
        "a.json: bodies[0].array.count: missing required key"));
}

TEST(BodyArray, SingleCopyIsStillNumbered) {
    SceneSpec s = parse_text(
        R"({"bodies": [{"name": "one", "shape": {"box": {}}, "array": {"count": [1, 1, 1]}}]})");
    ASSERT_EQ(s.bodies.size(), 1u);
    EXPECT_EQ(s.bodies[0].name, "one_0");
}

}  // namespace
}  // namespace concord
