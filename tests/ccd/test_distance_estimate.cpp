// The error bounds of distance_estimate.hpp against a long-double reference, on the
// configurations where double precision distances go wrong: slivers and nearly parallel edges.
#include <gtest/gtest.h>

#include <random>

#include "ccd/reference_distance.hpp"
#include "concord/collision/ccd/distance_estimate.hpp"

namespace concord {
namespace {

constexpr double kTol = 1e-13;

Vec3 random_unit(std::mt19937_64& rng) {
    std::normal_distribution<double> g;
    return Vec3(g(rng), g(rng), g(rng)).normalized();
}

// CCD adds kTol * (size of the configuration) itself; so does this check.
void expect_within_bound(const DistanceEstimate& e, long double reference, double size,
                         const std::string& what) {
    const double slack = 4 * kTol * size;
    EXPECT_LE(std::abs(static_cast<long double>(e.distance) - reference), e.uncertainty + slack)
        << what << ": distance " << e.distance << ", reference " << static_cast<double>(reference)
        << ", uncertainty " << e.uncertainty;
}

TEST(DistanceEstimate, NearlyParallelEdgesAreWithinTheirUncertainty) {
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> unit(0, 1);
    std::uniform_int_distribution<int> angle_exp(1, 15), gap_exp(0, 16);
    int parallel_path = 0;
    for (int k = 0; k < 4000; ++k) {
        const Vec3 u = random_unit(rng);
        Vec3 axis = random_unit(rng).cross(u).normalized();
        const double angle = std::pow(10.0, -angle_exp(rng)) * (k % 7 == 0 ? 0 : 1);
        const Vec3 v = Eigen::AngleAxisd(angle, axis) * u;
        const Vec3 normal = u.cross(v).norm() > 0 ? Vec3(u.cross(v).normalized()) : axis;
        const double gap = k % 5 == 0 ? 0.0 : std::pow(10.0, -gap_exp(rng));
        const Vec3 centre(unit(rng), unit(rng), unit(rng));
        const double la = 0.5 + unit(rng), lb = 0.5 + unit(rng);
        const Vec3 a0 = centre - unit(rng) * la * u, a1 = a0 + la * u;
        const Vec3 qb = centre + gap * normal + (unit(rng) - 0.5) * 0.5 * u;
        const Vec3 b0 = qb - unit(rng) * lb * v, b1 = b0 + lb * v;
        const DistanceEstimate e = edge_edge_distance_estimate(a0, a1, b0, b1, kTol);
        const long double ref = test::ref_segment_segment(test::widen(a0), test::widen(a1),
                                                          test::widen(b0), test::widen(b1));
        expect_within_bound(e, ref, 4.0, "angle " + std::to_string(angle));
        parallel_path += e.uncertainty > 1e-12;
        // Very nearly parallel edges are measured by their endpoints, which is accurate.
        if (angle <= 1e-10) {
            EXPECT_LT(e.uncertainty, 1e-9) << angle;
        }
    }
    EXPECT_GT(parallel_path, 100);  // the ill-conditioned range is exercised
}

TEST(DistanceEstimate, SliversAreWithinTheirUncertainty) {
    std::mt19937_64 rng(4);
    std::uniform_real_distribution<double> unit(0, 1);
    std::uniform_int_distribution<int> width_exp(1, 16), height_exp(0, 16);
    for (int k = 0; k < 4000; ++k) {
        const Vec3 t0(unit(rng), unit(rng), unit(rng));
        const Vec3 t1 = t0 + (0.5 + unit(rng)) * random_unit(rng);
        const Vec3 side = (t1 - t0).cross(random_unit(rng)).normalized();
        const double width = k % 9 == 0 ? 0.0 : std::pow(10.0, -width_exp(rng));
        const Vec3 t2 = t0 + unit(rng) * (t1 - t0) + width * side;
        const Vec3 n = (t1 - t0).cross(t2 - t0);
        const Vec3 normal = n.norm() > 0 ? Vec3(n.normalized()) : side.cross(t1 - t0).normalized();
        const double b1 = unit(rng) * 1.2 - 0.1, b2 = unit(rng) * (1.1 - b1);
        const double height = k % 4 == 0 ? 0.0 : std::pow(10.0, -height_exp(rng));
        const Vec3 p = t0 + b1 * (t1 - t0) + b2 * (t2 - t0) + height * normal;
        const DistanceEstimate e = point_triangle_distance_estimate(p, t0, t1, t2, kTol);
        // Long double is not enough for slivers: compare with the exact rational distance.
        const long double ref = std::sqrt(
            static_cast<long double>(test::exact_point_triangle_sq(test::exact(p), test::exact(t0),
                                                                   test::exact(t1), test::exact(t2))
                                         .get_d()));
        expect_within_bound(e, ref, 4.0, "width " + std::to_string(width));
    }
}

TEST(DistanceEstimate, OrdinaryConfigurationsAreNotPenalised) {
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> box(-1, 1);
    for (int k = 0; k < 1000; ++k) {
        const Vec3 p(box(rng), box(rng), box(rng)), a(box(rng), box(rng), box(rng));
        const Vec3 b(box(rng), box(rng), box(rng)), c(box(rng), box(rng), box(rng));
        const Vec3 n = (b - a).cross(c - a);
        const double longest = std::max({(b - a).norm(), (c - a).norm(), (c - b).norm()});
        if (n.norm() < 0.1 * longest * longest) continue;  // a sliver: allowed to be uncertain
        EXPECT_LT(point_triangle_distance_estimate(p, a, b, c, kTol).uncertainty, 1e-10);
        const double sin_angle = (b - p).normalized().cross((c - a).normalized()).norm();
        if (sin_angle > 0.1) {
            EXPECT_LT(edge_edge_distance_estimate(p, b, a, c, kTol).uncertainty, 1e-10);
        }
    }
}

}  // namespace
}  // namespace concord
