#include "concord/collision/ccd/additive_ccd.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "concord/collision/ccd/distance_estimate.hpp"

namespace concord {
namespace {

using Stencil = std::array<Vec3, 4>;

constexpr double kUnitRoundoff = std::numeric_limits<double>::epsilon() / 2;

// Which vertices move together as one primitive: point-triangle is 1 + 3, edge-edge 2 + 2.
enum class PairKind { PointTriangle, EdgeEdge };

// The pair in a local frame: vertex 0 at t = 0 is the origin, and the mean displacement is
// removed, so positions are small numbers whose rounding is relative to the pair's own size,
// not to its place in the world. Distance is invariant under both changes.
struct LocalMotion {
    Stencil start;         // positions at t = 0 relative to vertex 0
    Stencil displacement;  // displacement over [0, 1] minus the mean displacement
    double size = 0.0;     // bounds every coordinate the search evaluates, for rounding margins
};

LocalMotion make_local_motion(const Stencil& x0, const Stencil& x1, double tmax) {
    LocalMotion m;
    Stencil raw;
    Vec3 mean = Vec3::Zero();
    for (int i = 0; i < 4; ++i) {
        m.start[i] = x0[i] - x0[0];
        raw[i] = x1[i] - x0[i];
        mean += raw[i];
    }
    mean *= 0.25;
    for (int i = 0; i < 4; ++i) {
        m.displacement[i] = raw[i] - mean;
        m.size += m.start[i].cwiseAbs().maxCoeff() +
                  tmax * (raw[i].cwiseAbs().maxCoeff() + m.displacement[i].cwiseAbs().maxCoeff());
    }
    return m;
}

// l_p: every point of a primitive moves by a convex combination of its vertices' displacements,
// so the relative displacement of any two points, and hence the change of the distance over
// [0, 1], is at most the largest displacement on one side plus the largest on the other.
double relative_motion_bound(const Stencil& d, PairKind kind) {
    const double n0 = d[0].squaredNorm(), n1 = d[1].squaredNorm(), n2 = d[2].squaredNorm(),
                 n3 = d[3].squaredNorm();
    const double bound = kind == PairKind::PointTriangle
                             ? std::sqrt(n0) + std::sqrt(std::max({n1, n2, n3}))
                             : std::sqrt(std::max(n0, n1)) + std::sqrt(std::max(n2, n3));
    return bound * (1 + 8 * kUnitRoundoff);  // round up: the bound must not be too small
}

template <PairKind kind>
CCDResult additive_ccd(const Stencil& x0, const Stencil& x1, const CCDParams& params) {
    const LocalMotion motion = make_local_motion(x0, x1, params.tmax);
    const double xi = params.min_separation;
    const double base_margin = params.rounding_tolerance * (motion.size + xi);

    // The gap at time t, lowered by its rounding uncertainty so that it never overstates the
    // true gap of the exact trajectories.
    auto certain_gap = [&](double t) {
        Stencil x;
        for (int i = 0; i < 4; ++i) x[i] = motion.start[i] + t * motion.displacement[i];
        const double tol = params.rounding_tolerance;
        const DistanceEstimate e =
            kind == PairKind::PointTriangle
                ? point_triangle_distance_estimate(x[0], x[1], x[2], x[3], tol)
                : edge_edge_distance_estimate(x[0], x[1], x[2], x[3], tol);
        return e.distance - xi - base_margin - e.uncertainty;
    };

    CCDResult result;
    const double initial_gap = certain_gap(0.0);
    result.start_distance = initial_gap + xi;
    if (!(initial_gap > 0.0)) {  // already within xi, or not a number: contact at the start
        result.collides = true;
        return result;
    }
    const double lp = relative_motion_bound(motion.displacement, kind);
    if (lp == 0.0) {  // the pair only translates as a whole: the distance never changes
        result.toi = params.tmax;
        return result;
    }
    if (!std::isfinite(lp)) {
        result.collides = true;
        return result;
    }

    const double s = params.conservative_rescaling;
    const double stop_gap = (1 - s) * initial_gap;
    double t = 0.0, gap = initial_gap;
    for (long it = 0; it < params.max_iterations; ++it) {
        // The distance shrinks by at most lp per unit time, so on [t, t + step] it stays above
        // xi + (1 - s) * gap. The factor below keeps the rounded step below the exact one.
        const double step = s * gap / lp * (1 - 4 * kUnitRoundoff);
        if (t + step >= params.tmax) {
            result.toi = params.tmax;
            result.iterations = it;
            return result;
        }
        const double t_next = t + step;
        if (!(t_next > t)) {  // the step fell below the resolution of t: no further progress
            result.gave_up = true;
            break;
        }
        const double gap_next = certain_gap(t_next);
        result.iterations = it + 1;
        // The first step is always taken (it is certified, and toi = 0 would stall a line
        // search) unless rounding already contradicts it.
        if (!(gap_next >= stop_gap) && (t > 0.0 || !(gap_next > 0.0))) {
            result.collides = true;
            result.toi = t;
            return result;
        }
        t = t_next;
        gap = gap_next;
    }
    if (result.iterations >= params.max_iterations) result.gave_up = true;
    result.collides = true;
    result.toi = t;
    return result;
}

}  // namespace

CCDResult point_triangle_ccd(const Vec3& p_t0, const Vec3& t0_t0, const Vec3& t1_t0,
                             const Vec3& t2_t0, const Vec3& p_t1, const Vec3& t0_t1,
                             const Vec3& t1_t1, const Vec3& t2_t1, const CCDParams& params) {
    return additive_ccd<PairKind::PointTriangle>({p_t0, t0_t0, t1_t0, t2_t0},
                                                 {p_t1, t0_t1, t1_t1, t2_t1}, params);
}

CCDResult edge_edge_ccd(const Vec3& ea0_t0, const Vec3& ea1_t0, const Vec3& eb0_t0,
                        const Vec3& eb1_t0, const Vec3& ea0_t1, const Vec3& ea1_t1,
                        const Vec3& eb0_t1, const Vec3& eb1_t1, const CCDParams& params) {
    return additive_ccd<PairKind::EdgeEdge>({ea0_t0, ea1_t0, eb0_t0, eb1_t0},
                                            {ea0_t1, ea1_t1, eb0_t1, eb1_t1}, params);
}

}  // namespace concord
