#include "concord/distributed/distributed_simulation.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "concord/body/body_builder.hpp"
#include "concord/distributed/anderson.hpp"
#include "concord/distributed/carried_contacts.hpp"
#include "concord/math/error.hpp"
#include "concord/scene/distributed_json.hpp"
#include "concord/world/step_sanity.hpp"
#include "concord/world/step_system.hpp"

namespace concord {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Adds one worker's share of Anderson's normal equations (m x m column-major, then m).
void add_anderson_share(const std::vector<double>& share, MatX& gram, VecX& rhs) {
    if (share.empty()) return;
    Eigen::Index m = 0;
    while (m * m + m < static_cast<Eigen::Index>(share.size())) ++m;
    if (m * m + m != static_cast<Eigen::Index>(share.size()) || (rhs.size() > 0 && rhs.size() != m))
        throw std::runtime_error("controller: inconsistent Anderson histories");
    if (rhs.size() == 0) {
        gram = MatX::Zero(m, m);
        rhs = VecX::Zero(m);
    }
    gram += Eigen::Map<const MatX>(share.data(), m, m);
    rhs += Eigen::Map<const VecX>(share.data() + m * m, m);
}

}  // namespace

struct DistributedSimulation::Outcome {
    bool failed = false;
    std::string why;  ///< when failed
    VecX x;
    double kappa = 0.0;
    std::vector<WorkerResult> results;
    AlContactMemory multipliers;  ///< augmented Lagrangian: the active sets the owners carry
    DistributedStepStats stats;
    int newton_iterations = 0;  ///< sum over iterations of the slowest worker's count
};

DistributedSimulation::DistributedSimulation(const WorldModel& model, Transport& transport)
    : model_(model), transport_(transport), stepper_(model.initial_world_state(), model.movable) {
    dspec_ = model_.spec.distributed;
    validate_distributed_spec(dspec_);
    if (transport_.num_workers() != dspec_.workers)
        throw InputError("distributed.workers is " + std::to_string(dspec_.workers) + " but " +
                         std::to_string(transport_.num_workers()) + " workers are running");
    params_ = resolve_solver_spec(model_.spec.solver);
    validate_solver_params(params_);
    w_min_ = std::numeric_limits<double>::infinity();
    for (int b = 0; b < model_.num_bodies(); ++b) {
        const auto i = static_cast<std::size_t>(b);
        rest_bounds_.push_back(rest_bound(model_.bodies[i]));
        if (model_.movable[i])
            w_min_ =
                std::min(w_min_, (rest_bounds_.back().box.hi - rest_bounds_.back().box.lo).norm());
    }
    if (!std::isfinite(w_min_)) w_min_ = model_.scene_scale;  // nothing moves
    if (dspec_.width_speed == WidthSpeed::Approach)
        approach_ = std::make_unique<ApproachSpeeds>(model_, rest_bounds_, current().q);
    // The fluid's layout is checked (InputError) before any worker hears of the run.
    if (!model_.spec.fluids.empty()) fluid_ = std::make_unique<FluidController>(model_, transport_);
    partition_ =
        starting_partition(fluid_ ? fluid_->initial_state().x : std::vector<Vec3>{});
    group_ = joint_groups(model_.joints, model_.movable);
    balancer_ = std::make_unique<LoadBalancer>(dspec_.load_balance, model_.scene_scale);
    assign();
    if (fluid_) fluid_->scatter(fluid_->initial_state(), partition_);
}

DistributedSimulation::~DistributedSimulation() {
    try {
        shutdown();
    } catch (...) {
    }
}

void DistributedSimulation::shutdown() {
    if (shut_down_) return;
    shut_down_ = true;
    for (int w = 1; w <= transport_.num_workers(); ++w)
        transport_.send(w, Tag::Command, encode(CommandKind::Shutdown));
}

void DistributedSimulation::set_solver_params(const SolverParams& p) {
    validate_solver_params(p);
    params_ = p;
}

void DistributedSimulation::set_reference(bool on) {
    if (!on) {
        reference_.reset();
        return;
    }
    SceneSpec single = model_.spec;
    single.distributed = DistributedSpec{};
    reference_ = std::make_unique<World>(single);
    // The workers' local solves stop by the scene's own criterion, as the reference does, so
    // that the MSE measures the consensus error.
    reference_->set_solver_params(params_);
}

