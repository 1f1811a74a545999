#include "concord/world/world.hpp"
#include "concord/world/step_sanity.hpp"

#include <spdlog/spdlog.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include "concord/body/body_builder.hpp"
#include "concord/collision/broad_phase/body_pair_filter.hpp"
#include "concord/math/error.hpp"
#include "concord/solver/solver_enum_names.hpp"
#include "concord/world/fluid_coupling.hpp"
#include "concord/world/islands.hpp"
#include "concord/world/kinematic_motion.hpp"
#include "concord/world/step_system.hpp"
#include "concord/world/time_stepper.hpp"
#include "concord/world/world_model.hpp"

namespace concord {

namespace {

double seconds_since(SolverClock::time_point t0) {
    return std::chrono::duration<double>(SolverClock::now() - t0).count();
}

}  // namespace

SolverParams resolve_solver_spec(const SolverSpec& spec) {
    SolverParams p = spec;
    const SolverSpec defaults;
    if (spec.tolerance != defaults.tolerance) {
        p.step_tol = spec.tolerance;
        p.convergence_mode = ConvergenceMode::StepNorm;
    }
    if (spec.linear_solver != defaults.linear_solver) {
        const auto type = enum_from_string<LinearSolverType>(spec.linear_solver);
        if (!type)
            throw InputError("solver.linear_solver: expected one of " +
                             enum_name_list<LinearSolverType>() + ", got \"" + spec.linear_solver +
                             "\"");
        p.linear.type = *type;
    }
    if (spec.cg_max_iterations != defaults.cg_max_iterations)
        p.linear.max_iterations = spec.cg_max_iterations;
    if (spec.cg_tolerance != defaults.cg_tolerance) p.linear.tolerance = spec.cg_tolerance;
    return p;
}

/// The result of one implicit substep, not yet committed to the world's state.
struct SubstepOutcome {
    ConvergenceStatus status = ConvergenceStatus::Converged;
    StopReason stop_reason = StopReason::Residual;
    VecX x;
    double kappa = 0.0;
    double kappa_start = 0.0;      ///< the stiffness the first round of solves started with
    bool island_fallback = false;  ///< the first islands' bounds failed: some were re-solved
    double t_islands = 0.0;
    std::vector<SystemStepResult> results;
    std::vector<std::vector<int>> island_bodies;  ///< movable bodies of each result
    std::vector<const StepSystem*> systems;       ///< the system of each result
    /// Solves whose result was replaced by a later round (islands merged after their motion
    /// bounds failed): their work still counts in the step's statistics.
    std::vector<SystemStepResult> discarded;
    /// Newton iterations on the critical path: per round of solves the largest system's count,
    /// summed over the rounds.
    int iterations = 0;
    /// Augmented-Lagrangian contact: every result's multipliers (sorted), for the next step.
    AlContactMemory contact_multipliers;
};

// The world's substep solver is the island solve (advance); TimeStepper schedules the substeps.
struct World::Impl final : SubstepSolver {
    WorldModel model;
    SolverParams params;
    std::unique_ptr<StepSystem> whole;  ///< every body: islands off, a single island, fallback
    std::map<std::vector<int>, std::unique_ptr<StepSystem>> island_systems;
    /// whole and the island systems of the last step and this one: new islands' broad phases
    /// start from their envelopes.
    BroadPhaseDonors donors;

    TimeStepper stepper;  ///< the evolving state and the substep schedule
    std::vector<Vec12> external_acceleration;
    /// The scene's fluid, advanced before the bodies in every step (null without one). Its
    /// particles are kept here, not in the stepper's state: capture_state() adds them.
    std::unique_ptr<FluidCoupling> fluid;
    // During a step: its deadline (max_time) and the attempt the stepper is deciding on.
    std::optional<SolverClock::time_point> deadline;
    SubstepOutcome attempted;

    StepStats stats;
    SolverStats solver_stats;

