#include "concord/distributed/load_balancer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace concord {

namespace {

// Worker w's cell index along axis a.
int cell_along(const Partition& p, int w, int a) {
    return a == 0   ? w % p.cells[0]
           : a == 1 ? (w / p.cells[0]) % p.cells[1]
                    : w / (p.cells[0] * p.cells[1]);
}

struct GapMove {
    double position;  ///< the plane's new position
    double load;      ///< the load it hands from the slower slab to the faster one
};

// The gap move of plane j along axis a between the slab below (load t_lower) and the slab
// above (t_upper), within [lo, hi]; none when it would not narrow their difference.
std::optional<GapMove> gap_move(const BodyLayout& bodies, std::size_t a,
                                const std::vector<double>& planes, std::size_t j, double t_lower,
                                double t_upper, double lo, double hi) {
    const auto& centres = bodies.centres[a];
    const double p0 = planes[j];
    const bool down = t_lower > t_upper;  // the lower slab is slower: it gives, the plane drops
    // The slower slab (a point on a plane belongs to the lower cell) and its bodies.
    const double slab_lo =
        down ? (j > 0 ? planes[j - 1] : -std::numeric_limits<double>::infinity()) : p0;
    const double slab_hi =
        down ? p0
             : (j + 1 < planes.size() ? planes[j + 1] : std::numeric_limits<double>::infinity());
    int in_slab = 0;
    double nearest =
        down ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    for (double c : centres) {
        if (!(c > slab_lo && c <= slab_hi)) continue;
        ++in_slab;
        nearest = down ? std::max(nearest, c) : std::min(nearest, c);
    }
    if (in_slab == 0) return std::nullopt;
    // The quietest position within one body's extent past the nearest centre: beyond the
    // nearest column of bodies, in the gap after it.
    double reach = 0.0;
    for (const auto& [e_lo, e_hi] : bodies.extents[a]) reach = std::max(reach, e_hi - e_lo);
    const double from = down ? std::max(lo, nearest - reach) : nearest;
    const double to = down ? nearest : std::min(hi, nearest + reach);
    if (!(from < to)) return std::nullopt;
    const double x = quietest_position(bodies.extents[a], nearest, from, to);
    if (down ? !(x < nearest) : !(x >= nearest)) return std::nullopt;
    int handed = 0;
    for (double c : centres) handed += down ? (c > x && c <= p0) : (c > p0 && c <= x);
    const double t_slow = std::max(t_lower, t_upper), t_fast = std::min(t_lower, t_upper);
    const double load = handed * t_slow / in_slab;
    // The difference after the move is d - 2 load: the move narrows it for load < d, and
    // does not turn it round for load <= d / 2. Only such a move is made: one that turns the
    // imbalance round would, with loads that vary from step to step, soon be made back.
    if (!(load > 0 && 2.0 * load <= t_slow - t_fast)) return std::nullopt;
    return GapMove{x, load};
}

}  // namespace

void LoadBalancer::update(const std::vector<double>& loads, Partition& p, double min_gap,
                          const BodyLayout* bodies) {
    if (!spec_.enabled) return;
    if (smoothed_.size() != loads.size()) {
        smoothed_ = loads;
    } else {
        for (std::size_t w = 0; w < loads.size(); ++w)
            smoothed_[w] = (1.0 - spec_.smoothing) * smoothed_[w] + spec_.smoothing * loads[w];
    }
    for (int a = 0; a < 3; ++a) {
        const auto sa = static_cast<std::size_t>(a);
        const int n = p.cells[sa];
        if (n < 2) continue;
        // Load of each slab along axis a.
        std::vector<double> slab(static_cast<std::size_t>(n), 0.0);
        for (int w = 0; w < p.num_workers(); ++w)
            slab[static_cast<std::size_t>(cell_along(p, w, a))] +=
                smoothed_[static_cast<std::size_t>(w)];
        auto& prev = previous_imbalance_[sa];
        prev.resize(static_cast<std::size_t>(n - 1), 0.0);
        auto& planes = p.planes[sa];
        for (int j = 0; j + 1 < n; ++j) {
            const auto sj = static_cast<std::size_t>(j);
            const double ta = slab[sj], tb = slab[sj + 1];
            const double T = ta + tb > 0 ? (ta - tb) / (ta + tb) : 0.0;  // = (eta-1)/(eta+1)
            const bool hold = std::abs(T) <= spec_.dead_band;
            const double lo = j > 0 ? planes[sj - 1] + min_gap : -1e300;
            const double hi = j + 2 < n ? planes[sj + 1] - min_gap : 1e300;
            if (bodies) {
                prev[sj] = T;
                if (hold) continue;
                const auto move = gap_move(*bodies, sa, planes, sj, ta, tb, lo, hi);
                if (!move) continue;
                planes[sj] = move->position;
                // The smoothed loads follow the bodies handed over, so that the next step
                // does not see the imbalance the move removed and move again.
                const std::size_t from = ta > tb ? sj : sj + 1, to = ta > tb ? sj + 1 : sj;
                const double per_to_worker = move->load * n / p.num_workers();
                for (int w = 0; w < p.num_workers(); ++w) {
                    const auto c = static_cast<std::size_t>(cell_along(p, w, a));
                    auto& t = smoothed_[static_cast<std::size_t>(w)];
                    if (c == from) t *= (slab[from] - move->load) / slab[from];  // > 0: it gives
                    if (c == to)
                        t = slab[to] > 0 ? t * (slab[to] + move->load) / slab[to] : per_to_worker;
                }
                slab[from] -= move->load;
                slab[to] += move->load;
                continue;
            }
            const double dp = hold ? 0.0 : scale_ * (spec_.kp * T + spec_.kd * (T - prev[sj]));
            prev[sj] = T;
            planes[sj] =
                std::clamp(planes[sj] - dp, std::min(lo, planes[sj]), std::max(hi, planes[sj]));
        }
    }
}

}  // namespace concord
