// Control-based load balancing (paper Sec. 5.2, Eq. 13-14): a discrete PD controller per
// boundary plane. For the plane between the slabs below (load t_a) and above it (t_b), the
// imbalance T = (eta - 1) / (eta + 1), eta = t_a / t_b, drives
//   dp = l (K_P T + K_D (T - T_prev))
// and the plane moves by -dp along the axis: towards the slower side, so that side's cell
// shrinks and hands work over (the paper writes p += dp n with n pointing into the faster
// side). Loads are exponentially smoothed per worker; with a grid, a slab's load is the sum
// over its workers. l is the scene scale, so the gains are scale free.
//
// Given where the bodies lie (BodyLayout), a plane moves from gap to gap instead: when its
// imbalance leaves the dead band, it jumps past the nearest bodies of the slower side to the
// quietest position beyond them (quietest_position), and only when the load it hands over
// (those bodies, at the slower slab's load per body) is at most half the difference between
// the two slabs, so that the difference shrinks and keeps its sign; otherwise it holds. A
// plane crossing a column of bodies bit by bit makes the whole column shared for every step
// of the crossing; one that jumps never does, and one that would turn the imbalance round
// (and soon jump back) stays.
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
    /// with at least `min_gap` between neighbours. With `bodies`, planes move from gap to gap
    /// (above); without, by the PD controller.
    void update(const std::vector<double>& loads, Partition& p, double min_gap,
                const BodyLayout* bodies = nullptr);
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
