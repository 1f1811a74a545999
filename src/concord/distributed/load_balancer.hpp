// Control-based load balancing (paper Sec. 5.2, Eq. 13-14): a discrete PD controller per
// boundary plane. For the plane between the slabs below (load t_a) and above it (t_b), the
// imbalance T = (eta - 1) / (eta + 1), eta = t_a / t_b, drives
//   dp = l (K_P T + K_D (T - T_prev))
// and the plane moves by -dp along the axis: towards the slower side, so that side's cell
// shrinks and hands work over (the paper writes p += dp n with n pointing into the faster
// side). Loads are exponentially smoothed per worker; with a grid, a slab's load is the sum
// over its workers. l is the scene scale, so the gains are scale free.
#pragma once

#include <array>
#include <utility>
#include <vector>

#include "concord/distributed/partition.hpp"
#include "concord/scene/distributed_spec.hpp"

namespace concord {

class LoadBalancer {
  public:
    LoadBalancer(LoadBalanceSpec spec, double scene_scale) : spec_(spec), scale_(scene_scale) {}

    /// Feeds one step's per-worker loads and moves the planes of `p`. Planes keep an order
    /// with at least `min_gap` between neighbours.
    void update(const std::vector<double>& loads, Partition& p, double min_gap);
    const std::vector<double>& smoothed() const { return smoothed_; }

    /// What the controller carries between steps (a checkpoint holds it): the smoothed loads and
    /// each axis's previous imbalances.
    struct State {
        std::vector<double> smoothed;
        std::array<std::vector<double>, 3> previous_imbalance;
    };
    State state() const { return {smoothed_, previous_imbalance_}; }
    void restore(State s) {
        smoothed_ = std::move(s.smoothed);
        previous_imbalance_ = std::move(s.previous_imbalance);
    }

  private:
    LoadBalanceSpec spec_;
    double scale_;
    std::vector<double> smoothed_;
    std::array<std::vector<double>, 3> previous_imbalance_;
};

}  // namespace concord