Partition DistributedSimulation::starting_partition(const std::vector<Vec3>& fluid) const {
    const VecX& q = current().q;
    Box3 movable_box;
    std::vector<Vec3> centres;
    // The fluid's particles count like bodies' centres: the planes split the water too.
    for (const Vec3& x : fluid) {
        movable_box.extend(Box3{x, x});
        centres.push_back(x);
    }
    for (int b = 0; b < model_.num_bodies(); ++b) {
        const auto i = static_cast<std::size_t>(b);
        if (!model_.movable[i]) continue;
        const Box3 wb = world_box(rest_bounds_[i], Vec12(model_.body_coordinates(q, b).head<12>()));
        movable_box.extend(wb);
        centres.push_back(wb.center());
    }
    if (centres.empty()) movable_box.lo = movable_box.hi = Vec3::Zero();
    Partition p = initial_partition(dspec_, movable_box.lo, movable_box.hi, centres);
    if (planes_in_gaps()) seek_gaps(p, body_layout(), nullptr);
    return p;
}

BodyLayout DistributedSimulation::body_layout() const {
    const VecX& q = current().q;
    // Each movable body's extent along each axis, grown by half the overlap width of the next
    // step (where a plane makes it shared, Partition::holders), and its centre (its cell).
    BodyLayout layout;
    const std::vector<double> widths = overlap_widths_for(model_.spec.time_step);
    for (int b = 0; b < model_.num_bodies(); ++b) {
        const auto i = static_cast<std::size_t>(b);
        if (!model_.movable[i]) continue;
        const double w_half = 0.5 * widths[i];
        const Box3 box =
            world_box(model_.bodies[i], rest_bounds_[i], model_.body_coordinates(q, b));
        for (std::size_t a = 0; a < 3; ++a) {
            const auto k = static_cast<Eigen::Index>(a);
            layout.extents[a].emplace_back(box.lo[k] - w_half, box.hi[k] + w_half);
            layout.centres[a].push_back(0.5 * (box.lo[k] + box.hi[k]));
        }
    }
    return layout;
}

bool DistributedSimulation::planes_in_gaps() const {
    // With a fluid, a plane runs through water wherever it is, and moving it moves particles
    // between cells: the balancer's placement stands.
    return dspec_.plane_gaps && model_.spec.fluids.empty();
}

void DistributedSimulation::seek_gaps(Partition& p, const BodyLayout& bodies,
                                      const std::array<std::vector<double>, 3>* moved_from) const {
    const auto& extents = bodies.extents;
    const auto& centres = bodies.centres;
    for (std::size_t a = 0; a < 3; ++a) {
        auto& planes = p.planes[a];
        for (std::size_t j = 0; j < planes.size(); ++j) {
            if (moved_from && j < (*moved_from)[a].size() && (*moved_from)[a][j] != planes[j])
                continue;  // the balancer moves it: its moves stay its own
            // Within half the smallest body's box diagonal, and as far from its neighbours as
            // the balancer keeps it.
            double lo = planes[j] - 0.5 * w_min_, hi = planes[j] + 0.5 * w_min_;
            if (j > 0) lo = std::max(lo, planes[j - 1] + w_min_);
            if (j + 1 < planes.size()) hi = std::min(hi, planes[j + 1] - w_min_);
            if (moved_from) {
                // Held still: also between the body centres around it, so that no body changes
                // cell and the balancer's loads stay what it sees.
                for (double c : centres[a]) {
                    if (c <= planes[j]) lo = std::max(lo, c);
                    if (c > planes[j]) hi = std::min(hi, c);
                }
            }
            planes[j] = quietest_position(extents[a], planes[j], lo, hi);
        }
    }
}

namespace {

// 1: partition, balancer, carried multipliers per worker. 2: and after each worker's
// multipliers, the ids of its bodies that ended the step in contact (BodyRecord::supported).
// Format 1 is still read (every body then starts unsupported).
constexpr std::int32_t kCheckpointFormat = 2;

}  // namespace

Checkpoint DistributedSimulation::capture_checkpoint() {
    Checkpoint c;
    c.world = capture_world_state();
    c.simulator = "distributed";
    MessageWriter w;
    const int N = transport_.num_workers();
    w.put(kCheckpointFormat).put(static_cast<std::int32_t>(N));
    put_partition(w, partition_);
    const LoadBalancer::State lb = balancer_->state();
    w.put_list(lb.smoothed);
    for (int a = 0; a < 3; ++a) w.put_list(lb.previous_imbalance[static_cast<std::size_t>(a)]);
    const Bytes capture = encode(CommandKind::Capture);
    for (int k = 1; k <= N; ++k) transport_.send(k, Tag::Command, capture);
    for (int k = 1; k <= N; ++k) {
        const Bytes b = transport_.receive(k, Tag::State);
        MessageReader r(b);
        put_carried(w, get_carried(r));
        w.put_list(r.get_list<std::int32_t>());
    }
    c.extension = w.take();
    return c;
}

