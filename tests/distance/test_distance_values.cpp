// Exact values of the distance functions on configurations whose answer is known by hand.
#include <gtest/gtest.h>

#include "concord/collision/distance/edge_edge.hpp"
#include "concord/collision/distance/line_line.hpp"
#include "concord/collision/distance/point_edge.hpp"
#include "concord/collision/distance/point_line.hpp"
#include "concord/collision/distance/point_plane.hpp"
#include "concord/collision/distance/point_point.hpp"
#include "concord/collision/distance/point_triangle.hpp"

namespace concord {
namespace {

TEST(DistanceValues, PointPoint) {
    EXPECT_DOUBLE_EQ(point_point_distance_sq(Vec3(1, 2, 3), Vec3(4, 6, 3)), 25.0);
    EXPECT_DOUBLE_EQ(point_point_distance_sq(Vec3(1, 2, 3), Vec3(1, 2, 3)), 0.0);
}

TEST(DistanceValues, PointLineUsesTheInfiniteLine) {
    // The foot of the perpendicular, (0,0,0), lies outside the segment: the line still counts.
    EXPECT_DOUBLE_EQ(point_line_distance_sq(Vec3(0, 3, 4), Vec3(5, 0, 0), Vec3(7, 0, 0)), 25.0);
    // Orientation and edge length do not matter.
    EXPECT_DOUBLE_EQ(point_line_distance_sq(Vec3(0, 3, 4), Vec3(7, 0, 0), Vec3(-0.5, 0, 0)), 25.0);
    EXPECT_NEAR(point_line_distance_sq(Vec3(1, 1, 0), Vec3(0, 0, 0), Vec3(2, 2, 0)), 0.0, 1e-15);
}

TEST(DistanceValues, PointPlaneUsesTheInfinitePlane) {
    const Vec3 t0(0, 0, 0), t1(1, 0, 0), t2(0, 1, 0);
    EXPECT_DOUBLE_EQ(point_plane_distance_sq(Vec3(10, -3, 2), t0, t1, t2), 4.0);
    EXPECT_DOUBLE_EQ(point_plane_distance_sq(Vec3(10, -3, -2), t0, t2, t1), 4.0);
    // Tilted plane x + y + z = 1 and the origin: distance 1/√3.
    EXPECT_NEAR(point_plane_distance_sq(Vec3::Zero(), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)),
                1.0 / 3.0, 1e-15);
}

TEST(DistanceValues, LineLineUsesTheInfiniteLines) {
    // The x axis and the line x = 5, z = 3 along y.
    EXPECT_DOUBLE_EQ(
        line_line_distance_sq(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(5, 0, 3), Vec3(5, 1, 3)), 9.0);
    // Skew lines at 45 degrees, 2 apart along z.
    EXPECT_NEAR(line_line_distance_sq(Vec3(-1, 0, 0), Vec3(1, 0, 0), Vec3(3, 3, 2), Vec3(4, 4, 2)),
                4.0, 1e-14);
}

TEST(DistanceValues, PointEdgeClampsToTheSegment) {
    const Vec3 e0(0, 0, 0), e1(1, 0, 0);
    EXPECT_DOUBLE_EQ(point_edge_distance_sq(Vec3(-1, 1, 0), e0, e1), 2.0);
    EXPECT_DOUBLE_EQ(point_edge_distance_sq(Vec3(2, 0, 1), e0, e1), 2.0);
    EXPECT_DOUBLE_EQ(point_edge_distance_sq(Vec3(0.5, 2, 0), e0, e1), 4.0);
}

TEST(DistanceValues, PointTriangleInEveryRegion) {
    const Vec3 t0(0, 0, 0), t1(1, 0, 0), t2(0, 1, 0);
    EXPECT_DOUBLE_EQ(point_triangle_distance_sq(Vec3(-1, -1, 1), t0, t1, t2), 3.0);
    EXPECT_DOUBLE_EQ(point_triangle_distance_sq(Vec3(2, -1, 0), t0, t1, t2), 2.0);
    EXPECT_DOUBLE_EQ(point_triangle_distance_sq(Vec3(-1, 2, 0.5), t0, t1, t2), 2.25);
    EXPECT_DOUBLE_EQ(point_triangle_distance_sq(Vec3(0.5, -1, 1), t0, t1, t2), 2.0);
    EXPECT_NEAR(point_triangle_distance_sq(Vec3(1, 1, 0), t0, t1, t2), 0.5, 1e-15);
    EXPECT_DOUBLE_EQ(point_triangle_distance_sq(Vec3(-1, 0.5, 2), t0, t1, t2), 5.0);
    EXPECT_DOUBLE_EQ(point_triangle_distance_sq(Vec3(0.25, 0.25, 3), t0, t1, t2), 9.0);
    EXPECT_DOUBLE_EQ(point_triangle_distance_sq(Vec3(0.25, 0.25, 0), t0, t1, t2), 0.0);
}

TEST(DistanceValues, EdgeEdgeCrossingAndSeparated) {
    // Crossing at right angles, one above the other.
    EXPECT_DOUBLE_EQ(
        edge_edge_distance_sq(Vec3(-1, 0, 0), Vec3(1, 0, 0), Vec3(0, -1, 1), Vec3(0, 1, 1)), 1.0);
    // Lines cross at the origin but the segments stop short: endpoint to endpoint.
    EXPECT_DOUBLE_EQ(
        edge_edge_distance_sq(Vec3(1, 0, 0), Vec3(2, 0, 0), Vec3(0, 3, 0), Vec3(0, 4, 0)), 10.0);
    // Parallel, overlapping in x: the gap between the two lines.
    EXPECT_DOUBLE_EQ(
        edge_edge_distance_sq(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0.5, 1, 0), Vec3(2, 1, 0)), 1.0);
    // Parallel and collinear with a gap of 2.
    EXPECT_DOUBLE_EQ(
        edge_edge_distance_sq(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(3, 0, 0), Vec3(5, 0, 0)), 4.0);
}

}  // namespace
}  // namespace concord
