// StepStats::body_contacts (frames.jsonl stats.body_contacts): per body, the active contact
// pairs it takes part in at the end of the step.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "concord/world/body_contact_count.hpp"
#include "concord/world/contact_report.hpp"
#include "concord/world/world.hpp"
#include "world_test_util.hpp"

using namespace concord;
using concord::test::box_body;

namespace {

/// The counts of docs/cli.md built from the independent contact report of the world's current
/// state: each distinct body of a pair counts once, a plane is not a body.
std::vector<int> counts_from_report(const World& w) {
    std::vector<int> n(static_cast<std::size_t>(w.num_bodies()), 0);
    for (const ContactInfo& c : report_contacts(w).contacts) {
        ++n[static_cast<std::size_t>(c.body_a)];
        if (c.kind != ContactKind::PointPlane && c.body_b != c.body_a)
            ++n[static_cast<std::size_t>(c.body_b)];
    }
    return n;
}

int two_body_pairs(const World& w) {
    int n = 0;
    for (const ContactInfo& c : report_contacts(w).contacts)
        n += c.kind != ContactKind::PointPlane && c.body_b != c.body_a;
    return n;
}

}  // namespace

// A 1 m cube released 0.5 mm above the ground (dhat 1 mm) rests on its four bottom corners:
// four point-plane pairs, all counted for the cube and none for the plane, which is no body. A
// static cube far away touches nothing and counts 0.
TEST(BodyContacts, BoxOnGroundCountsItsFourCorners) {
    SceneSpec s;
    s.time_step = 0.01;
    s.contact.dhat = 1e-3;
    s.planes.push_back({Vec3::Zero(), Vec3::UnitY(), std::nullopt});
    s.bodies.push_back(box_body("box", Vec3(0, 0.5 + 5e-4, 0)));
    BodySpec far = box_body("far", Vec3(10, 3, 0));
    far.motion = MotionType::Static;
    s.bodies.push_back(far);
    World w(s);
    for (int i = 0; i < 20; ++i) {
        const StepStats& st = w.step();
        ASSERT_EQ(st.contacts, 4) << "step " << i;
        EXPECT_EQ(st.body_contacts, std::vector<int>({4, 0})) << "step " << i;
    }
}

// Two piles that are separate islands: a cube resting on a static base (point-triangle and
// edge-edge pairs between two bodies) and a cube on the ground. The counts equal those of the
// independent contact report, with islands and without, and they add up to the contact count
// plus the number of pairs between two bodies (each of those counts twice).
TEST(BodyContacts, MatchTheContactReportWithAndWithoutIslands) {
    for (const bool islands : {true, false}) {
        SceneSpec s;
        s.time_step = 0.01;
        s.contact.dhat = 1e-3;
        s.planes.push_back({Vec3::Zero(), Vec3::UnitY(), std::nullopt});
        // The base floats 0.1 m above the ground (static bodies have no plane pairs anyway).
        BodySpec base = box_body("base", Vec3(0, 0.6, 0), Vec3(2, 1, 2));
        base.motion = MotionType::Static;
        s.bodies.push_back(base);
        s.bodies.push_back(box_body("top", Vec3(0, 1.6 + 5e-4, 0)));
        s.bodies.push_back(box_body("lone", Vec3(5, 0.5 + 5e-4, 0)));
        s.solver.islands = islands;
        World w(s);
        for (int i = 0; i < 5; ++i) {
            const StepStats& st = w.step();
            const std::vector<int> expected = counts_from_report(w);
            EXPECT_EQ(st.body_contacts, expected) << "islands " << islands << " step " << i;
            EXPECT_GT(st.body_contacts[0], 0) << "the static base has pairs";
            EXPECT_EQ(st.body_contacts[0], st.body_contacts[1])
                << "every pair of the base is one with the top";
            EXPECT_EQ(st.body_contacts[2], 4) << "four corners on the ground";
            EXPECT_EQ(std::accumulate(st.body_contacts.begin(), st.body_contacts.end(), 0),
                      st.contacts + two_body_pairs(w));
        }
    }
}

// count_body_contacts on a hand-made set: the rules per pair kind, the `keep` filter, the
// mapping to world indices, sorted output, and the work array left zeroed for the next call.
TEST(BodyContacts, CountRulesPerPairKind) {
    ContactSurface surface;
    // Three bodies (system indices 0, 1, 2) of one triangle each: vertices 0-2, 3-5, 6-8.
    for (int b = 0; b < 3; ++b) {
        Faces f(1, 3);
        f << 0, 1, 2;
        append_body(surface.mesh, b, 3, f);
    }
    ContactSet set;
    set.point_triangle.push_back({0, 1, PointTriangleDistanceType::P_T});  // 0 - 1
    set.point_triangle.push_back({8, 0, PointTriangleDistanceType::P_T});  // 2 - 0
    set.edge_edge.push_back({0, 3, EdgeEdgeDistanceType::EA_EB, 0.0});     // 0 - 1
    set.edge_edge.push_back({4, 5, EdgeEdgeDistanceType::EA_EB, 0.0});     // 1 - 1
    set.point_plane.push_back({7, 0});                                     // 2
    const std::vector<int> world_index{7, 3, 5};
    std::vector<int> scratch;
    auto all = count_body_contacts(
        set, surface, world_index, [](int, int) { return true; }, scratch);
    // body 0 (world 7): pt, pt, ee = 3; body 1 (world 3): pt, ee, same-body ee = 3;
    // body 2 (world 5): pt, plane = 2.
    EXPECT_EQ(all, (std::vector<BodyContactCount>{{3, 3}, {5, 2}, {7, 3}}));
    EXPECT_EQ(std::accumulate(scratch.begin(), scratch.end(), 0), 0);
    // Only pairs that involve system body 2.
    auto some = count_body_contacts(
        set, surface, world_index, [](int a, int b) { return a == 2 || b == 2; }, scratch);
    EXPECT_EQ(some, (std::vector<BodyContactCount>{{5, 2}, {7, 1}}));
    std::vector<int> dense(8, 0);
    add_body_contacts(all, dense);
    add_body_contacts(some, dense);
    EXPECT_EQ(dense, std::vector<int>({0, 0, 0, 3, 0, 4, 0, 4}));
}