void DistributedSimulation::restore_checkpoint(const Checkpoint& c) {
    if (fluid_) fluid_->check(c.world.fluid);  // before anything changes
    stepper_.restore(c.world);
    const int N = transport_.num_workers();
    if (c.simulator == "distributed") {
        try {
            MessageReader r(c.extension);
            const auto format = r.get<std::int32_t>();
            if (format != 1 && format != kCheckpointFormat)
                throw InputError("checkpoint: unknown distributed section format");
            const int workers = r.get<std::int32_t>();
            Partition p = get_partition(r);
            LoadBalancer::State lb;
            lb.smoothed = r.get_list<double>();
            for (int a = 0; a < 3; ++a)
                lb.previous_imbalance[static_cast<std::size_t>(a)] = r.get_list<double>();
            if (workers < 1 || workers > 64)
                throw InputError("checkpoint: implausible worker count " + std::to_string(workers));
            std::vector<std::vector<CarriedMultiplier>> carry;
            std::vector<int> supported;
            for (int k = 0; k < workers; ++k) {
                carry.push_back(get_carried(r));
                for (const CarriedMultiplier& m : carry.back())
                    if (m.id < 0 || m.id >= model_.num_bodies() ||
                        m.lambda.size() != model_.body_dofs(m.id) || !m.lambda.allFinite() ||
                        !std::isfinite(m.rho))
                        throw InputError("checkpoint: a carried multiplier does not fit the scene");
                if (format == 1) continue;
                for (const std::int32_t id : r.get_list<std::int32_t>()) {
                    if (id < 0 || id >= model_.num_bodies())
                        throw InputError("checkpoint: a supported body does not fit the scene");
                    supported.push_back(id);
                }
            }
            std::sort(supported.begin(), supported.end());
            if (!r.done()) throw InputError("checkpoint: trailing data in the distributed section");
            if (workers == N && p.cells == partition_.cells) {
                for (int a = 0; a < 3; ++a)
                    if (static_cast<int>(p.planes[static_cast<std::size_t>(a)].size()) !=
                        p.cells[static_cast<std::size_t>(a)] - 1)
                        throw InputError("checkpoint: planes do not fit the cells");
                partition_ = std::move(p);
                balancer_->restore(std::move(lb));
                assign(carry, supported);
                if (fluid_) fluid_->scatter(c.world.fluid, partition_);
                return;
            }
        } catch (const std::runtime_error& e) {
            if (dynamic_cast<const InputError*>(&e)) throw;
            throw InputError(std::string("checkpoint: damaged distributed section (") + e.what() +
                             ")");
        }
    }
    // Another layout: the planes start afresh over the restored bodies.
    partition_ = starting_partition(c.world.fluid.x);
    balancer_ = std::make_unique<LoadBalancer>(dspec_.load_balance, model_.scene_scale);
    assign();
    if (fluid_) fluid_->scatter(c.world.fluid, partition_);
}

// Every movable body goes to the worker whose cell holds its box's centre; the bodies of a
// joint group go with the group's first body.
void DistributedSimulation::assign(const std::vector<std::vector<CarriedMultiplier>>& carry,
                                   const std::vector<int>& supported) {
    std::vector<AssignCommand> cmds(static_cast<std::size_t>(transport_.num_workers()));
    for (std::size_t w = 0; w < carry.size() && w < cmds.size(); ++w) cmds[w].carry = carry[w];
    std::vector<int> home(static_cast<std::size_t>(model_.num_bodies()), -1);
    std::vector<BodyRecord> records(static_cast<std::size_t>(model_.num_bodies()));
    for (int b = 0; b < model_.num_bodies(); ++b) {
        const auto i = static_cast<std::size_t>(b);
        if (!model_.movable[i]) continue;
        BodyRecord r;
        r.id = b;
        r.q = model_.body_coordinates(current().q, b);
        r.q_dot = model_.body_coordinates(current().q_dot, b);
        r.supported = std::binary_search(supported.begin(), supported.end(), b);
        records[i] = std::move(r);
    }
    // Augmented Lagrangian: the active set goes with the records as the workers would send it.
    attach_contact_multipliers(current().contact_multipliers, [&](int body) -> BodyRecord* {
        return body >= 0 && model_.movable[static_cast<std::size_t>(body)]
                   ? &records[static_cast<std::size_t>(body)]
                   : nullptr;
    });
    for (int b = 0; b < model_.num_bodies(); ++b) {
        const auto i = static_cast<std::size_t>(b);
        if (!model_.movable[i]) continue;
        BodyRecord& r = records[i];
        const int first = group_[i];  // <= b, so its home is known
        if (first == b)
            home[i] = partition_.worker_of_point(
                world_box(model_.bodies[i], rest_bounds_[i], r.q).center());
        r.home = home[static_cast<std::size_t>(first)];
        cmds[static_cast<std::size_t>(r.home)].bodies.push_back(std::move(r));
    }
    for (int w = 0; w < transport_.num_workers(); ++w)
        transport_.send(w + 1, Tag::Command, encode(cmds[static_cast<std::size_t>(w)]));
}

