// Parameters of additive continuous collision detection (see additive_ccd.hpp).
#pragma once

namespace concord {

/// Parameters of `point_triangle_ccd` / `edge_edge_ccd`. The defaults suit an IPC line search.
struct CCDParams {
    /// xi >= 0: a "collision" is the distance reaching xi (0 = actual contact).
    double min_separation = 0.0;

    /// t_max > 0: only times in [0, t_max] of the linear trajectories are examined.
    double tmax = 1.0;

    /// s in (0, 1), the ipc-toolkit convention (the paper's Alg. 1 writes 1 - s for it): every
    /// step advances time by s * gap / l_p, where gap = distance - xi is the current gap and l_p
    /// bounds how fast the distance can change, so one step consumes at most the fraction s of
    /// the gap. The search stops, reporting a collision, once the gap has fallen below (1 - s)
    /// times the initial gap. Larger s: fewer steps and a time of impact closer to the true one;
    /// smaller s: a wider safety margin at the reported time.
    double conservative_rescaling = 0.9;

    /// Steps before giving up. Giving up is conservative: it reports a collision at the time
    /// reached so far (which is certified free of collisions), never "no collision".
    long max_iterations = 1'000'000;

    /// Relative precision assumed of every floating-point result when deciding how far a
    /// computed distance can be trusted: each distance is lowered by rounding_tolerance times
    /// (the pair's local size + xi), and by the error bound of its closest-feature formula
    /// (large for slivers and nearly parallel edges, see distance_estimate.hpp). A pair whose
    /// gap is not certainly positive at t = 0 is reported at toi = 0. About 450 times the unit
    /// roundoff by default.
    double rounding_tolerance = 1e-13;
};

/// Throws concord::InputError naming the offending parameter if `params` is out of range.
void validate_ccd_params(const CCDParams& params);

}  // namespace concord
