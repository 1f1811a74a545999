#include "concord/distributed/admm_worker.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "concord/distributed/local_problem.hpp"
#include "concord/distributed/penalty.hpp"
#include "concord/math/error.hpp"
#include "concord/world/kinematic_motion.hpp"

namespace concord {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::vector<int> workers_in(std::uint64_t mask) {
    std::vector<int> out;
    for (int w = 0; mask != 0; ++w, mask >>= 1)
        if (mask & 1) out.push_back(w);
    return out;
}

// One replica's contribution to a shared body's consensus.
struct Replica {
    int worker;
    Vec12 q, u;
    double rho;
};

// A shared body on this worker during one step's ADMM.
struct SharedBody {
    int local;  ///< index in the local system
    int id;
    std::uint64_t holders;
    Vec12 z = Vec12::Zero(), u = Vec12::Zero();
    double rho = 0.0, rho0 = 0.0;
    double r = 0.0, s = 0.0;  ///< residual norms of the last iteration (displacement units)
    std::vector<Replica> replicas;
    /// Spectral rule: this replica's grad F_i(q) and -rho u after the last iteration, and the
    /// iterates (q, grad, z, -rho u) at the last estimate (iteration `snapshot_k`).
    Vec12 grad = Vec12::Zero(), lambda = Vec12::Zero();
    bool has_snapshot = false;
    int snapshot_k = 0;
    Vec12 q_s = Vec12::Zero(), grad_s = Vec12::Zero(), z_s = Vec12::Zero(),
          lambda_s = Vec12::Zero();
};

// How often the spectral rule re-estimates rho (Xu et al. 2017 use every other iteration).
constexpr int kSpectralPeriod = 2;

}  // namespace

struct AdmmWorker::LocalSystem {
    std::unique_ptr<StepSystem> system;
    ConsensusEnergy consensus;
};

AdmmWorker::AdmmWorker(const WorldModel& model, Transport& transport)
    : model_(model), transport_(transport) {
    if (model_.state_size != 12 * model_.num_bodies() || !model_.joints.empty())
        throw InputError("distributed runs do not support elastic bodies or joints yet (run "
                         "this scene on one machine)");
    for (int b = 0; b < model_.num_bodies(); ++b) {
        rest_boxes_.push_back(rest_box(model_.bodies[static_cast<std::size_t>(b)]));
        if (!model_.movable[static_cast<std::size_t>(b)]) static_bodies_.push_back(b);
    }
}

AdmmWorker::~AdmmWorker() = default;

void AdmmWorker::serve() {
    for (;;) {
        const Bytes b = transport_.receive(0, Tag::Command);
        MessageReader r(b);
        switch (decode_command_kind(r)) {
            case CommandKind::Assign: {
                owned_.clear();
                carry_.clear();  // a new assignment (start, restore) starts ADMM cold
                for (const BodyRecord& rec : decode_assign(r).bodies) owned_[rec.id] = rec;
                break;
            }
            case CommandKind::Step: step(decode_step(r)); break;
            case CommandKind::Shutdown: return;
            default: throw std::runtime_error("worker: unexpected command outside a step");
        }
    }
}

Vec12 AdmmWorker::predicted(const BodyRecord& b, double h, double t_end) const {
    const auto i = static_cast<std::size_t>(b.id);
    if (model_.kinematic[i])
        return kinematic_state(model_.bodies[i].kinematic, model_.bodies[i].q_initial, t_end);
    return b.q + h * b.q_dot + h * h * model_.initial_external_acceleration[i];
}

AdmmWorker::LocalSystem& AdmmWorker::local_system(const std::vector<int>& bodies,
                                                  const std::vector<std::uint64_t>& holders) {
    auto key = std::make_pair(bodies, holders);
    auto it = systems_.find(key);
    if (it != systems_.end()) return *it->second;
    SystemReplication rep;
    for (std::size_t k = 0; k < bodies.size(); ++k) {
        const bool movable = model_.movable[static_cast<std::size_t>(bodies[k])];
        rep.body_weight.push_back(movable ? 1.0 / std::popcount(holders[k]) : 1.0);
    }
    rep.contacts.holders = holders;
    auto ls = std::make_unique<LocalSystem>();
    ls->system = std::make_unique<StepSystem>(model_, bodies, nullptr, &rep);
    ls->system->add_term(ls->consensus);
    // Keep the systems of the last few assignments only (bodies move on).
    if (systems_.size() >= 4) systems_.erase(systems_.begin());
    return *systems_.emplace(std::move(key), std::move(ls)).first->second;
}