void DistributedSimulation::restore_state(const WorldState& s) {
    if (fluid_) fluid_->check(s.fluid);  // before anything changes
    stepper_.restore(s);
    assign();
    if (fluid_) fluid_->scatter(s.fluid, partition_);
}

std::vector<double> DistributedSimulation::overlap_widths_for(double h) const {
    const auto width = [&](double v) {
        return dspec_.width_rule == WidthRule::Paper
                   ? overlap_width(dspec_.alpha, v, h, w_min_)
                   : contact_overlap_width(dspec_.alpha, v, h, model_.spec.contact.dhat);
    };
    std::vector<double> speeds;
    if (approach_) {
        speeds = (*approach_)(current().q, current().q_dot, h, dspec_.alpha * h,
                              model_.spec.contact.dhat);
    } else {
        double v_max = 0.0;
        for (int b = 0; b < model_.num_bodies(); ++b)
            if (model_.movable[static_cast<std::size_t>(b)])
                v_max =
                    std::max(v_max, body_displacement(model_.bodies[static_cast<std::size_t>(b)],
                                                      model_.body_coordinates(current().q_dot, b)));
        speeds.assign(static_cast<std::size_t>(model_.num_bodies()), v_max);
    }
    std::vector<double> out(speeds.size());
    for (std::size_t b = 0; b < speeds.size(); ++b)
        out[b] = width(model_.movable[b] ? speeds[b] : 0.0);
    return out;
}

// A pair of movable bodies whose swept boxes came within dhat but that no worker held together
// was never checked by anyone: the step cannot be trusted (it never happens when the overlap
// region is wide enough, which the width rule is meant to ensure).
bool DistributedSimulation::partition_missed_a_pair(
    const VecX& x_end, const std::vector<std::uint64_t>& holders) const {
    struct Item {
        Box3 box;
        std::uint64_t holders;
    };
    std::vector<Item> items;
    for (int b = 0; b < model_.num_bodies(); ++b) {
        if (!model_.movable[static_cast<std::size_t>(b)]) continue;
        const AffineBody& body = model_.bodies[static_cast<std::size_t>(b)];
        const RestBound& rest = rest_bounds_[static_cast<std::size_t>(b)];
        Box3 box = world_box(body, rest, model_.body_coordinates(current().q, b));
        box.extend(world_box(body, rest, model_.body_coordinates(x_end, b)));
        box.inflate(0.5 * model_.spec.contact.dhat);
        items.push_back({box, holders[static_cast<std::size_t>(b)]});
    }
    std::sort(items.begin(), items.end(),
              [](const Item& a, const Item& b) { return a.box.lo.x() < b.box.lo.x(); });
    for (std::size_t i = 0; i < items.size(); ++i)
        for (std::size_t j = i + 1; j < items.size() && items[j].box.lo.x() <= items[i].box.hi.x();
             ++j)
            if ((items[i].holders & items[j].holders) == 0 && items[i].box.overlaps(items[j].box))
                return true;
    return false;
}

