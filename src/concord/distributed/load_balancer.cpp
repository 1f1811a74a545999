#include "concord/distributed/load_balancer.hpp"

#include <algorithm>
#include <cmath>

namespace concord {

void LoadBalancer::update(const std::vector<double>& loads, Partition& p, double min_gap) {
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
        for (int w = 0; w < p.num_workers(); ++w) {
            const int c = a == 0   ? w % p.cells[0]
                          : a == 1 ? (w / p.cells[0]) % p.cells[1]
                                   : w / (p.cells[0] * p.cells[1]);
            slab[static_cast<std::size_t>(c)] += smoothed_[static_cast<std::size_t>(w)];
        }
        auto& prev = previous_imbalance_[sa];
        prev.resize(static_cast<std::size_t>(n - 1), 0.0);
        auto& planes = p.planes[sa];
        for (int j = 0; j + 1 < n; ++j) {
            const auto sj = static_cast<std::size_t>(j);
            const double ta = slab[sj], tb = slab[sj + 1];
            const double T = ta + tb > 0 ? (ta - tb) / (ta + tb) : 0.0;  // = (eta-1)/(eta+1)
            const double dp = std::abs(T) <= spec_.dead_band
                                  ? 0.0
                                  : scale_ * (spec_.kp * T + spec_.kd * (T - prev[sj]));
            prev[sj] = T;
            const double lo = j > 0 ? planes[sj - 1] + min_gap : -1e300;
            const double hi = j + 2 < n ? planes[sj + 1] - min_gap : 1e300;
            planes[sj] =
                std::clamp(planes[sj] - dp, std::min(lo, planes[sj]), std::max(hi, planes[sj]));
        }
    }
}

}  // namespace concord