void AdmmWorker::step(const StepCommand& cmd) {
    double t_compute = 0.0, t_pack = 0.0;
    const double transfer0 = transport_.transfer_seconds();
    const int N = transport_.num_workers();
    const int me = self();
    const double h = cmd.h;
    const double hl = h * model_.scene_scale;
    const double w_half = 0.5 * cmd.width;
    const std::uint64_t everyone = N >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << N) - 1;

    // 1. Classify the owned bodies and send each to the workers that hold it this step.
    auto t0 = Clock::now();
    std::vector<std::vector<BodyRecord>> outgoing(static_cast<std::size_t>(N));
    std::vector<BodyRecord> held;
    for (const auto& [id, rec] : owned_) {
        const Box3& rest = rest_boxes_[static_cast<std::size_t>(id)];
        const Box3 start = world_box(rest, rec.q);
        Box3 swept = start;
        swept.extend(world_box(rest, predicted(rec, h, cmd.t_end)));
        BodyRecord out = rec;
        out.holders = cmd.partition.holders(swept.lo, swept.hi, w_half);
        out.home = cmd.partition.worker_of_point(start.center());
        for (int w : workers_in(out.holders)) {
            if (w == me) {
                held.push_back(out);
            } else {
                outgoing[static_cast<std::size_t>(w)].push_back(out);
            }
        }
    }
    t_compute += seconds_since(t0);
    for (int j = 0; j < N; ++j) {
        if (j == me) continue;
        const auto tp = Clock::now();
        MessageWriter w;
        put_records(w, outgoing[static_cast<std::size_t>(j)]);
        t_pack += seconds_since(tp);
        transport_.send(j + 1, Tag::Bodies, w.take());
    }
    for (int j = 0; j < N; ++j) {
        if (j == me) continue;
        const Bytes b = transport_.receive(j + 1, Tag::Bodies);
        const auto tp = Clock::now();
        MessageReader r(b);
        for (BodyRecord& rec : get_records(r)) held.push_back(rec);
        t_pack += seconds_since(tp);
    }
    t0 = Clock::now();
    std::sort(held.begin(), held.end(),
              [](const BodyRecord& a, const BodyRecord& b) { return a.id < b.id; });

    // 2. The local problem: held bodies and every static body, in world order.
    std::vector<int> ids;
    std::vector<std::uint64_t> masks;
    {
        std::size_t a = 0, s = 0;
        while (a < held.size() || s < static_bodies_.size()) {
            const bool take_held =
                s == static_bodies_.size() ||
                (a < held.size() && held[a].id < static_bodies_[s]);
            if (take_held) {
                ids.push_back(held[a].id);
                masks.push_back(held[a].holders);
                ++a;
            } else {
                ids.push_back(static_bodies_[s]);
                masks.push_back(everyone);
                ++s;
            }
        }
    }
    LocalSystem& ls = local_system(ids, masks);
    StepSystem& sys = *ls.system;
    const int B = model_.num_bodies();
    VecX q(12 * B), q_tilde(12 * B), target(12 * B);
    for (int b = 0; b < B; ++b) {
        q.segment<12>(12 * b) = model_.bodies[static_cast<std::size_t>(b)].q_initial;
    }
    q_tilde = q;
    target = q;
    std::map<int, const BodyRecord*> record_of;
    for (const BodyRecord& rec : held) {
        record_of[rec.id] = &rec;
        q.segment<12>(12 * rec.id) = rec.q;
        const Vec12 p = predicted(rec, h, cmd.t_end);
        if (model_.kinematic[static_cast<std::size_t>(rec.id)]) {
            q_tilde.segment<12>(12 * rec.id) = rec.q;
            target.segment<12>(12 * rec.id) = p;
        } else {
            q_tilde.segment<12>(12 * rec.id) = p;
        }
    }
    const StepInput in{q, q_tilde, target, h, 0.0};
    ls.consensus.set_terms({});  // the balance is of the step's objective alone
    const StiffnessBalance balance = sys.prepare(in, cmd.kappa);
    // IPC's balance kappa = -g_B . g_E / |g_B|^2 over the whole scene. A shared body's
    // gradients are split across its holders, so its pieces go to the controller to be summed
    // per body first; internal bodies' terms are summed here.
    {
        VecX g_rest, g_unit;
        sys.start_gradients(g_rest, g_unit);
        double dot = 0.0, norm_sq = 0.0;
        MessageWriter w;
        std::vector<int> shared_ids;
        for (std::size_t k = 0; k < ids.size(); ++k) {
            if (!model_.movable[static_cast<std::size_t>(ids[k])]) continue;
            const auto o = 12 * static_cast<Eigen::Index>(k);
            if (std::popcount(masks[k]) > 1) {
                shared_ids.push_back(static_cast<int>(k));
                continue;
            }
            dot += g_unit.segment<12>(o).dot(g_rest.segment<12>(o));
            norm_sq += g_unit.segment<12>(o).squaredNorm();
        }
        w.put(balance.has_contacts).put(dot).put(norm_sq);
        w.put(static_cast<std::int64_t>(shared_ids.size()));
        for (int k : shared_ids)
            w.put(static_cast<std::int32_t>(ids[static_cast<std::size_t>(k)]))
                .put_vec12(g_rest.segment<12>(12 * k))
                .put_vec12(g_unit.segment<12>(12 * k));
        t_compute += seconds_since(t0);
        transport_.send(0, Tag::Balance, w.take());
    }
    double kappa = [&] {
        const Bytes b = transport_.receive(0, Tag::Stiffness);
        MessageReader r(b);
        return r.get<double>();
    }();

    // 3. Consensus ADMM.
    t0 = Clock::now();
    std::vector<SharedBody> shared;
    for (std::size_t k = 0; k < ids.size(); ++k) {
        const auto i = static_cast<std::size_t>(ids[k]);
        if (!model_.movable[i] || std::popcount(masks[k]) < 2) continue;
        SharedBody sb;
        sb.local = static_cast<int>(k);
        sb.id = ids[k];
        sb.holders = masks[k];
        shared.push_back(sb);
    }
    // Neighbours this step, and the shared bodies each of them holds too (in id order).
    std::vector<int> neighbours;
    {
        std::uint64_t any = 0;
        for (const SharedBody& sb : shared) any |= sb.holders;
        for (int w : workers_in(any))
            if (w != me) neighbours.push_back(w);
    }
    std::vector<std::vector<std::size_t>> common(neighbours.size());
    for (std::size_t n = 0; n < neighbours.size(); ++n)
        for (std::size_t e = 0; e < shared.size(); ++e)
            if (shared[e].holders >> neighbours[n] & 1) common[n].push_back(e);

    // Initial penalties: for the stiffness rule, lambda_max of the body's Hessian block at the
    // step's start (PSD-projected, as the solver sees it).
    if (cmd.spec.penalty == PenaltyRule::Stiffness && !shared.empty()) {
        Triplets H;
        sys.hessian_triplets(sys.start(), H);
        std::vector<Mat12> blocks(shared.size(), Mat12::Zero());
        std::map<int, std::size_t> slot;
        for (std::size_t e = 0; e < shared.size(); ++e) slot[shared[e].local] = e;
        for (const auto& t : H) {
            const int br = t.row() / 12, bc = t.col() / 12;
            if (br != bc) continue;
            auto it = slot.find(br);
            if (it != slot.end()) blocks[it->second](t.row() % 12, t.col() % 12) += t.value();
        }
        for (std::size_t e = 0; e < shared.size(); ++e) {
            Eigen::SelfAdjointEigenSolver<Mat12> eig(blocks[e], Eigen::EigenvaluesOnly);
            shared[e].rho0 = initial_penalty(cmd.spec, 0.0, eig.eigenvalues().maxCoeff());
        }
    } else {
        for (SharedBody& sb : shared)
            sb.rho0 = initial_penalty(
                cmd.spec, model_.bodies[static_cast<std::size_t>(sb.id)].mass_properties.mass, 0.0);
    }
    for (SharedBody& sb : shared)
        if (!(sb.rho0 > 0)) sb.rho0 = 1.0;  // a degenerate block: fall back to unit penalty
    t_compute += seconds_since(t0);

    auto radius = [&](int id) { return model_.bodies[static_cast<std::size_t>(id)].bounding_radius; };
    // Local solves stop by the scene's own criterion, as the single-machine solve does. A
    // worker with shared bodies takes at least one Newton update per ADMM iteration: its
    // problem moved with z and u, possibly by less than its tolerance, and a solve that stopped
    // at once would never follow the anchor (ADMM would stall). Inexact local solves: at most
    // `local_iterations` warm-started updates per ADMM iteration, so that consensus and the
    // local Newton converge together. A worker without shared bodies does not depend on z and
    // solves to convergence at once.
    SolverParams local = cmd.params;
    if (!shared.empty()) {
        local.min_iterations = 1;
        if (cmd.spec.local_iterations > 0)
            local.max_iterations = std::min(local.max_iterations, cmd.spec.local_iterations);
    }
    // The local problem, split by islands with distributed.local_islands: those without a
    // shared body are then solved once per lag round.
    std::vector<int> shared_local;
    for (const SharedBody& sb : shared) shared_local.push_back(sb.local);
    LocalProblem problem(model_, sys, ls.consensus, ids, masks, shared_local, in, kappa,
                         cmd.spec.local_islands, broad_phase_);
    VecX x = sys.start();
    bool failed = false;
    int newton_iterations = 0;
    double load = 0.0;
    WorkerResult result;
    const int lag_rounds =
        model_.has_friction ? std::max(1, model_.spec.contact.friction_iterations) : 1;
    for (int round = 0; round < lag_rounds && !failed; ++round) {
        t0 = Clock::now();
        problem.start_round(x, kappa);  // friction's normal forces at the step's stiffness
        for (SharedBody& sb : shared) {
            // z^1 = q~ (the paper's initial consensus); later lag rounds restart from the merge.
            sb.z = round == 0 ? predicted(*record_of.at(sb.id), h, cmd.t_end)
                              : Vec12(x.segment<12>(12 * sb.local));
            sb.u.setZero();
            sb.rho = sb.rho0;
            sb.has_snapshot = false;
            // A body shared by the same workers as in the last step starts from that step's
            // penalty and multiplier (rho u, the force this worker's share needed to agree).
            if (round == 0 && cmd.spec.warm_start)
                if (auto c = carry_.find(sb.id); c != carry_.end() && c->second.holders == sb.holders) {
                    if (cmd.spec.warm_start_penalty) sb.rho = c->second.rho;
                    sb.u = c->second.lambda / sb.rho;
                }
        }
        int local_round_iterations = 0;  // Newton iterations of this lag round's local solves
        t_compute += seconds_since(t0);
        for (int k = 1;; ++k) {
            t0 = Clock::now();
            std::vector<ConsensusTerm> terms;
            for (const SharedBody& sb : shared) terms.push_back({sb.local, sb.rho, sb.z - sb.u});
            const NewtonStats st = problem.solve(x, kappa, terms, local, cmd.params);
            const NewtonStats& st_internal = problem.internal_stats();
            for (const NewtonStats* s : {&st, &st_internal}) {
                newton_iterations += s->iterations;
                result.line_search_trials += s->line_search_trials;
                result.ccd_limited += s->ccd_limited;
                result.linear_iterations += s->linear_iterations;
                result.t_collision += s->t_collision;
                result.t_assembly += s->t_assembly;
                result.t_linear += s->t_linear;
                result.t_line_search += s->t_line_search;
            }
            load += st.iterations *
                        static_cast<double>(problem.solved_bodies() + problem.solved_contacts()) +
                    st_internal.iterations *
                        static_cast<double>(problem.internal_bodies() + problem.internal_contacts());
            double t_iter = seconds_since(t0);

            // Exchange (q, u, rho) of shared bodies with the neighbours holding them too.
            auto tp = Clock::now();
            for (std::size_t n = 0; n < neighbours.size(); ++n) {
                MessageWriter w;
                for (std::size_t e : common[n]) {
                    const SharedBody& sb = shared[e];
                    w.put_vec12(x.segment<12>(12 * sb.local)).put_vec12(sb.u).put(sb.rho);
                }
                t_pack += seconds_since(tp);
                transport_.send(neighbours[n] + 1, Tag::Shared, w.take());
                tp = Clock::now();
            }
            for (SharedBody& sb : shared) {
                sb.replicas.clear();
                sb.replicas.push_back({me, x.segment<12>(12 * sb.local), sb.u, sb.rho});
            }
            t_pack += seconds_since(tp);
            for (std::size_t n = 0; n < neighbours.size(); ++n) {
                const Bytes b = transport_.receive(neighbours[n] + 1, Tag::Shared);
                tp = Clock::now();
                MessageReader r(b);
                for (std::size_t e : common[n]) {
                    Replica rep;
                    rep.worker = neighbours[n];
                    rep.q = r.get_vec12();
                    rep.u = r.get_vec12();
                    rep.rho = r.get<double>();
                    shared[e].replicas.push_back(rep);
                }
                t_pack += seconds_since(tp);
            }
            // Consensus (Eq. 6), dual update (Eq. 7) and residuals (Eq. 9-10). Every holder
            // sums the replicas in worker order, so all of them compute the same z bit for bit.
            t0 = Clock::now();
            WorkerReport rep;
            rep.kind = ReportKind::Iteration;
            rep.rho_min = std::numeric_limits<double>::infinity();
            for (SharedBody& sb : shared) {
                std::sort(sb.replicas.begin(), sb.replicas.end(),
                          [](const Replica& a, const Replica& b) { return a.worker < b.worker; });
                Vec12 num = Vec12::Zero();
                double den = 0.0;
                for (const Replica& rp : sb.replicas) {
                    num += rp.rho * (rp.q + rp.u);
                    den += rp.rho;
                }
                const Vec12 z_new = num / den;
                sb.s = affine_displacement(z_new - sb.z, radius(sb.id));
                sb.r = 0.0;
                for (const Replica& rp : sb.replicas)
                    sb.r = std::max(sb.r, affine_displacement(rp.q - z_new, radius(sb.id)));
                const Vec12 q_b = x.segment<12>(12 * sb.local);
                sb.grad = -sb.rho * (sb.u + q_b - sb.z);  // the local optimality condition
                sb.u += q_b - z_new;
                sb.lambda = -sb.rho * sb.u;
                sb.z = z_new;
                rep.r = std::max(rep.r, sb.r / hl);
                rep.s = std::max(rep.s, sb.s / hl);
                rep.rho_min = std::min(rep.rho_min, sb.rho);
                rep.rho_max = std::max(rep.rho_max, sb.rho);
                rep.rho_sum += sb.rho;
                ++rep.rho_count;
            }
            if (shared.empty()) rep.rho_min = 0.0;
            // Eq. 8's |dq|: the last Newton update of the local solve, as taken (direction
            // times accepted step, over h l; 0 when no update was taken). The test passes when
            // it is below theta, or when the local solve is done by the scene's own measure.
            rep.dq = st.history.empty()
                         ? 0.0
                         : st.history.back().step * st.history.back().step_measure;
            local_round_iterations += st.iterations;
            rep.local_done = st.status == ConvergenceStatus::Converged ||
                             st.stop_reason == StopReason::NoImprovement ||
                             st.stop_reason == StopReason::RelativeStep ||
                             local_round_iterations >= cmd.params.max_iterations;
            // Merge check (Sec. 4.2): CCD from q_i to q^_i, only once the residuals pass
            // (otherwise the controller cannot end the loop anyway).
            VecX x_hat = x;
            for (const SharedBody& sb : shared) x_hat.segment<12>(12 * sb.local) = sb.z;
            const double theta = consensus_threshold(cmd.spec, cmd.params);
            if ((rep.local_done || rep.dq < theta) && rep.r < theta && rep.s < theta)
                rep.toi = sys.ccd_fraction(x, x_hat);
            rep.kappa = problem.barrier_stiffness();
            rep.failed = st.status == ConvergenceStatus::Diverged ||
                         st_internal.status == ConvergenceStatus::Diverged;
            rep.newton_iterations = st.iterations + st_internal.iterations;
            if (cmd.trace_states) {
                for (const BodyRecord& b : held) {
                    if (b.home != me) continue;
                    BodyRecord e = b;
                    const auto it = std::find(ids.begin(), ids.end(), b.id);
                    e.q = x_hat.segment<12>(12 * (it - ids.begin()));
                    rep.estimates.push_back(e);
                }
            }
            t_iter += seconds_since(t0);
            t_compute += t_iter;
            rep.t_compute = t_iter;
            transport_.send(0, Tag::Report, encode(rep));
            const ControllerSignal sig = decode_signal(transport_.receive(0, Tag::Signal));
            kappa = sig.kappa;
            if (sig.kind == SignalKind::Converged) {
                x = x_hat;
                break;
            }
            if (sig.kind == SignalKind::Failed) {
                failed = true;
                break;
            }
            // Penalty adaptation: Eq. 12 and its normalised variant (every holder sees the same
            // r_b and s_b, so all make the same decision), or each replica's spectral estimate.
            for (SharedBody& sb : shared) {
                PenaltyUpdate up{sb.rho, 1.0};
                if (cmd.spec.adapt_rule == AdaptRule::Spectral) {
                    const Vec12 q_b = x.segment<12>(12 * sb.local);
                    if (sb.has_snapshot && k - sb.snapshot_k < kSpectralPeriod) continue;
                    if (sb.has_snapshot)
                        up = spectral_penalty(cmd.spec, sb.rho, sb.rho0,
                                              {q_b - sb.q_s, sb.grad - sb.grad_s, sb.z - sb.z_s,
                                               sb.lambda - sb.lambda_s});
                    sb.has_snapshot = true;
                    sb.snapshot_k = k;
                    sb.q_s = q_b;
                    sb.grad_s = sb.grad;
                    sb.z_s = sb.z;
                    sb.lambda_s = sb.lambda;
                } else {
                    up = adapt_penalty(cmd.spec, sb.rho, sb.rho0, sb.r, sb.s);
                }
                sb.rho = up.rho;
                sb.u *= up.u_scale;
            }
        }
    }

    // 4. Kinematic bodies onto their prescribed pose, when no worker's CCD objects.
    if (!failed) {
        t0 = Clock::now();
        std::optional<VecX> snapped = sys.snapped_kinematic(x);
        t_compute += seconds_since(t0);
        WorkerReport rep;
        rep.kind = ReportKind::Snap;
        rep.ok = snapped.has_value();
        rep.kappa = problem.barrier_stiffness();
        transport_.send(0, Tag::Report, encode(rep));
        const ControllerSignal sig = decode_signal(transport_.receive(0, Tag::Signal));
        if (sig.kind == SignalKind::Converged && snapped) x = std::move(*snapped);
    }

    // 5. End of step: owned bodies' states and the worker's statistics.
    t0 = Clock::now();
    SystemStepResult measured;
    sys.measure(x, measured);
    // Count each contact once over all workers: by the lowest worker holding both bodies (a
    // plane is held by everyone). Per-body counts follow the same rule, so that the controller's
    // sums over workers count every pair once.
    int contacts = 0;
    std::vector<BodyContactCount> body_contacts;
    {
        auto counted_here = [&](int a, int b) {
            const std::uint64_t both = masks[static_cast<std::size_t>(a)] &
                                       (b < 0 ? everyone : masks[static_cast<std::size_t>(b)]);
            const bool here = both != 0 && std::countr_zero(both) == me;
            contacts += here ? 1 : 0;
            return here;
        };
        std::vector<int> scratch;
        body_contacts =
            count_body_contacts(sys.contacts(), sys.surface(), ids, counted_here, scratch);
    }
    std::map<int, BodyRecord> start_owned;
    for (std::size_t k = 0; k < ids.size(); ++k) {
        auto it = record_of.find(ids[k]);
        if (it == record_of.end() || it->second->home != me) continue;
        BodyRecord end = *it->second;
        start_owned[end.id] = end;
        end.q = x.segment<12>(12 * static_cast<Eigen::Index>(k));
        end.q_dot = (end.q - it->second->q) / h;
        result.owned.push_back(end);
        result.owned_mass += model_.bodies[static_cast<std::size_t>(end.id)].mass_properties.mass;
    }
    // Penalties and multipliers to carry into the next step if this one is committed.
    std::map<int, Carry> next_carry;
    if (!failed)
        for (const SharedBody& sb : shared) next_carry[sb.id] = {sb.holders, sb.rho, sb.rho * sb.u};
    result.failed = failed;
    result.bodies = static_cast<int>(held.size());
    result.shared = static_cast<int>(shared.size());
    result.newton_iterations = newton_iterations;
    result.contacts = contacts;
    result.body_contacts = std::move(body_contacts);
    result.candidates = measured.candidates;
    result.min_distance = measured.min_distance;
    result.kappa = problem.barrier_stiffness();
    t_compute += seconds_since(t0);
    result.t_compute = t_compute;
    result.t_sync = t_pack + (transport_.transfer_seconds() - transfer0);
    result.load = cmd.spec.load_balance.measure == LoadMeasure::Time ? t_compute : load;
    transport_.send(0, Tag::Result, encode(result));

    // 6. Keep the end state or go back to the start, as the controller decides.
    const Bytes b = transport_.receive(0, Tag::Command);
    MessageReader r(b);
    const CommandKind kind = decode_command_kind(r);
    if (kind == CommandKind::Commit) {
        owned_.clear();
        for (const BodyRecord& e : result.owned) owned_[e.id] = e;
        carry_ = std::move(next_carry);
    } else if (kind == CommandKind::Discard) {
        owned_ = std::move(start_owned);
    } else {
        throw std::runtime_error("worker: expected commit or discard after a step");
    }
}

}  // namespace concord