DistributedSimulation::Outcome DistributedSimulation::substep(double h, double t_end,
                                                              int substep_index) {
    Outcome out;
    const int N = transport_.num_workers();
    StepCommand cmd;
    cmd.h = h;
    cmd.t_end = t_end;
    cmd.kappa = current().barrier_stiffness;
    cmd.widths = overlap_widths_for(h);
    for (int b = 0; b < model_.num_bodies(); ++b)
        if (model_.movable[static_cast<std::size_t>(b)])
            cmd.width = std::max(cmd.width, cmd.widths[static_cast<std::size_t>(b)]);
    cmd.partition = partition_;
    cmd.params = params_;
    cmd.spec = dspec_;
    cmd.trace_states = trace_ && reference_ != nullptr;
    for (int w = 1; w <= N; ++w) transport_.send(w, Tag::Command, encode(cmd));

    // The reference solution of this step (trace with --reference), full steps only.
    std::optional<VecX> reference;
    if (cmd.trace_states && h == model_.spec.time_step) {
        WorldState s = capture_state();
        s.fluid = reference_fluid_;  // the fluid as the step found it
        s.time_step_level = 0;
        s.level_successes = 0;
        reference_->restore_state(s);
        reference_->step();
        VecX r(current().q.size());
        for (int b = 0; b < model_.num_bodies(); ++b) r.segment<12>(12 * b) = reference_->q(b);
        reference = r;
    }

    // IPC's barrier-stiffness initialisation over the whole scene: the workers' shares summed.
    double kappa = current().barrier_stiffness;
    {
        StiffnessBalance total;
        std::map<int, std::pair<VecX, VecX>> shared;  // body -> summed (g_rest, g_unit)
        for (int w = 1; w <= N; ++w) {
            const Bytes b = transport_.receive(w, Tag::Balance);
            MessageReader r(b);
            StiffnessBalance part;
            part.has_contacts = r.get<bool>();
            part.dot = r.get<double>();
            part.norm_sq = r.get<double>();
            total += part;
            const auto n = r.get<std::int64_t>();
            for (std::int64_t i = 0; i < n; ++i) {
                const int id = r.get<std::int32_t>();
                VecX g_rest = r.get_vector(), g_unit = r.get_vector();
                if (id < 0 || id >= model_.num_bodies() || g_rest.size() != model_.body_dofs(id) ||
                    g_unit.size() != g_rest.size())
                    throw std::runtime_error("controller: a stiffness share does not fit");
                auto [it, fresh] = shared.try_emplace(id, g_rest, g_unit);
                if (!fresh) {
                    it->second.first += g_rest;
                    it->second.second += g_unit;
                }
            }
        }
        for (const auto& [id, g] : shared) {
            total.dot += g.second.dot(g.first);
            total.norm_sq += g.second.squaredNorm();
        }
        kappa = starting_barrier_stiffness(model_, kappa, total);
        MessageWriter wr;
        wr.put(kappa);
        const Bytes msg = wr.take();
        for (int w = 1; w <= N; ++w) transport_.send(w, Tag::Stiffness, msg);
    }

    DistributedStepStats& ds = out.stats;
    ds.workers = N;
    ds.overlap_width = cmd.width;
    const double theta = consensus_threshold(dspec_, params_);
    const int lag_rounds =
        model_.has_friction ? std::max(1, model_.spec.contact.friction_iterations) : 1;
    std::vector<double> compute(static_cast<std::size_t>(N), 0.0);
    for (int round = 0; round < lag_rounds && !out.failed; ++round) {
        AndersonSafeguard safeguard;
        for (int k = 1;; ++k) {
            double dq = 0, r = 0, s = 0, toi = 1.0, kmax = kappa;
            MatX gram;  // Anderson's normal equations, summed over workers
            VecX rhs;
            bool rho_changed = false;
            double rho_min = std::numeric_limits<double>::infinity(), rho_max = 0, rho_sum = 0;
            int rho_count = 0, slowest_iterations = 0;
            double slowest = 0.0;
            bool any_failed = false, dq_pass = true;
            std::vector<BodyRecord> estimates;
            std::vector<double> worker_t(static_cast<std::size_t>(N), 0.0);
            std::vector<int> worker_newton(static_cast<std::size_t>(N), 0);
            std::vector<double> worker_dq(static_cast<std::size_t>(N), 0.0);
            for (int w = 1; w <= N; ++w) {
                WorkerReport rep = decode_report(transport_.receive(w, Tag::Report));
                if (rep.kind != ReportKind::Iteration)
                    throw std::runtime_error("controller: expected an iteration report");
                dq = std::max(dq, rep.dq);
                dq_pass = dq_pass && (rep.local_done || rep.dq < theta);
                r = std::max(r, rep.r);
                s = std::max(s, rep.s);
                toi = std::min(toi, rep.toi);
                kmax = std::max(kmax, rep.kappa);
                any_failed = any_failed || rep.failed;
                if (rep.rho_count > 0) {
                    rho_min = std::min(rho_min, rep.rho_min);
                    rho_max = std::max(rho_max, rep.rho_max);
                    rho_sum += rep.rho_sum;
                    rho_count += rep.rho_count;
                }
                slowest = std::max(slowest, rep.t_compute);
                slowest_iterations = std::max(slowest_iterations, rep.newton_iterations);
                compute[static_cast<std::size_t>(w - 1)] += rep.t_compute;
                worker_t[static_cast<std::size_t>(w - 1)] = rep.t_compute;
                worker_newton[static_cast<std::size_t>(w - 1)] = rep.newton_iterations;
                worker_dq[static_cast<std::size_t>(w - 1)] = rep.local_done ? 0.0 : rep.dq;
                for (BodyRecord& e : rep.estimates) estimates.push_back(e);
                rho_changed = rho_changed || rep.rho_changed;
                add_anderson_share(rep.anderson, gram, rhs);
            }
            ++ds.admm_iterations;
            ds.t_parallel += slowest;
            out.newton_iterations += slowest_iterations;
            const bool residuals_pass = dq_pass && r < theta && s < theta;
            ControllerSignal sig;
            sig.kappa = kmax;
            if (residuals_pass && toi >= 1.0) {
                sig.kind = SignalKind::Converged;
            } else if (any_failed || k >= dspec_.max_iterations) {
                sig.kind = SignalKind::Failed;
                out.failed = true;
                out.why = any_failed       ? "a local solve diverged"
                          : residuals_pass ? "the merge stayed blocked by CCD"
                                           : "ADMM did not converge in max_iterations";
            } else {
                sig.kind = SignalKind::Continue;
                if (residuals_pass) ++ds.merge_blocked;
                // Anderson: extrapolate while r + s does not grow; restart every history when
                // it grows or a penalty changed (the fixed-point map changed with it).
                if (dspec_.anderson_window > 0) {
                    const bool accepted = safeguard.accept(r + s) && !rho_changed;
                    if (!accepted) {
                        sig.anderson_restart = true;
                        ++ds.anderson_restarts;
                    } else if (rhs.size() > 0) {
                        const VecX gamma = anderson_coefficients(gram, rhs);
                        sig.gamma.assign(gamma.data(), gamma.data() + gamma.size());
                        if (!sig.gamma.empty()) ++ds.anderson_steps;
                    }
                }
            }
            kappa = kmax;
            ds.primal_residual = r;
            ds.dual_residual = s;
            if (trace_) {
                AdmmTraceLine line;
                line.step = current().steps;
                line.substep = substep_index;
                line.round = round;
                line.iteration = k;
                line.time_step = h;
                line.r = r;
                line.s = s;
                line.dq = dq;
                line.toi = toi;
                line.newton_iterations = slowest_iterations;
                line.t_compute = slowest;
                line.worker_t_compute = std::move(worker_t);
                line.worker_newton_iterations = std::move(worker_newton);
                line.worker_dq = std::move(worker_dq);
                if (rho_count > 0) {
                    line.rho_min = rho_min;
                    line.rho_max = rho_max;
                    line.rho_mean = rho_sum / rho_count;
                }
                if (reference && !estimates.empty()) {
                    double se = 0.0;
                    int n = 0;
                    for (const BodyRecord& e : estimates) {
                        se += (e.q.head<12>() - reference->segment<12>(12 * e.id)).squaredNorm();
                        n += 12;
                    }
                    line.mse = se / n;
                }
                line.decision = sig.kind == SignalKind::Converged ? "converged"
                                : sig.kind == SignalKind::Failed  ? "failed"
                                                                  : "continue";
                trace_(line);
            }
            const Bytes msg = encode(sig);
            for (int w = 1; w <= N; ++w) transport_.send(w, Tag::Signal, msg);
            if (sig.kind != SignalKind::Continue) break;
        }
    }
    if (!out.failed) {
        // Kinematic bodies snap onto their path only if every worker's CCD allows it.
        bool all_ok = true;
        for (int w = 1; w <= N; ++w) {
            const WorkerReport rep = decode_report(transport_.receive(w, Tag::Report));
            if (rep.kind != ReportKind::Snap)
                throw std::runtime_error("controller: expected a snap report");
            all_ok = all_ok && rep.ok;
        }
        ControllerSignal sig;
        sig.kind = all_ok ? SignalKind::Converged : SignalKind::Failed;
        sig.kappa = kappa;
        const Bytes msg = encode(sig);
        for (int w = 1; w <= N; ++w) transport_.send(w, Tag::Signal, msg);
    }

    // Gather: every movable body comes back from exactly one owner.
    out.x = current().q;
    out.kappa = kappa;
    std::vector<int> seen(static_cast<std::size_t>(model_.num_bodies()), 0);
    std::vector<std::uint64_t> holders(static_cast<std::size_t>(model_.num_bodies()), ~0ull);
    double t_sync = 0.0, slowest_setup = 0.0;
    for (int w = 1; w <= N; ++w) {
        WorkerResult res = decode_result(transport_.receive(w, Tag::Result));
        ds.owners.resize(static_cast<std::size_t>(model_.num_bodies()), -1);
        for (const BodyRecord& e : res.owned) {
            if (e.id < 0 || e.id >= model_.num_bodies() || e.q.size() != model_.body_dofs(e.id))
                throw std::runtime_error("controller: a body's end state does not fit the scene");
            ds.owners[static_cast<std::size_t>(e.id)] = w - 1;
            ++seen[static_cast<std::size_t>(e.id)];
            model_.set_body_coordinates(out.x, e.id, e.q);
            holders[static_cast<std::size_t>(e.id)] = e.holders;
        }
        out.kappa = std::max(out.kappa, res.kappa);
        t_sync = std::max(t_sync, res.t_sync);
        // The worker's compute outside the ADMM iterations (classification, the local
        // problem, the stiffness share, the end of the step): between synchronisations, so the
        // slowest worker's sets the pace.
        slowest_setup =
            std::max(slowest_setup, res.t_compute - compute[static_cast<std::size_t>(w - 1)]);
        WorkerStepStats ws;
        ws.bodies = res.bodies;
        ws.shared = res.shared;
        ws.owned = static_cast<int>(res.owned.size());
        ws.owned_mass = res.owned_mass;
        ws.newton_iterations = res.newton_iterations;
        ws.contacts = res.contacts;
        ws.island_rounds = res.island_rounds;
        ws.t_compute = res.t_compute;
        ws.t_sync = res.t_sync;
        ws.load = res.load;
        ds.per_worker.push_back(ws);
        out.failed = out.failed || res.failed;
        out.results.push_back(std::move(res));
    }
    for (int b = 0; b < model_.num_bodies(); ++b)
        if (model_.movable[static_cast<std::size_t>(b)] && seen[static_cast<std::size_t>(b)] != 1)
            throw std::logic_error("distributed step: body " + std::to_string(b) + " came back " +
                                   std::to_string(seen[static_cast<std::size_t>(b)]) + " times");
    if (model_.spec.contact.model != ContactModel::Barrier) {  // (hybrid: where it handed over)
        std::vector<BodyRecord> owned;
        for (const WorkerResult& r : out.results)
            owned.insert(owned.end(), r.owned.begin(), r.owned.end());
        out.multipliers = carried_contact_multipliers(owned);
    }
    ds.t_sync = t_sync;
    ds.t_parallel += slowest_setup + t_sync;
    if (!out.failed && partition_missed_a_pair(out.x, holders)) {
        out.failed = true;
        out.why = "two bodies came within dhat without a worker holding both";
    }
    return out;
}

