// The partition model: cells, holders of a box (internal, shared, grid corners), neighbours.
#include <gtest/gtest.h>

#include <bit>
#include <utility>
#include <vector>

#include "concord/distributed/partition.hpp"

using namespace concord;

TEST(Partition, SlabsAlongAnAxisSplitTheBoxEvenly) {
    DistributedSpec d;
    d.workers = 4;
    d.axis = 2;
    const Partition p = initial_partition(d, Vec3(0, 0, -2), Vec3(1, 1, 2));
    EXPECT_EQ(p.num_workers(), 4);
    ASSERT_EQ(p.planes[2].size(), 3u);
    EXPECT_DOUBLE_EQ(p.planes[2][0], -1.0);
    EXPECT_DOUBLE_EQ(p.planes[2][1], 0.0);
    EXPECT_DOUBLE_EQ(p.planes[2][2], 1.0);
    EXPECT_TRUE(p.planes[0].empty());
    EXPECT_EQ(p.worker_of_point(Vec3(0, 0, -1.5)), 0);
    EXPECT_EQ(p.worker_of_point(Vec3(0, 0, -1.0)), 0);  // on a plane: the lower cell
    EXPECT_EQ(p.worker_of_point(Vec3(0, 0, 0.5)), 2);
    EXPECT_EQ(p.worker_of_point(Vec3(0, 0, 7)), 3);
}

TEST(Partition, ABoxIsHeldByEveryCellWhoseGrownRegionItMeets) {
    DistributedSpec d;
    d.workers = 3;
    const Partition p = initial_partition(d, Vec3(0, 0, 0), Vec3(3, 1, 1));  // planes x = 1, 2
    const double w_half = 0.1;
    // Internal: well inside cell 1.
    EXPECT_EQ(p.holders(Vec3(1.2, 0, 0), Vec3(1.8, 1, 1), w_half), 0b010u);
    // Inside cell 0 but within w/2 of the plane x = 1: shared with cell 1.
    EXPECT_EQ(p.holders(Vec3(0.5, 0, 0), Vec3(0.95, 1, 1), w_half), 0b011u);
    // Just outside the overlap region: internal.
    EXPECT_EQ(p.holders(Vec3(0.5, 0, 0), Vec3(0.89, 1, 1), w_half), 0b001u);
    // Spanning all three cells.
    EXPECT_EQ(p.holders(Vec3(0.5, 0, 0), Vec3(2.5, 1, 1), w_half), 0b111u);
}

TEST(Partition, AGridCornerBodyIsSharedByFourWorkers) {
    DistributedSpec d;
    d.workers = 4;
    d.grid = {2, 2, 1};
    const Partition p = initial_partition(d, Vec3(-1, -1, 0), Vec3(1, 1, 1));  // planes x=0, y=0
    const std::uint64_t h = p.holders(Vec3(-0.05, -0.05, 0.2), Vec3(0.05, 0.05, 0.4), 0.01);
    EXPECT_EQ(std::popcount(h), 4);
    // An edge body: two workers.
    EXPECT_EQ(std::popcount(p.holders(Vec3(-0.05, 0.5, 0.2), Vec3(0.05, 0.6, 0.4), 0.01)), 2);
    EXPECT_EQ(p.worker_of_point(Vec3(0.5, 0.5, 0)), 3);
    EXPECT_EQ(p.worker_of_point(Vec3(0.5, -0.5, 0)), 1);
    EXPECT_EQ(p.neighbours(0), (std::vector<int>{1, 2, 3}));
}

TEST(Partition, OverlapWidthFollowsThePaper) {
    EXPECT_DOUBLE_EQ(overlap_width(2.0, 10.0, 0.01, 0.05), 0.2);  // alpha v h
    EXPECT_DOUBLE_EQ(overlap_width(2.0, 1.0, 0.01, 0.05), 0.05);  // w_min
}

TEST(Partition, ContactOverlapWidthIsTheContactRangePlusTheSweptMotion) {
    // 2 (dhat + alpha v h): no body-size floor.
    EXPECT_DOUBLE_EQ(contact_overlap_width(2.0, 10.0, 0.01, 1e-3), 2.0 * (1e-3 + 0.2));
    EXPECT_DOUBLE_EQ(contact_overlap_width(2.0, 0.0, 0.01, 1e-3), 2e-3);
}

