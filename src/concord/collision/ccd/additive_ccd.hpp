// Additive continuous collision detection (Li, Kaufman, Jiang: Codimensional Incremental
// Potential Contact, 2021, Alg. 1) for vertices moving on straight lines from t = 0 to t = 1.
//
// The search walks forward in time by steps that are provably collision free: after the common
// mean displacement is removed, l_p bounds how fast the distance can shrink, so from a gap
// g = distance - xi a step of s * g / l_p cannot reach xi. Every reported result is
// conservative: a reported time of impact is never later than the first time the distance
// reaches xi, and "no collision" is only reported when the whole of [0, t_max] is certified.
#pragma once

#include "concord/collision/ccd/ccd_params.hpp"
#include "concord/math/types.hpp"

namespace concord {

struct CCDResult {
    /// False only when the distance provably stays above min_separation on all of [0, tmax].
    bool collides = false;
    /// The motion is certified free of collisions on [0, toi]: the time of impact (a lower
    /// bound of the true one) when `collides`, tmax otherwise. toi = 0 when the pair already
    /// starts within min_separation (up to rounding). For toi > 0 the configuration at toi is
    /// at distance >= min_separation + (1 - s) * (initial gap), up to rounding.
    double toi = 0.0;
    /// A lower bound of the pair's distance at t = 0 (the first evaluation, less its error
    /// bound): callers that also need to know how close the pair starts read it here instead
    /// of computing the distance again. NaN when the distance could not be evaluated.
    double start_distance = 0.0;
    /// Distance evaluations after the initial one.
    long iterations = 0;
    /// The search stopped at max_iterations (or could no longer advance in floating point);
    /// `collides` is then true and `toi` the time reached, which is still certified.
    bool gave_up = false;
};

/// Point p against triangle (t0, t1, t2); `_t0` are positions at time 0, `_t1` at time 1.
CCDResult point_triangle_ccd(const Vec3& p_t0, const Vec3& t0_t0, const Vec3& t1_t0,
                             const Vec3& t2_t0, const Vec3& p_t1, const Vec3& t0_t1,
                             const Vec3& t1_t1, const Vec3& t2_t1, const CCDParams& params = {});

/// Edge (ea0, ea1) against edge (eb0, eb1).
CCDResult edge_edge_ccd(const Vec3& ea0_t0, const Vec3& ea1_t0, const Vec3& eb0_t0,
                        const Vec3& eb1_t0, const Vec3& ea0_t1, const Vec3& ea1_t1,
                        const Vec3& eb0_t1, const Vec3& eb1_t1, const CCDParams& params = {});

}  // namespace concord