SubstepAttempt DistributedSimulation::attempt(const WorldState& /*s*/, double dt, double t_end) {
    attempted_ = std::make_unique<Outcome>(substep(dt, t_end, attempts_++));
    Outcome& o = *attempted_;
    // Work adds up over every attempt; the end-of-step quantities are the last attempt's.
    DistributedStepStats& ds = *stats_.distributed;
    ds.workers = o.stats.workers;
    ds.admm_iterations += o.stats.admm_iterations;
    ds.merge_blocked += o.stats.merge_blocked;
    ds.anderson_steps += o.stats.anderson_steps;
    ds.anderson_restarts += o.stats.anderson_restarts;
    ds.primal_residual = o.stats.primal_residual;
    ds.owners = o.stats.owners;
    ds.overlap_width = o.stats.overlap_width;
    ds.dual_residual = o.stats.dual_residual;
    ds.t_sync += o.stats.t_sync;
    ds.t_parallel += o.stats.t_parallel;
    if (ds.per_worker.empty()) {
        ds.per_worker = o.stats.per_worker;
    } else {
        for (std::size_t w = 0; w < ds.per_worker.size(); ++w) {
            WorkerStepStats& a = ds.per_worker[w];
            const WorkerStepStats& b = o.stats.per_worker[w];
            a.bodies = b.bodies;
            a.shared = b.shared;
            a.owned = b.owned;
            a.owned_mass = b.owned_mass;
            a.contacts = b.contacts;
            a.newton_iterations += b.newton_iterations;
            a.t_compute += b.t_compute;
            a.t_sync += b.t_sync;
            a.load += b.load;
        }
    }
    for (std::size_t w = 0; w < loads_.size(); ++w) loads_[w] += o.stats.per_worker[w].load;
    stats_.newton_iterations += o.newton_iterations;
    for (const WorkerResult& r : o.results) {
        stats_.line_search_trials += r.line_search_trials;
        stats_.ccd_limited_steps += r.ccd_limited;
        stats_.al_switches += r.al_switches;
        stats_.linear_solver_iterations += r.linear_iterations;
        stats_.t_coll += r.t_collision;
        stats_.t_assembly += r.t_assembly;
        stats_.t_linear += r.t_linear;
        stats_.t_line_search += r.t_line_search;
    }
    stats_.contacts = 0;
    stats_.min_distance = std::numeric_limits<double>::infinity();
    // Every pair is counted by exactly one worker (admm_worker.cpp), per body too.
    stats_.body_contacts.assign(static_cast<std::size_t>(model_.num_bodies()), 0);
    if (!model_.joints.empty()) stats_.joints = JointStepStats{};
    for (const WorkerResult& r : o.results) {
        if (stats_.joints) stats_.joints->take_worst(r.joints);
        stats_.contacts += r.contacts;
        add_body_contacts(r.body_contacts, stats_.body_contacts);
        stats_.candidates = std::max(stats_.candidates, r.candidates);
        stats_.min_distance = std::min(stats_.min_distance, r.min_distance);
    }
    // A consensus that failed is never accepted, however small the step.
    return {o.failed ? ConvergenceStatus::Diverged : ConvergenceStatus::Converged, &o.x, o.kappa,
            &o.multipliers};
}