    explicit Impl(const SceneSpec& s);
    const WorldState& state() const { return stepper.state(); }
    SubstepOutcome advance(const WorldState& s, double h, double t_end);
    void solve_systems(const std::vector<StepSystem*>& systems, const StepInput& in, double kappa,
                       SubstepOutcome& out);
    /// Islands of the movable bodies whose vertices stay within `bounds` during the step.
    std::vector<Island> find_step_islands(const MotionBounds& bounds);
    /// The system of an island (kept from the last step, or new: its broad phase then starts
    /// from a donor's envelope at the step's start q).
    StepSystem& island_system(const std::vector<int>& bodies,
                              std::map<std::vector<int>, std::unique_ptr<StepSystem>>& kept,
                              const VecX& q);
    SubstepAttempt attempt(const WorldState& s, double dt, double t_end) override;
    void conclude(SubstepVerdict verdict) override;
    void record(const SubstepOutcome& o, bool final_attempt);
    void log_step() const;
    /// The fluid stage of a step: advances the fluid over the step and sets every dynamic
    /// body's external acceleration to the scene's plus the fluid's generalised force.
    FluidStepStats advance_fluid();
    void step();
};

World::Impl::Impl(const SceneSpec& s)
    : model(build_world_model(s)), stepper(model.initial_world_state(), model.movable) {
    params = resolve_solver_spec(s.solver);
    validate_solver_params(params);
    const int B = model.num_bodies();
    std::vector<int> all(static_cast<std::size_t>(B));
    for (int b = 0; b < B; ++b) all[static_cast<std::size_t>(b)] = b;
    whole = std::make_unique<StepSystem>(model, all, &model.surface);
    external_acceleration = model.initial_external_acceleration;
    if (!model.spec.fluids.empty()) fluid = std::make_unique<FluidCoupling>(model);
}

FluidStepStats World::Impl::advance_fluid() {
    FluidStepStats fs;
    const double h = model.spec.time_step;
    const std::vector<Vec12> impulse = fluid->advance(model, state(), h, fs);
    for (std::size_t i = 0; i < impulse.size(); ++i)
        if (model.dynamic[i])
            external_acceleration[i] = model.initial_external_acceleration[i] +
                                       model.masses[i].ldlt().solve(impulse[i]) / h;
    return fs;
}

void World::Impl::solve_systems(const std::vector<StepSystem*>& systems, const StepInput& in,
                                double kappa, SubstepOutcome& out) {
    const std::size_t n = systems.size();
    auto for_each = [&](auto&& fn) {
        if (n == 1) {
            fn(std::size_t(0));
        } else {
            tbb::parallel_for(std::size_t(0), n, [&](std::size_t i) { fn(i); });
        }
    };
    // IPC's stiffness balance over the whole world: the sums of the systems, in system order.
    // A later round (islands merged, see advance) keeps the first round's stiffness: its
    // systems cover the same contacts at the step's start, so the balance would not change.
    const bool first_round = out.results.empty();
    std::vector<StiffnessBalance> balance(n);
    for_each([&](std::size_t i) { balance[i] = systems[i]->prepare(in, kappa); });
    double k = out.kappa_start;
    if (first_round) {
        StiffnessBalance total;
        for (const auto& b : balance) total += b;
        k = starting_barrier_stiffness(model, kappa, total);
    }
    out.kappa_start = k;
    std::vector<SystemStepResult> results(n);
    for_each([&](std::size_t i) { results[i] = systems[i]->solve(k, params, deadline); });

    // Results of earlier rounds whose bodies were solved again are replaced.
    std::vector<char> replaced(out.results.size(), 0);
    for (std::size_t j = 0; j < out.results.size(); ++j)
        for (const StepSystem* sys : systems)
            for (int b : sys->movable_bodies())
                if (std::binary_search(out.island_bodies[j].begin(), out.island_bodies[j].end(), b))
                    replaced[j] = 1;
    struct Kept {
        SystemStepResult result;
        std::vector<int> bodies;
        const StepSystem* system;
    };
    std::vector<Kept> kept;
    for (std::size_t j = 0; j < out.results.size(); ++j) {
        if (replaced[j])
            out.discarded.push_back(std::move(out.results[j]));
        else
            kept.push_back(
                {std::move(out.results[j]), std::move(out.island_bodies[j]), out.systems[j]});
    }
    int round_iterations = 0;
    for (std::size_t i = 0; i < n; ++i) {
        round_iterations = std::max(round_iterations, results[i].iterations);
        kept.push_back({std::move(results[i]), systems[i]->movable_bodies(), systems[i]});
    }
    out.iterations += round_iterations;
    // Results ordered by their smallest body, as find_islands orders islands.
    std::sort(kept.begin(), kept.end(),
              [](const Kept& x, const Kept& y) { return x.bodies < y.bodies; });
    out.results.clear();
    out.island_bodies.clear();
    out.systems.clear();
    for (Kept& k2 : kept) {
        out.results.push_back(std::move(k2.result));
        out.island_bodies.push_back(std::move(k2.bodies));
        out.systems.push_back(k2.system);
    }

    out.x = in.q;
    out.kappa = k;
    out.status = ConvergenceStatus::Converged;
    out.stop_reason = StopReason::Residual;
    // Status and stop reason of the worst solve; among equals, of the one with the most
    // iterations (the solve that set the step's cost), so that a converged step reports the
    // criterion that ended its largest solve.
    int worst_iterations = -1;
    out.contact_multipliers.clear();
    for (const SystemStepResult& r : out.results)
        out.contact_multipliers.insert(out.contact_multipliers.end(), r.al_memory.begin(),
                                       r.al_memory.end());
    std::sort(out.contact_multipliers.begin(), out.contact_multipliers.end());
    for (std::size_t i = 0; i < out.results.size(); ++i) {
        const SystemStepResult& r = out.results[i];
        out.systems[i]->scatter(r.x, out.x);
        out.kappa = std::max(out.kappa, r.barrier_stiffness);
        const bool worse = static_cast<int>(r.status) > static_cast<int>(out.status);
        if (worse || (r.status == out.status && r.iterations > worst_iterations)) {
            out.status = r.status;
            out.stop_reason = r.stop_reason;
            worst_iterations = r.iterations;
        }
    }
}

std::vector<Island> World::Impl::find_step_islands(const MotionBounds& bounds) {
    const int B = model.num_bodies();
    BroadPhaseParams bp;
    bp.dhat = model.spec.contact.dhat;
    std::vector<std::uint8_t> is_static(static_cast<std::size_t>(B));
    for (int b = 0; b < B; ++b)
        is_static[static_cast<std::size_t>(b)] = !model.movable[static_cast<std::size_t>(b)];
    bp.body_pair_filter = contact_pair_filter(std::move(is_static), model.spec.contact.exclude);
    return find_islands(model.movable, whole->interacting_pairs(bounds.lo, bounds.hi, bp));
}

StepSystem& World::Impl::island_system(
    const std::vector<int>& bodies, std::map<std::vector<int>, std::unique_ptr<StepSystem>>& kept,
    const VecX& q) {
    if (auto k = kept.find(bodies); k != kept.end()) return *k->second;
    auto it = island_systems.find(bodies);
    std::unique_ptr<StepSystem> sys;
    if (it != island_systems.end()) {
        sys = std::move(it->second);
    } else {
        sys = std::make_unique<StepSystem>(model, bodies);
        // A new island (islands merged or split): its broad phase starts from the envelope of
        // the system, of this step or the last, that holds most of its bodies.
        if (const StepSystem* donor = donors.donor_for(bodies)) sys->adopt_broad_phase(*donor, q);
        donors.add(*sys);
    }
    StepSystem& ref = *sys;
    kept.emplace(bodies, std::move(sys));
    return ref;
}

SubstepOutcome World::Impl::advance(const WorldState& s, double h, double t_end) {
    SubstepOutcome out;
    const int B = model.num_bodies();
    const VecX& q = s.q;
    const VecX& q_dot = s.q_dot;
    VecX q_tilde = q, target = q;
    for (int b = 0; b < B; ++b) {
        const auto i = static_cast<std::size_t>(b);
        if (model.dynamic[i]) {
            q_tilde.segment<12>(12 * b) +=
                h * q_dot.segment<12>(12 * b) + h * h * external_acceleration[i];
            // Modal coordinates coast; loads reach them through the reduced inertia.
            if (const int o = model.modal_offset[i]; o >= 0) {
                const int m = model.bodies[i].modal->num_modes;
                q_tilde.segment(o, m) += h * q_dot.segment(o, m);
            }
        } else if (model.kinematic[i])
            target.segment<12>(12 * b) =
                kinematic_state(model.bodies[i].kinematic, model.bodies[i].q_initial, t_end);
    }
    const StepInput in{q, q_tilde, target, h, t_end, &s.contact_multipliers};

    std::vector<StepSystem*> systems;
    MotionBounds bounds;
    std::map<std::vector<int>, std::unique_ptr<StepSystem>> kept;
    donors.clear();
    donors.add(*whole);
    for (const auto& [key, sys] : island_systems) donors.add(*sys);
    const int num_movable =
        static_cast<int>(std::count(model.movable.begin(), model.movable.end(), true));
    // Joined bodies must be solved together; scenes with joints are solved as one system.
    if (params.islands && num_movable > 1 && q_tilde.allFinite() && model.joints.empty()) {
        const auto t0 = SolverClock::now();
        VecX q_predicted = q_tilde;
        for (int b = 0; b < B; ++b)
            if (model.kinematic[static_cast<std::size_t>(b)])
                q_predicted.segment<12>(12 * b) = target.segment<12>(12 * b);
        bounds = step_motion_bounds(model.surface, q, q_predicted, model.spec.contact.dhat);
        const std::vector<Island> islands = find_step_islands(bounds);
        if (islands.size() > 1)
            for (const Island& island : islands)
                systems.push_back(&island_system(island.bodies(), kept, q));
        out.t_islands = seconds_since(t0);
    }
    if (systems.empty()) {
        solve_systems({whole.get()}, in, s.barrier_stiffness, out);
        island_systems.clear();  // one island: the last step's island systems go (as below)
        return out;
    }
    solve_systems(systems, in, s.barrier_stiffness, out);
    // The islands were found assuming every vertex stays in its motion bounds; if one left
    // them, bodies of different islands may have come within dhat. Grow the bounds by the
    // motion the solves actually made, find the islands again (they can only merge) and
    // re-solve just the merged ones; the others keep their result, which is exact for them.
    // After a few rounds, or once everything is one island, solve the world as one system.
    constexpr int kMaxIslandRounds = 4;
    for (int round = 1;; ++round) {
        if (out.status == ConvergenceStatus::Diverged) break;
        const auto t0 = SolverClock::now();
        const bool contained = within_bounds(bounds, model.surface.positions(out.x));
        if (contained) {
            out.t_islands += seconds_since(t0);
            break;
        }
        out.island_fallback = true;
        std::vector<StepSystem*> merged;
        bool one_island = true;
        if (round < kMaxIslandRounds) {
            const MotionBounds reached =
                step_motion_bounds(model.surface, q, out.x, model.spec.contact.dhat);
            bounds.lo = bounds.lo.cwiseMin(reached.lo);
            bounds.hi = bounds.hi.cwiseMax(reached.hi);
            const std::vector<Island> islands = find_step_islands(bounds);
            one_island = islands.size() <= 1;
            if (!one_island)
                for (const Island& island : islands) {
                    const std::vector<int> key = island.bodies();
                    const bool solved =
                        std::find(out.island_bodies.begin(), out.island_bodies.end(),
                                  island.movable) != out.island_bodies.end();
                    if (!solved) merged.push_back(&island_system(key, kept, q));
                }
        }
        out.t_islands += seconds_since(t0);
        if (one_island) {
            // Everything is one island (or too many rounds): the world as one system.
            solve_systems({whole.get()}, in, s.barrier_stiffness, out);
            break;
        }
        // No island merged: every result lies in the grown bounds, which keep them apart.
        if (merged.empty()) break;
        solve_systems(merged, in, s.barrier_stiffness, out);
    }
    island_systems = std::move(kept);  // systems of islands that no longer exist go
    return out;
}

SubstepAttempt World::Impl::attempt(const WorldState& s, double dt, double t_end) {
    attempted = advance(s, dt, t_end);
    return {attempted.status, &attempted.x, attempted.kappa, &attempted.contact_multipliers};
}

// A retried attempt's work counts; the step's end quantities are those of the kept attempt.
void World::Impl::conclude(SubstepVerdict verdict) {
    record(attempted, verdict != SubstepVerdict::Retry);
}

// Folds a substep attempt into the step's statistics. Work counters add up over every
// attempt (retried ones included); the end-of-step quantities are those of the last attempt.
void World::Impl::record(const SubstepOutcome& o, bool final_attempt) {
    SolverStats& ss = solver_stats;
    double residual = 0.0;
    int contacts = 0, candidates = 0;
    double min_distance = std::numeric_limits<double>::infinity();
    ss.islands.clear();
    auto add_work = [&ss](const SystemStepResult& r) {
        ss.t_collision += r.t_collision;
        for (const NewtonStats& n : r.solves) {
            ss.line_search_trials += n.line_search_trials;
            ss.ccd_limited_steps += n.ccd_limited;
            ss.al_switches += n.al_switches;
            ss.linear_iterations += n.linear_iterations;
            ss.max_linear_residual = std::max(ss.max_linear_residual, n.max_linear_residual);
            ss.psd_retries += n.psd_retries;
            ss.fallback_directions += n.fallback_directions;
            ss.t_collision += n.t_collision;
            ss.t_assembly += n.t_assembly;
            ss.t_linear += n.t_linear;
            ss.t_line_search += n.t_line_search;
        }
    };
    for (std::size_t i = 0; i < o.results.size(); ++i) {
        const SystemStepResult& r = o.results[i];
        IslandStats is;
        is.bodies = o.island_bodies[i];
        is.status = r.status;
        is.stop_reason = r.stop_reason;
        is.solves = r.solves;
        is.iterations = r.iterations;
        is.contacts = r.contacts;
        is.min_distance = r.min_distance;
        ss.islands.push_back(std::move(is));
        contacts += r.contacts;
        candidates += r.candidates;
        min_distance = std::min(min_distance, r.min_distance);
        add_work(r);
        if (!r.solves.empty()) residual = std::max(residual, r.solves.back().final_residual());
    }
    // Solves replaced by a later round were done all the same.
    for (const SystemStepResult& r : o.discarded) {
        add_work(r);
        candidates = std::max(candidates, r.candidates);
    }
    ss.nonlinear_iterations += o.iterations;
    ss.island_fallback = ss.island_fallback || o.island_fallback;
    ss.t_islands += o.t_islands;
    if (final_attempt) {
        ss.status = worst(ss.status, o.status);
        if (o.status == ss.status) ss.stop_reason = o.stop_reason;
        ss.final_residual = residual;
        stats.contacts = contacts;
        stats.min_distance = min_distance;
        // Each pair belongs to one system (it involves a movable body, which is in exactly
        // one), so the systems' counts add up; static bodies collect theirs from every system.
        stats.body_contacts.assign(static_cast<std::size_t>(model.num_bodies()), 0);
        for (const SystemStepResult& r : o.results)
            add_body_contacts(r.body_contacts, stats.body_contacts);
        if (!model.joints.empty()) {
            JointStepStats js;
            for (const SystemStepResult& r : o.results) js.take_worst(r.joint_residual);
            stats.joints = js;
        }
    }
    stats.candidates = std::max(stats.candidates, candidates);
    stats.islands = static_cast<int>(o.results.size());
}

void World::Impl::log_step() const {
    if (params.verbosity == Verbosity::Silent) return;
    const SolverStats& ss = solver_stats;
    if (params.verbosity == Verbosity::Verbose) {
        for (std::size_t i = 0; i < ss.islands.size(); ++i) {
            const IslandStats& is = ss.islands[i];
            for (std::size_t s = 0; s < is.solves.size(); ++s) {
                const NewtonStats& n = is.solves[s];
                for (std::size_t k = 0; k < n.history.size(); ++k) {
                    const NewtonIteration& it = n.history[k];
                    spdlog::info(
                        "  island {} ({} bodies) solve {} iteration {}: residual {:.3e} |dq| "
                        "{:.3e} "
                        "ccd {:.3g} step {:.3g} trials {} linear {} x{} residual {:.2e}{}{}{}",
                        i, is.bodies.size(), s, k + 1, it.residual, it.direction_norm, it.max_step,
                        it.step, it.line_search_trials, to_string(it.linear_solver),
                        it.linear_iterations, it.linear_residual, it.psd_projected ? " psd" : "",
                        it.psd_retry ? " retried" : "", it.fallback_direction ? " fallback" : "");
                }
                spdlog::info("  island {} solve {}: {} ({}), residual {:.3e} after {} iterations",
                             i, s, to_string(n.status), to_string(n.stop_reason),
                             n.final_residual(), n.iterations);
            }
        }
    }
    spdlog::info(
        "step {} t={:.6g}: {} ({}), {} iterations, residual {:.3e}, {} island(s){}, "
        "{} substep(s), {} retries, {:.3g} ms",
        state().steps, state().time, to_string(ss.status), to_string(ss.stop_reason),
        ss.nonlinear_iterations, ss.final_residual, ss.islands.size(),
        ss.island_fallback ? " (fell back to one system)" : "", ss.substeps, ss.retries,
        1e3 * ss.t_total);
}

void World::Impl::step() {
    const auto t_start = SolverClock::now();
    stats = StepStats{};
    solver_stats = SolverStats{};
    solver_stats.islands_enabled = params.islands;
    deadline.reset();
    if (params.max_time > 0)
        deadline = t_start + std::chrono::duration_cast<SolverClock::duration>(
                                 std::chrono::duration<double>(params.max_time));
    const bool retry = params.on_failure == FailurePolicy::RetryHalving;
    // Stage 1: the fluid (forces on the bodies for this step). A step that leaves the bodies
    // where they were (Diverged) takes the fluid back too.
    std::optional<FluidState> fluid_before;
    std::optional<FluidStepStats> fluid_stats;
    if (fluid) {
        fluid_before = fluid->capture();
        fluid_stats = advance_fluid();
    }
    // Stage 2: the bodies.
    check_step_motion(model, stepper.state(), model.spec.time_step, external_acceleration);
    const int steps_before = stepper.state().steps;
    const StepSummary done =
        stepper.step(model.spec.time_step, {retry ? params.max_halvings : 0, retry}, *this);
    // Stage 3: the fluid against the bodies where they ended: particles the bodies' motion
    // left inside one go back outside, and whatever is still inside is counted.
    if (fluid) {
        const auto t0 = SolverClock::now();
        if (stepper.state().steps == steps_before) fluid->restore(*fluid_before);
        fluid_stats->pushed_out += fluid->settle(model, stepper.state().q);
        fluid_stats->particles_in_bodies = fluid->particles_in_bodies(model, stepper.state().q);
        const double t = seconds_since(t0);
        fluid_stats->t_coupling += t;
        fluid_stats->t_fluid += t;
    }
    solver_stats.substeps = done.substeps;
    solver_stats.retries = done.retries;
    const double smallest = done.smallest_time_step;
    SolverStats& ss = solver_stats;
    ss.smallest_time_step = smallest;
    ss.t_total = seconds_since(t_start);
    stats.status = ss.status;
    stats.stop_reason = ss.stop_reason;
    stats.converged = ss.status == ConvergenceStatus::Converged;
    stats.newton_iterations = ss.nonlinear_iterations;
    stats.residual = ss.final_residual;
    stats.barrier_stiffness = state().barrier_stiffness;
    stats.line_search_trials = ss.line_search_trials;
    stats.ccd_limited_steps = ss.ccd_limited_steps;
    stats.al_switches = ss.al_switches;
    stats.linear_solver_iterations = ss.linear_iterations;
    stats.substeps = std::max(1, ss.substeps);
    stats.retries = ss.retries;
    stats.time_step = smallest;
    stats.t_coll = ss.t_collision + ss.t_islands;
    stats.t_assembly = ss.t_assembly;
    stats.t_linear = ss.t_linear;
    stats.t_line_search = ss.t_line_search;
    stats.t_solve = ss.t_assembly + ss.t_linear + ss.t_line_search;
    stats.t_frame = ss.t_total;
    stats.fluid = fluid_stats;
    log_step();
}

World::World(const SceneSpec& spec) : impl_(std::make_unique<Impl>(spec)) {}
World::~World() = default;
World::World(World&&) noexcept = default;
World& World::operator=(World&&) noexcept = default;

const SceneSpec& World::spec() const {
    return impl_->model.spec;
}
int World::num_bodies() const {
    return impl_->model.num_bodies();
}
const AffineBody& World::body(int i) const {
    return impl_->model.bodies.at(static_cast<std::size_t>(i));
}
Vec12 World::q(int i) const {
    return impl_->state().q.segment<12>(12 * i);
}
Vec12 World::q_dot(int i) const {
    return impl_->state().q_dot.segment<12>(12 * i);
}
VecX World::modal_coordinates(int i) const {
    return impl_->model.modal_coordinates(impl_->state().q, i);
}
VecX World::state_row(int i) const {
    const VecX eta = modal_coordinates(i);
    VecX row(12 + eta.size());
    row << q(i), eta;
    return row;
}
Vertices World::world_vertices(int i) const {
    const AffineBody& b = body(i);
    Vertices x(b.mesh().num_vertices(), 3);
    const Vec12 qi = q(i);
    const VecX eta = modal_coordinates(i);
    for (int v = 0; v < b.mesh().num_vertices(); ++v) {
        Vec3 X = b.mesh().vertices.row(v).transpose();
        if (eta.size() > 0) X += b.modal->vertex_phi(v) * eta;
        x.row(v) = affine_apply(qi, X).transpose();
    }
    return x;
}
int World::num_joints() const {
    return static_cast<int>(impl_->model.joints.size());
}
const JointSpec& World::joint(int j) const {
    if (j < 0 || j >= num_joints())
        throw InputError("joint index " + std::to_string(j) + " out of range (the world has " +
                         std::to_string(num_joints()) + " joints)");
    return spec().joints[static_cast<std::size_t>(j)];
}
int World::joint_index(const std::string& name) const {
    const auto& joints = spec().joints;
    std::string known;
    for (std::size_t j = 0; j < joints.size(); ++j) {
        if (joints[j].name == name) return static_cast<int>(j);
        if (!joints[j].name.empty()) known += (known.empty() ? "" : ", ") + joints[j].name;
    }
    throw InputError("no joint named '" + name + "' (joints: " + (known.empty() ? "none" : known) +
                     ")");
}
namespace {
/// Joint j's coordinate at world state q through the whole system's joint energy (0 when the
/// joint has no movable body or no coordinate).
double joint_coordinate_at(const StepSystem& whole, int j, const VecX& q) {
    const int slot = whole.joint_slot(j);
    if (slot < 0 || !whole.joints()) return 0.0;
    VecX qs;
    whole.gather(q, qs);
    return whole.joints()->coordinate(static_cast<std::size_t>(slot), qs);
}
}  // namespace
double World::joint_position(int j) const {
    (void)joint(j);
    return joint_coordinate_at(*impl_->whole, j, impl_->state().q);
}
double World::joint_velocity(int j) const {
    (void)joint(j);
    // Central difference along q_dot over a tiny time: the derivative to rounding.
    const WorldState& s = impl_->state();
    const double e = 1e-4 * spec().time_step;
    const VecX ahead = s.q + e * s.q_dot, behind = s.q - e * s.q_dot;
    return (joint_coordinate_at(*impl_->whole, j, ahead) -
            joint_coordinate_at(*impl_->whole, j, behind)) /
           (2.0 * e);
}
void World::check_joint_target(int j, double target) const {
    const JointSpec& js = joint(j);
    if (!js.drive.enabled || !has_coordinate(js.type))
        throw InputError("joint '" + js.name + "' has no drive (give it one in the scene: a " +
                         "joint's \"drive\" or a robot's \"joint_targets\")");
    if (!std::isfinite(target))
        throw InputError("joint '" + js.name + "': the target must be finite");
}
void World::set_joint_target(int j, double target) {
    check_joint_target(j, target);
    const int slot = impl_->whole->joint_slot(j);
    if (slot >= 0) impl_->whole->joints()->set_drive_target(static_cast<std::size_t>(slot), target);
}
double World::time() const {
    return impl_->state().time;
}
int World::step_count() const {
    return impl_->state().steps;
}
double World::scene_scale() const {
    return impl_->model.scene_scale;
}
const SolverParams& World::solver_params() const {
    return impl_->params;
}
void World::set_solver_params(const SolverParams& params) {
    validate_solver_params(params);
    impl_->params = params;
}
const StepStats& World::step() {
    impl_->step();
    return impl_->stats;
}
const StepStats& World::last_stats() const {
    return impl_->stats;
}
const SolverStats& World::solver_stats() const {
    return impl_->solver_stats;
}
WorldState World::capture_state() const {
    WorldState s = impl_->state();
    if (impl_->fluid) s.fluid = impl_->fluid->capture();
    return s;
}
void World::restore_state(const WorldState& state) {
    const int particles = impl_->fluid ? impl_->fluid->num_particles() : 0;
    if (static_cast<int>(state.fluid.x.size()) != particles)
        throw InputError("world state has " + std::to_string(state.fluid.x.size()) +
                         " fluid particles, the world has " + std::to_string(particles));
    if (impl_->fluid) impl_->fluid->check(state.fluid);  // before anything changes
    WorldState bodies = state;
    bodies.fluid = {};
    impl_->stepper.restore(bodies);
    if (impl_->fluid) impl_->fluid->restore(state.fluid);
}
int World::num_fluid_particles() const {
    return impl_->fluid ? impl_->fluid->num_particles() : 0;
}
const FluidParticles* World::fluid_particles() const {
    return impl_->fluid ? &impl_->fluid->particles() : nullptr;
}
void World::save_state(const std::string& path) const {
    save_world_state(capture_state(), path);
}
void World::load_state(const std::string& path) {
    restore_state(load_world_state(path));
}
Checkpoint World::capture_checkpoint() const {
    Checkpoint c;
    c.world = capture_state();
    return c;
}
void World::restore_checkpoint(const Checkpoint& c) {
    restore_state(c.world);
}
const VecX& World::state_vector() const {
    return impl_->state().q;
}
const VecX& World::velocity_vector() const {
    return impl_->state().q_dot;
}

}  // namespace concord