TEST(Partition, QuantilePlanesSplitTheBodiesEvenlyBetweenColumns) {
    // Columns of centres at x = 0, 1, ... 5 with 1, 1, 1, 1, 4, 4 bodies (12): an evenly spaced
    // plane (box [0, 5], 2 slabs) sits at x = 2.5 with 3 bodies on one side and 9 on the other.
    // The quantile rule looks for 6 below: the gaps 3|4 (4 below) and 4|5 (8 below) are equally
    // close, and the first is taken.
    std::vector<Vec3> centres;
    const int counts[] = {1, 1, 1, 1, 4, 4};
    for (int c = 0; c < 6; ++c)
        for (int k = 0; k < counts[c]; ++k) centres.emplace_back(c, k, 0);
    DistributedSpec d;
    d.workers = 2;
    Partition p = initial_partition(d, Vec3(0, 0, 0), Vec3(5, 3, 0), centres);
    ASSERT_EQ(p.planes[0].size(), 1u);
    EXPECT_DOUBLE_EQ(p.planes[0][0], 3.5);
    // Three slabs: quantiles 4 and 8 -> between columns 3|4 and 4|5, never on a column.
    d.workers = 3;
    p = initial_partition(d, Vec3(0, 0, 0), Vec3(5, 3, 0), centres);
    ASSERT_EQ(p.planes[0].size(), 2u);
    EXPECT_DOUBLE_EQ(p.planes[0][0], 3.5);
    EXPECT_DOUBLE_EQ(p.planes[0][1], 4.5);
    // A grid: each axis on its own; y has columns 0..3 with 6, 2, 2, 2 bodies.
    d.workers = 4;
    d.grid = {2, 2, 1};
    p = initial_partition(d, Vec3(0, 0, 0), Vec3(5, 3, 0), centres);
    EXPECT_DOUBLE_EQ(p.planes[0][0], 3.5);
    EXPECT_DOUBLE_EQ(p.planes[1][0], 0.5);  // 6 of 12 at y = 0
    // Even planes when asked, or when the centres do not spread along the axis.
    d.initial_planes = InitialPlanes::Even;
    p = initial_partition(d, Vec3(0, 0, 0), Vec3(5, 3, 0), centres);
    EXPECT_DOUBLE_EQ(p.planes[0][0], 2.5);
    d.initial_planes = InitialPlanes::Quantile;
    d.grid = {1, 1, 1};
    d.workers = 2;
    d.axis = 2;  // every centre at z = 0
    p = initial_partition(d, Vec3(0, 0, -1), Vec3(5, 3, 1), centres);
    EXPECT_DOUBLE_EQ(p.planes[2][0], 0.0);
}

// Columns of bodies 0.2 wide, 0.22 apart (x = 0.22 i, i = 0..9): the gaps are 0.02 wide.
TEST(Partition, AQuietPositionIsInTheNearestGap) {
    std::vector<std::pair<double, double>> columns;
    for (int i = 0; i < 10; ++i) columns.emplace_back(0.22 * i - 0.1, 0.22 * i + 0.1);
    // A target inside a column (centre 0.88) goes into the nearer gap (0.98, 1.00), a quarter
    // of the gap from its end.
    EXPECT_NEAR(quietest_position(columns, 0.89, 0.7, 1.06), 0.985, 1e-12);
    EXPECT_NEAR(quietest_position(columns, 0.85, 0.7, 1.0), 0.775, 1e-12);
    // A target well inside a gap stays where it is; one near its end moves in a little.
    EXPECT_NEAR(quietest_position(columns, 0.9875, 0.8, 1.2), 0.9875, 1e-12);
    EXPECT_NEAR(quietest_position(columns, 0.981, 0.8, 1.2), 0.985, 1e-12);
    // A window holding no gap: the stretch crossed by the fewest (one column: the target).
    EXPECT_NEAR(quietest_position(columns, 0.9, 0.82, 0.96), 0.9, 1e-12);
    // Overlapping extents: the stretch crossed by the fewest, nearest the target.
    const std::vector<std::pair<double, double>> pile{{0, 2}, {1, 3}, {1.5, 4}, {3.5, 5}};
    // counts: (0,1) 1, (1,1.5) 2, (1.5,2) 3, (2,3) 2, (3,3.5) 1, (3.5,4) 2, (4,5) 1
    EXPECT_NEAR(quietest_position(pile, 1.8, 0.0, 5.0), 0.75, 1e-12);
    EXPECT_NEAR(quietest_position(pile, 2.9, 0.0, 5.0), 3.125, 1e-12);
    EXPECT_NEAR(quietest_position(pile, 4.6, 0.0, 5.0), 4.6, 1e-12);
    // Nothing in the window: the target; an empty window: the target.
    EXPECT_NEAR(quietest_position(pile, 5.5, 5.0, 7.0), 5.5, 1e-12);
    EXPECT_EQ(quietest_position(pile, 2.0, 3.0, 3.0), 2.0);
}

TEST(Partition, JointGroupsJoinMovableBodiesThroughJointsOnly) {
    // Bodies 0..6; 3 is static. Chains 5-1-4 and 2-6 (given in any order), 0 jointed to the
    // world, 3 (static) jointed to both 0 and 2: a static body joins nothing.
    const auto joints = [](std::vector<std::pair<int, int>> pairs) {
        std::vector<JointSpec> out;
        for (const auto& [parent, child] : pairs) {
            JointSpec j;
            j.parent = parent;
            j.child = child;
            out.push_back(j);
        }
        return out;
    };
    const std::vector<bool> movable{true, true, true, false, true, true, true};
    EXPECT_EQ(joint_groups(joints({{5, 1}, {-1, 0}, {1, 4}, {3, 0}, {6, 2}, {2, 3}}), movable),
              (std::vector<int>{0, 1, 2, 3, 1, 1, 2}));
    EXPECT_EQ(joint_groups({}, movable), (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
    // A longer chain given back to front still ends at its lowest body.
    EXPECT_EQ(joint_groups(joints({{3, 2}, {2, 1}, {1, 0}}), {true, true, true, true}),
              (std::vector<int>{0, 0, 0, 0}));
}