void DistributedSimulation::conclude(SubstepVerdict verdict) {
    const Bytes decision =
        encode(verdict == SubstepVerdict::Commit ? CommandKind::Commit : CommandKind::Discard);
    for (int w = 1; w <= transport_.num_workers(); ++w) transport_.send(w, Tag::Command, decision);
}

// The step gave up after committing some substeps: the workers go back to the step's start.
void DistributedSimulation::restored(const WorldState& /*s*/) {
    assign();
}

const StepStats& DistributedSimulation::step() {
    const auto t_start = Clock::now();
    stats_ = StepStats{};
    stats_.distributed = DistributedStepStats{};
    attempts_ = 0;
    loads_.assign(static_cast<std::size_t>(transport_.num_workers()), 0.0);
    const double h = model_.spec.time_step;
    // Stage 1: the fluid, split over the workers like the bodies (forces on the bodies for
    // this step; every worker adds them to its bodies' predictions).
    std::vector<Vec12> acceleration = model_.initial_external_acceleration;
    std::optional<FluidStepStats> fluid_stats;
    if (fluid_) {
        // --admm-trace --reference: the single-machine reference step starts from here too.
        if (trace_ && reference_) reference_fluid_ = fluid_->capture();
        FluidStepStats fs;
        std::vector<double> work, seconds;
        const std::vector<Vec12> impulse =
            fluid_->advance(current(), h, partition_, fs, work, seconds);
        for (std::size_t i = 0; i < impulse.size(); ++i)
            if (model_.dynamic[i]) acceleration[i] += model_.masses[i].ldlt().solve(impulse[i]) / h;
        // The planes balance the fluid's work too: its time, or its particle-steps in the
        // units of the bodies' work count (kParticleStepLoad, docs/fluids.md).
        const bool by_time = dspec_.load_balance.measure == LoadMeasure::Time;
        for (std::size_t w = 0; w < loads_.size(); ++w)
            loads_[w] += by_time ? seconds[w] : kParticleStepLoad * work[w];
        fluid_stats = fs;
    }
    // Stage 2: the bodies.
    check_step_motion(model_, current(), h, acceleration);
    // A step that does not converge or cannot merge is always retried with half the time step
    // (never accepted), up to max_halvings times.
    const StepSummary done =
        stepper_.step(model_.spec.time_step, {params_.max_halvings, false}, *this);
    attempted_.reset();
    if (done.gave_up) {
        stats_.status = ConvergenceStatus::Diverged;
        stats_.stop_reason = StopReason::MaxIterations;
    } else {
        if (planes_in_gaps()) {
            const BodyLayout bodies = body_layout();
            const std::array<std::vector<double>, 3> before = partition_.planes;
            const bool by_gaps = dspec_.load_balance.moves == PlaneMoves::Gaps;
            balancer_->update(loads_, partition_, w_min_, by_gaps ? &bodies : nullptr);
            seek_gaps(partition_, bodies, &before);
        } else {
            balancer_->update(loads_, partition_, w_min_);
        }
    }
    // Stage 3: the fluid against the bodies where they ended; a step not taken takes the
    // fluid back too.
    if (fluid_) {
        const auto t0 = Clock::now();
        if (done.gave_up) fluid_->restore();
        fluid_stats->pushed_out += fluid_->settle(current().q, fluid_stats->particles_in_bodies);
        const double t = seconds_since(t0);
        fluid_stats->t_coupling += t;
        fluid_stats->t_fluid += t;
        stats_.fluid = fluid_stats;
        // The fluid stage in the modelled parallel time: each part's slowest worker.
        stats_.distributed->t_parallel +=
            fluid_->t_parallel_of_last() + fluid_->t_parallel_of_settle();
        stats_.distributed->t_sync += fluid_->t_sync_of_last();
    }
    stats_.converged = !done.gave_up;
    stats_.barrier_stiffness = current().barrier_stiffness;
    stats_.substeps = std::max(1, done.substeps);
    stats_.retries = done.retries;
    stats_.time_step = done.smallest_time_step;
    stats_.t_solve = stats_.t_assembly + stats_.t_linear + stats_.t_line_search;
    stats_.t_frame = seconds_since(t_start);
    DistributedStepStats& ds = *stats_.distributed;
    for (int a = 0; a < 3; ++a) ds.planes.push_back(partition_.planes[static_cast<std::size_t>(a)]);
    return stats_;
}

}  // namespace concord
