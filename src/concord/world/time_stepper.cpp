#include "concord/world/time_stepper.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace concord {

TimeStepper::TimeStepper(WorldState initial, std::vector<bool> movable)
    : state_(std::move(initial)), movable_(std::move(movable)) {}

void TimeStepper::restore(const WorldState& s) {
    check_state_fits(s, static_cast<int>(movable_.size()), state_.q.size());
    WorldState next = s;
    next.num_bodies = static_cast<int>(movable_.size());
    next.time_step_level = std::max(0, s.time_step_level);
    next.level_successes = std::max(0, s.level_successes);
    state_ = std::move(next);
}

void TimeStepper::commit(const SubstepAttempt& a, double dt, double t_end) {
    state_.q_dot = (*a.x - state_.q) / dt;
    for (std::size_t b = 0; b < movable_.size(); ++b)
        if (!movable_[b]) state_.q_dot.segment<12>(12 * static_cast<Eigen::Index>(b)).setZero();
    state_.q = *a.x;
    state_.time = t_end;
    state_.barrier_stiffness = a.kappa;
    if (a.contact_multipliers) state_.contact_multipliers = *a.contact_multipliers;
    else state_.contact_multipliers.clear();
}

StepSummary TimeStepper::step(double h, const StepPolicy& policy, SubstepSolver& solver) {
    const int max_level = std::max(0, policy.max_halvings);
    const WorldState start = state_;
    const double t0 = state_.time;
    const long long total = 1LL << max_level;
    long long done = 0;
    int& level = state_.time_step_level;
    int& successes = state_.level_successes;
    level = std::min(level, max_level);
    StepSummary out;
    out.smallest_time_step = h;
    while (done < total) {
        const long long size = 1LL << (max_level - level);
        const double dt = std::ldexp(h, -level);
        const double t_end =
            done + size == total
                ? t0 + h
                : t0 + std::ldexp(h * static_cast<double>(done + size), -max_level);
        const SubstepAttempt a = solver.attempt(state_, dt, t_end);
        const bool failed = a.status == ConvergenceStatus::Diverged ||
                            (policy.retry_stopped && a.status == ConvergenceStatus::Stopped);
        if (failed && level < max_level) {
            solver.conclude(SubstepVerdict::Retry);
            ++level;
            successes = 0;
            ++out.retries;
            continue;  // nothing was committed: the state is still the substep's start
        }
        if (a.status == ConvergenceStatus::Diverged) {
            solver.conclude(SubstepVerdict::GiveUp);
            out.gave_up = true;
            break;
        }
        solver.conclude(SubstepVerdict::Commit);
        commit(a, dt, t_end);
        out.smallest_time_step = std::min(out.smallest_time_step, dt);
        ++out.substeps;
        done += size;
        if (level > 0) {
            successes = a.status == ConvergenceStatus::Converged ? successes + 1 : 0;
            if (successes >= kGrowAfterSuccesses && done % (2 * size) == 0) {
                --level;
                successes = 0;
            }
        }
    }
    if (out.gave_up) {
        state_ = start;
        solver.restored(state_);
    } else {
        ++state_.steps;
    }
    return out;
}

}  // namespace concord
