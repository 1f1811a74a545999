#include "concord/distributed/admm_worker.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <tuple>

#include "concord/distributed/anderson.hpp"
#include "concord/distributed/carried_contacts.hpp"
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

// One replica's contribution to a shared body's consensus (over the body's coordinate block).
struct Replica {
    int worker;
    VecX q, u;
    double rho;
};

// A shared body on this worker during one step's ADMM. Its vectors span the body's whole
// coordinate block: 12 affine numbers, then a reduced elastic body's modal coordinates.
struct SharedBody {
    int local;  ///< index in the local system
    int id;
    std::uint64_t holders;
    VecX z, u;
    double rho = 0.0, rho0 = 0.0;
    double r = 0.0, s = 0.0;  ///< residual norms of the last iteration (displacement units)
    std::vector<Replica> replicas;
    /// Spectral rule: this replica's grad F_i(q) and -rho u after the last iteration, and the
    /// iterates (q, grad, z, -rho u) at the last estimate (iteration `snapshot_k`).
    VecX grad, lambda;
    bool has_snapshot = false;
    int snapshot_k = 0;
    VecX q_s, grad_s, z_s, lambda_s;
    /// Anderson acceleration: the iterates of w = (z, rho u of every holder in worker order).
    AndersonHistory anderson;
};

// Anderson's measure of a shared body's w = (z, lambda_1, ..., lambda_n), blocks of the
// body's coordinates: positions in metres (A's entries times the body's radius, modal
// coordinates times their mode's largest displacement), multipliers divided by rho^0 (a
// displacement too), all over h l so that every body weighs alike.
VecX anderson_scale(const VecX& w, const AffineBody& body, double rho0, double hl) {
    VecX out = w / hl;
    const Eigen::Index n = 12 + (body.is_elastic() ? body.modal->num_modes : 0);
    for (Eigen::Index k = 0; k < w.size(); k += n) {
        out.segment<9>(k + 3) *= body.bounding_radius;
        if (n > 12) out.segment(k + 12, n - 12).array() *= body.modal->mode_scale.array();
        if (k > 0) out.segment(k, n) /= rho0;
    }
    return out;
}

// The consensus metric of an elastic body's modal coordinates: M_eta / m, M_eta the kinetic
// metric of the modes at A = I (from M_z over z = [p, A, eta_1 A, ...]: d z / d eta_k is the
// identity in block C_k), relative to the body's mass (ConsensusEnergy).
MatX modal_consensus_metric(const AffineBody& body) {
    const int m = body.modal->num_modes;
    const MatX& Mz = body.modal->reduced_mass;
    MatX W(m, m);
    for (int k = 0; k < m; ++k)
        for (int l = 0; l < m; ++l) {
            double sum = 0.0;
            for (int a : {0, 4, 8})
                for (int b : {0, 4, 8}) sum += Mz(12 + 9 * k + a, 12 + 9 * l + b);
            W(k, l) = sum;
        }
    return 0.5 * (W + W.transpose()) / body.mass_properties.mass;
}

// How often the spectral rule re-estimates rho (Xu et al. 2017 use every other iteration).
constexpr int kSpectralPeriod = 2;

}  // namespace

struct AdmmWorker::LocalSystem {
    std::unique_ptr<StepSystem> system;
    ConsensusEnergy consensus;
    /// Built this step: the system, of this step or the last, whose broad-phase envelope it
    /// starts from when prepared (LocalSystemRef::donor); cleared at the step's end.
    const StepSystem* donor = nullptr;
    LocalSystemRef ref() { return {system.get(), &consensus, donor}; }
};

// Everything one step works on, from the command to the controller's verdict.
struct AdmmWorker::Run {
    Run(const StepCommand& c, int workers, int self, double scene_scale)
        : cmd(c),
          N(workers),
          me(self),
          h(c.h),
          hl(c.h * scene_scale),
          everyone(workers >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << workers) - 1) {}

    const StepCommand& cmd;
    const int N, me;
    const double h, hl;
    const std::uint64_t everyone;  ///< the holder set of static bodies
    // Time computing and packing (the rest is waiting or transfer).
    double t_compute = 0.0, t_pack = 0.0, transfer0 = 0.0;

    std::vector<BodyRecord> held;  ///< owned and received bodies, by id
    std::map<int, const BodyRecord*> record_of;
    std::vector<int> ids;              ///< the local system's world bodies (held and static)
    std::vector<std::uint64_t> masks;  ///< their holder sets
    LocalSystem* local = nullptr;
    VecX q, q_tilde, target;  ///< world-size start, prediction and kinematic targets
    AlContactMemory multipliers;  ///< augmented Lagrangian: what the held records carry
    std::unique_ptr<StepInput> in;
    double kappa = 0.0;

    std::vector<SharedBody> shared;
    std::vector<int> neighbours;                   ///< other workers holding a shared body
    std::vector<std::vector<std::size_t>> common;  ///< per neighbour: shared bodies it holds
    SolverParams inexact;                          ///< the local solve's parameters
    SolverParams first;  ///< the same for a lag round's first solve (no update forced)
    std::unique_ptr<LocalProblem> problem;
    VecX x;                          ///< the local solution (the system's order)
    int local_round_iterations = 0;  ///< Newton iterations of this lag round's local solves
    bool rho_changed = false;        ///< a penalty changed since the last report (Anderson)
    double t_iteration = 0.0;        ///< this ADMM iteration's compute time

    bool failed = false;
    int newton_iterations = 0;
    double load = 0.0;  ///< work count: Newton iterations x (bodies + contacts)
    WorkerResult result;
    std::map<int, BodyRecord> start_owned;        ///< to go back to on Discard
    std::map<int, CarriedMultiplier> next_carry;  ///< warm start of the next step on Commit

    StepSystem& system() const { return *local->system; }
    /// A shared body's coordinate block in the local solution, and its inverse.
    VecX block(const SharedBody& sb) const { return system().body_coordinates(x, sb.local); }
    void set_block(VecX& v, const SharedBody& sb, const VecX& b) const {
        system().set_body_coordinates(v, sb.local, b);
    }
};

namespace {
// Adds the time from construction to destruction to a counter.
class Stopwatch {
  public:
    explicit Stopwatch(double& total) : total_(total), t0_(Clock::now()) {}
    ~Stopwatch() { total_ += seconds_since(t0_); }
    Stopwatch(const Stopwatch&) = delete;
    Stopwatch& operator=(const Stopwatch&) = delete;

  private:
    double& total_;
    Clock::time_point t0_;
};
}  // namespace

AdmmWorker::AdmmWorker(const WorldModel& model, Transport& transport)
    : model_(model), transport_(transport) {
    for (int b = 0; b < model_.num_bodies(); ++b) {
        const AffineBody& body = model_.bodies[static_cast<std::size_t>(b)];
        rest_bounds_.push_back(rest_bound(body));
        if (!model_.movable[static_cast<std::size_t>(b)]) static_bodies_.push_back(b);
        modal_metric_.push_back(body.is_elastic() ? modal_consensus_metric(body) : MatX());
    }
    group_ = joint_groups(model_.joints, model_.movable);
    reweightable_ =
        model_.joints.empty() && std::none_of(model_.bodies.begin(), model_.bodies.end(),
                                              [](const AffineBody& b) { return b.is_elastic(); });
    if (!model_.spec.fluids.empty()) fluid_ = std::make_unique<FluidWorker>(model_, transport_);
}

AdmmWorker::~AdmmWorker() = default;

void AdmmWorker::serve() {
    for (;;) {
        const Bytes b = transport_.receive(0, Tag::Command);
        MessageReader r(b);
        const CommandKind kind = decode_command_kind(r);
        switch (kind) {
            case CommandKind::Assign: {
                // A new assignment (start, restore) starts ADMM cold, unless a checkpoint
                // brought the multipliers this worker carried.
                AssignCommand cmd = decode_assign(r);
                owned_.clear();
                carry_.clear();
                for (BodyRecord& rec : cmd.bodies) owned_[rec.id] = std::move(rec);
                for (CarriedMultiplier& c : cmd.carry) {
                    if (c.id < 0 || c.id >= model_.num_bodies() ||
                        c.lambda.size() != model_.body_dofs(c.id))
                        throw std::runtime_error(
                            "worker: a carried multiplier does not fit the scene");
                    carry_[c.id] = std::move(c);
                }
                break;
            }
            case CommandKind::Capture: {
                std::vector<CarriedMultiplier> carry;
                for (const auto& [id, c] : carry_) carry.push_back(c);
                std::vector<std::int32_t> supported;
                for (const auto& [id, rec] : owned_)
                    if (rec.supported) supported.push_back(id);
                MessageWriter w;
                put_carried(w, carry);
                w.put_list(supported);
                transport_.send(0, Tag::State, w.take());
                break;
            }
            case CommandKind::Step:
                step(decode_step(r));
                break;
            case CommandKind::FluidSet:
            case CommandKind::FluidStep:
            case CommandKind::FluidRestore:
            case CommandKind::FluidCheck:
            case CommandKind::FluidGather:
                if (!fluid_) throw std::runtime_error("worker: a fluid command without a fluid");
                fluid_->handle(kind, r);
                break;
            case CommandKind::Shutdown:
                return;
            default:
                throw std::runtime_error("worker: unexpected command outside a step");
        }
    }
}

VecX AdmmWorker::predicted(const BodyRecord& b, double h, double t_end) const {
    const auto i = static_cast<std::size_t>(b.id);
    VecX out = b.q + h * b.q_dot;
    if (model_.kinematic[i])
        out.head<12>() =
            kinematic_state(model_.bodies[i].kinematic, model_.bodies[i].q_initial, t_end);
    else
        out.head<12>() += forced_motion(b, h);
    return out;
}

Vec12 AdmmWorker::forced_motion(const BodyRecord& b, double h) const {
    const auto i = static_cast<std::size_t>(b.id);
    Vec12 a = model_.initial_external_acceleration[i];
    if (fluid_ && model_.dynamic[i]) a += fluid_->acceleration(b.id);
    return h * h * a;
}

AdmmWorker::LocalSystem& AdmmWorker::local_system(const std::vector<int>& bodies,
                                                  const std::vector<std::uint64_t>& holders) {
    SystemReplication rep;
    for (std::size_t k = 0; k < bodies.size(); ++k) {
        const bool movable = model_.movable[static_cast<std::size_t>(bodies[k])];
        rep.body_weight.push_back(movable ? 1.0 / std::popcount(holders[k]) : 1.0);
    }
    rep.contacts.holders = holders;
    // Affine systems are kept by their bodies alone and take the step's holder sets in place
    // (bodies near a plane change holders as they move; a fresh system would rebuild its
    // surface and broad-phase envelope). Systems with elastic bodies or joints are kept by
    // bodies and holders.
    auto key = std::make_pair(bodies, reweightable_ ? std::vector<std::uint64_t>{} : holders);
    if (auto k = kept_.find(key); k != kept_.end()) return *k->second;
    // A system of the last step with the same bodies is prepared afresh and reused (its
    // broad-phase structures with it), as World keeps its islands' systems.
    if (auto it = systems_.find(key); it != systems_.end()) {
        auto node = systems_.extract(it);
        LocalSystem& ls = *kept_.insert(std::move(node)).position->second;
        if (reweightable_) ls.system->set_replication(rep);
        return ls;
    }
    auto ls = std::make_unique<LocalSystem>();
    ls->system = std::make_unique<StepSystem>(model_, bodies, nullptr, &rep);
    ls->system->add_term(ls->consensus);
    // A new set of bodies (an island that merged or split, a share that changed as the planes
    // moved): when prepared, its broad phase starts from the envelope of the system, of this
    // step or the last, that holds most of them, and queries only the others.
    ls->donor = donors_.donor_for(bodies);
    donors_.add(*ls->system);
    return *kept_.emplace(std::move(key), std::move(ls)).first->second;
}

void AdmmWorker::step(const StepCommand& cmd) {
    Run run(cmd, transport_.num_workers(), self(), model_.scene_scale);
    run.transfer0 = transport_.transfer_seconds();
    exchange_bodies(run);
    build_local_problem(run);
    agree_barrier_stiffness(run);
    find_shared_bodies(run);
    const int lag_rounds =
        model_.has_friction ? std::max(1, model_.spec.contact.friction_iterations) : 1;
    for (int round = 0; round < lag_rounds && !run.failed; ++round) {
        start_lag_round(run, round);
        for (int k = 1;; ++k) {
            const NewtonStats st = solve_local(run);
            exchange_shared(run);
            WorkerReport rep = update_consensus(run);
            check_convergence(run, st, rep);
            transport_.send(0, Tag::Report, encode(rep));
            const ControllerSignal sig = decode_signal(transport_.receive(0, Tag::Signal));
            run.kappa = sig.kappa;
            if (sig.kind == SignalKind::Converged) {
                for (const SharedBody& sb : run.shared) run.set_block(run.x, sb, sb.z);
                break;
            }
            if (sig.kind == SignalKind::Failed) {
                run.failed = true;
                break;
            }
            accelerate(run, sig);
            adapt_penalties(run, k);
        }
    }
    snap_kinematic(run);
    send_result(run);
    commit_or_discard(run);
    run.problem.reset();
    systems_ = std::move(kept_);  // the systems no longer in use go
    kept_.clear();
    for (auto& [key, ls] : systems_) ls->donor = nullptr;  // donors live for one step
}

void AdmmWorker::exchange_bodies(Run& run) {
    const StepCommand& cmd = run.cmd;
    if (cmd.widths.size() != static_cast<std::size_t>(model_.num_bodies()))
        throw std::runtime_error("worker: the step's overlap widths do not fit the scene");
    std::vector<std::vector<BodyRecord>> outgoing(static_cast<std::size_t>(run.N));
    {
        Stopwatch sw(run.t_compute);
        // Holders from the swept box, home from the start box's centre; the bodies of a joint
        // group (owned together) take the union of their holders and the home of the group's
        // first body.
        std::map<int, std::pair<std::uint64_t, int>> group_of;  // group -> (holders, home)
        std::vector<BodyRecord> classified;
        for (const auto& [id, rec] : owned_) {
            const AffineBody& body = model_.bodies[static_cast<std::size_t>(id)];
            const RestBound& rest = rest_bounds_[static_cast<std::size_t>(id)];
            const Box3 start = world_box(body, rest, rec.q);
            Box3 swept = start;
            swept.extend(world_box(body, rest, predicted(rec, run.h, cmd.t_end)));
            BodyRecord out = rec;
            out.holders = cmd.partition.holders(swept.lo, swept.hi,
                                                0.5 * cmd.widths[static_cast<std::size_t>(id)]);
            out.home = cmd.partition.worker_of_point(start.center());
            auto [g, fresh] =
                group_of.try_emplace(group_[static_cast<std::size_t>(id)], out.holders, out.home);
            if (!fresh) g->second.first |= out.holders;  // owned_ is in id order: first sets home
            classified.push_back(std::move(out));
        }
        for (BodyRecord& out : classified) {
            std::tie(out.holders, out.home) = group_of.at(group_[static_cast<std::size_t>(out.id)]);
            for (int w : workers_in(out.holders)) {
                if (w == run.me) {
                    run.held.push_back(out);
                } else {
                    outgoing[static_cast<std::size_t>(w)].push_back(out);
                }
            }
        }
    }
    for (int j = 0; j < run.N; ++j) {
        if (j == run.me) continue;
        MessageWriter w;
        {
            Stopwatch sw(run.t_pack);
            put_records(w, outgoing[static_cast<std::size_t>(j)]);
        }
        transport_.send(j + 1, Tag::Bodies, w.take());
    }
    for (int j = 0; j < run.N; ++j) {
        if (j == run.me) continue;
        const Bytes b = transport_.receive(j + 1, Tag::Bodies);
        Stopwatch sw(run.t_pack);
        MessageReader r(b);
        for (BodyRecord& rec : get_records(r)) {
            if (rec.id < 0 || rec.id >= model_.num_bodies() ||
                rec.q.size() != model_.body_dofs(rec.id))
                throw std::runtime_error("worker: a body record does not fit the scene");
            run.held.push_back(std::move(rec));
        }
    }
    Stopwatch sw(run.t_compute);
    std::sort(run.held.begin(), run.held.end(),
              [](const BodyRecord& a, const BodyRecord& b) { return a.id < b.id; });
}

void AdmmWorker::build_local_problem(Run& run) {
    Stopwatch sw(run.t_compute);
    // Held bodies and every static body, in world order.
    std::size_t a = 0, s = 0;
    while (a < run.held.size() || s < static_bodies_.size()) {
        const bool take_held = s == static_bodies_.size() ||
                               (a < run.held.size() && run.held[a].id < static_bodies_[s]);
        if (take_held) {
            run.ids.push_back(run.held[a].id);
            run.masks.push_back(run.held[a].holders);
            ++a;
        } else {
            run.ids.push_back(static_bodies_[s]);
            run.masks.push_back(run.everyone);
            ++s;
        }
    }
    donors_.clear();  // the last step's systems, then this step's as they are built
    for (const auto& [key, ls] : systems_) donors_.add(*ls->system);
    run.local = &local_system(run.ids, run.masks);
    run.q = model_.initial_state();
    run.q_tilde = run.q;
    run.target = run.q;
    for (const BodyRecord& rec : run.held) {
        run.record_of[rec.id] = &rec;
        model_.set_body_coordinates(run.q, rec.id, rec.q);
        const VecX p = predicted(rec, run.h, run.cmd.t_end);
        if (model_.kinematic[static_cast<std::size_t>(rec.id)]) {
            model_.set_body_coordinates(run.q_tilde, rec.id, rec.q);
            model_.set_body_coordinates(run.target, rec.id, p);
        } else {
            model_.set_body_coordinates(run.q_tilde, rec.id, p);
        }
    }
    run.multipliers = carried_contact_multipliers(run.held);
    run.in = std::make_unique<StepInput>(
        StepInput{run.q, run.q_tilde, run.target, run.h, run.cmd.t_end, &run.multipliers});

    // The shared bodies: movable and held by more than one worker.
    for (std::size_t k = 0; k < run.ids.size(); ++k) {
        const auto i = static_cast<std::size_t>(run.ids[k]);
        if (!model_.movable[i] || std::popcount(run.masks[k]) < 2) continue;
        SharedBody sb;
        sb.local = static_cast<int>(k);
        sb.id = run.ids[k];
        sb.holders = run.masks[k];
        run.shared.push_back(sb);
    }
    // The local problem, split by islands with distributed.local_islands: those without a
    // shared body are then solved once per lag round. Its systems are prepared for the step
    // here (at the last step's stiffness; the agreed one is set before the first solve).
    std::vector<int> shared_local;
    for (const SharedBody& sb : run.shared) shared_local.push_back(sb.local);
    const LocalSystemSource source = [this](const std::vector<int>& ids,
                                            const std::vector<std::uint64_t>& masks) {
        return local_system(ids, masks).ref();
    };
    run.problem = std::make_unique<LocalProblem>(
        model_, run.local->ref(), run.ids, run.masks,
        shared_local, *run.in, run.cmd.kappa, run.cmd.spec.local_islands, source);
    run.system().gather(run.q, run.x);
}

// IPC's balance kappa = -g_B . g_E / |g_B|^2 over the whole scene. A shared body's gradients
// are split across its holders, so its pieces go to the controller to be summed per body
// first; internal bodies' terms are summed here.
void AdmmWorker::agree_barrier_stiffness(Run& run) {
    MessageWriter w;
    {
        Stopwatch sw(run.t_compute);
        const StiffnessShare share = run.problem->stiffness_share();
        w.put(share.internal.has_contacts).put(share.internal.dot).put(share.internal.norm_sq);
        w.put(static_cast<std::int64_t>(share.shared.size()));
        for (const StiffnessShare::Piece& p : share.shared)
            w.put(static_cast<std::int32_t>(p.id)).put_vector(p.g_rest).put_vector(p.g_unit);
    }
    transport_.send(0, Tag::Balance, w.take());
    const Bytes b = transport_.receive(0, Tag::Stiffness);
    MessageReader r(b);
    run.kappa = r.get<double>();
}

void AdmmWorker::find_shared_bodies(Run& run) {
    Stopwatch sw(run.t_compute);
    const StepCommand& cmd = run.cmd;
    std::vector<SharedBody>& shared = run.shared;
    // Neighbours this step, and the shared bodies each of them holds too (in id order).
    std::uint64_t any = 0;
    for (const SharedBody& sb : shared) any |= sb.holders;
    for (int w : workers_in(any))
        if (w != run.me) run.neighbours.push_back(w);
    run.common.resize(run.neighbours.size());
    for (std::size_t n = 0; n < run.neighbours.size(); ++n)
        for (std::size_t e = 0; e < shared.size(); ++e)
            if (shared[e].holders >> run.neighbours[n] & 1) run.common[n].push_back(e);

    // Initial penalties: for the stiffness rule, lambda_max of the body's Hessian block at the
    // step's start (PSD-projected, as the solver sees it).
    if (cmd.spec.penalty == PenaltyRule::Stiffness && !shared.empty()) {
        StepSystem& sys = run.problem->whole();
        HessianBlocks H;
        sys.hessian_blocks(sys.start(), H);
        std::vector<Mat12> blocks(shared.size(), Mat12::Zero());
        std::map<int, std::size_t> slot;
        for (std::size_t e = 0; e < shared.size(); ++e) slot[shared[e].local] = e;
        for (const auto& t : H.triplets()) {
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

    // Local solves stop by the scene's own criterion, as the single-machine solve does. A
    // worker with shared bodies takes at least one Newton update per ADMM iteration: its
    // problem moved with z and u, possibly by less than its tolerance, and a solve that stopped
    // at once would never follow the anchor (ADMM would stall). Inexact local solves: at most
    // `local_iterations` warm-started updates per ADMM iteration, so that consensus and the
    // local Newton converge together. A worker without shared bodies does not depend on z and
    // solves to convergence at once.
    run.inexact = cmd.params;
    if (!shared.empty() && cmd.spec.local_iterations > 0)
        run.inexact.max_iterations =
            std::min(run.inexact.max_iterations, cmd.spec.local_iterations);
    run.first = run.inexact;
    if (!shared.empty()) run.inexact.min_iterations = 1;
}

void AdmmWorker::start_lag_round(Run& run, int round) {
    Stopwatch sw(run.t_compute);
    run.problem->start_round(run.x, run.kappa);  // friction's normal forces at the step's kappa
    for (SharedBody& sb : run.shared) {
        // z^1: the step's start (where the local solves start) or q~ (the paper's), see
        // InitialConsensus; a kinematic body's is its prescribed pose. Later lag rounds restart
        // from the merge.
        const BodyRecord& rec = *run.record_of.at(sb.id);
        if (round > 0)
            sb.z = run.block(sb);
        else if (model_.kinematic[static_cast<std::size_t>(sb.id)] || !starts_at_rest(run, rec))
            sb.z = predicted(rec, run.h, run.cmd.t_end);
        else
            sb.z = rec.q;
        sb.u = VecX::Zero(sb.z.size());
        sb.rho = sb.rho0;
        sb.has_snapshot = false;
        sb.anderson = AndersonHistory(run.cmd.spec.anderson_window);
        // A body shared by the same workers as in the last step starts from that step's
        // penalty and multiplier (rho u, the force this worker's share needed to agree).
        if (round == 0 && run.cmd.spec.warm_start)
            if (auto c = carry_.find(sb.id); c != carry_.end() && c->second.holders == sb.holders) {
                if (run.cmd.spec.warm_start_penalty) sb.rho = c->second.rho;
                sb.u = c->second.lambda / sb.rho;
            }
    }
    run.local_round_iterations = 0;
}

bool AdmmWorker::starts_at_rest(const Run& run, const BodyRecord& rec) const {
    switch (run.cmd.spec.initial_consensus) {
        case InitialConsensus::Predicted:
            return false;
        case InitialConsensus::Start:
            return true;
        case InitialConsensus::Resting:
            break;
    }
    // At rest: the body ended its last step in contact among bodies at rest (held up by
    // supports; a body released from rest, or floating in a fluid, has none and its q~ is
    // exact; one that a moving body pushes is not at rest either), and over the step the last
    // step's velocity moves it by no more than the forces on it would (a falling one passes
    // h g after one step) or than the consensus tolerance. Such a body's q~ lies h^2 g inside
    // its supports, its q where it stays.
    return rec.supported && moves_as_at_rest(run, rec, run.h * rec.q_dot);
}

bool AdmmWorker::moves_as_at_rest(const Run& run, const BodyRecord& rec, const VecX& step) const {
    const AffineBody& body = model_.bodies[static_cast<std::size_t>(rec.id)];
    VecX sag = VecX::Zero(rec.q.size());
    sag.head<12>() = forced_motion(rec, run.h);
    const double bound = std::max(consensus_threshold(run.cmd.spec, run.cmd.params) * run.hl,
                                  body_displacement(body, sag));
    return body_displacement(body, step) <= bound;
}

// A body is supported at the end of the step when it is in contact and every body it touches
// moved this step no more than a body at rest does: a body at rest that a settling pile still
// pushes starts its next step from q~, as a moving one (starts_at_rest).
std::vector<char> AdmmWorker::supported_at_end(const Run& run, const LocalMeasure& measured) const {
    const std::size_t n = run.ids.size();
    std::vector<char> out(n, 0), moving(n, 0);
    for (int k : measured.touching) out[static_cast<std::size_t>(k)] = 1;
    for (std::size_t k = 0; k < n; ++k) {
        auto it = run.record_of.find(run.ids[k]);
        if (it == run.record_of.end()) continue;  // static: never moves
        const VecX end = run.system().body_coordinates(run.x, static_cast<int>(k));
        moving[k] = moves_as_at_rest(run, *it->second, end - it->second->q) ? 0 : 1;
    }
    for (const auto& [a, b] : measured.touching_pairs) {
        if (moving[static_cast<std::size_t>(b)]) out[static_cast<std::size_t>(a)] = 0;
        if (moving[static_cast<std::size_t>(a)]) out[static_cast<std::size_t>(b)] = 0;
    }
    return out;
}

NewtonStats AdmmWorker::solve_local(Run& run) {
    run.t_iteration = 0.0;
    Stopwatch sw(run.t_iteration);
    std::vector<ConsensusTerm> terms;
    for (const SharedBody& sb : run.shared)
        terms.push_back({sb.local, sb.rho, sb.z - sb.u, run.system().modal_offset(sb.local),
                         &modal_metric_[static_cast<std::size_t>(sb.id)]});
    LocalProblem& problem = *run.problem;
    // The first solve of a lag round may stop at once: nothing has moved the anchor yet (a
    // body at rest under z^1 = q is agreed upon without an update).
    const NewtonStats st =
        problem.solve(run.x, run.kappa, terms,
                      run.local_round_iterations == 0 ? run.first : run.inexact, run.cmd.params);
    const NewtonStats& st_internal = problem.internal_stats();
    WorkerResult& result = run.result;
    for (const NewtonStats* s : {&st, &st_internal}) {
        run.newton_iterations += s->iterations;
        result.line_search_trials += s->line_search_trials;
        result.ccd_limited += s->ccd_limited;
        result.al_switches += s->al_switches;
        result.linear_iterations += s->linear_iterations;
        result.t_collision += s->t_collision;
        result.t_assembly += s->t_assembly;
        result.t_linear += s->t_linear;
        result.t_line_search += s->t_line_search;
    }
    run.load +=
        st.iterations * static_cast<double>(problem.solved_bodies() + problem.solved_contacts()) +
        st_internal.iterations *
            static_cast<double>(problem.internal_bodies() + problem.internal_contacts());
    run.local_round_iterations += st.iterations;
    return st;
}

void AdmmWorker::exchange_shared(Run& run) {
    for (std::size_t n = 0; n < run.neighbours.size(); ++n) {
        MessageWriter w;
        {
            Stopwatch sw(run.t_pack);
            for (std::size_t e : run.common[n]) {
                const SharedBody& sb = run.shared[e];
                w.put_vector(run.block(sb)).put_vector(sb.u).put(sb.rho);
            }
        }
        transport_.send(run.neighbours[n] + 1, Tag::Shared, w.take());
    }
    {
        Stopwatch sw(run.t_pack);
        for (SharedBody& sb : run.shared) {
            sb.replicas.clear();
            sb.replicas.push_back({run.me, run.block(sb), sb.u, sb.rho});
        }
    }
    for (std::size_t n = 0; n < run.neighbours.size(); ++n) {
        const Bytes b = transport_.receive(run.neighbours[n] + 1, Tag::Shared);
        Stopwatch sw(run.t_pack);
        MessageReader r(b);
        for (std::size_t e : run.common[n]) {
            Replica rep;
            rep.worker = run.neighbours[n];
            rep.q = r.get_vector();
            rep.u = r.get_vector();
            rep.rho = r.get<double>();
            if (rep.q.size() != run.shared[e].z.size() || rep.u.size() != rep.q.size())
                throw std::runtime_error("worker: a shared body's replica does not fit");
            run.shared[e].replicas.push_back(rep);
        }
    }
}

// Every holder sums the replicas in worker order, so all of them compute the same z bit for
// bit.
WorkerReport AdmmWorker::update_consensus(Run& run) {
    Stopwatch sw(run.t_iteration);
    WorkerReport rep;
    rep.kind = ReportKind::Iteration;
    rep.rho_min = std::numeric_limits<double>::infinity();
    for (SharedBody& sb : run.shared) {
        std::sort(sb.replicas.begin(), sb.replicas.end(),
                  [](const Replica& a, const Replica& b) { return a.worker < b.worker; });
        VecX num = VecX::Zero(sb.z.size());
        double den = 0.0;
        for (const Replica& rp : sb.replicas) {
            num += rp.rho * (rp.q + rp.u);
            den += rp.rho;
        }
        const VecX z_new = num / den;
        const AffineBody& body = model_.bodies[static_cast<std::size_t>(sb.id)];
        sb.s = body_displacement(body, z_new - sb.z);
        sb.r = 0.0;
        for (const Replica& rp : sb.replicas)
            sb.r = std::max(sb.r, body_displacement(body, rp.q - z_new));
        const VecX q_b = run.block(sb);
        sb.grad = -sb.rho * (sb.u + q_b - sb.z);  // the local optimality condition
        if (run.cmd.spec.anderson_window > 0) {
            // w before and after this iteration (G(w)), every holder's multiplier included:
            // all holders see the same replicas, so all record the same iterates.
            const auto n = static_cast<Eigen::Index>(sb.replicas.size());
            const Eigen::Index d = sb.z.size();
            VecX w(d * (n + 1)), g(d * (n + 1));
            w.head(d) = sb.z;
            g.head(d) = z_new;
            for (Eigen::Index i = 0; i < n; ++i) {
                const Replica& rp = sb.replicas[static_cast<std::size_t>(i)];
                w.segment(d * (i + 1), d) = rp.rho * rp.u;
                g.segment(d * (i + 1), d) = rp.rho * (rp.u + rp.q - z_new);
            }
            sb.anderson.push(g, anderson_scale(g - w, body, sb.rho0, run.hl));
        }
        sb.u += q_b - z_new;
        sb.lambda = -sb.rho * sb.u;
        sb.z = z_new;
        rep.r = std::max(rep.r, sb.r / run.hl);
        rep.s = std::max(rep.s, sb.s / run.hl);
        rep.rho_min = std::min(rep.rho_min, sb.rho);
        rep.rho_max = std::max(rep.rho_max, sb.rho);
        rep.rho_sum += sb.rho;
        ++rep.rho_count;
    }
    if (run.shared.empty()) rep.rho_min = 0.0;
    // Anderson: this worker's share of the normal equations, each body counted by its lowest
    // holder, summed in body order.
    if (run.cmd.spec.anderson_window > 0 && !run.shared.empty()) {
        const int m = run.shared.front().anderson.columns();
        if (m > 0) {
            MatX gram = MatX::Zero(m, m);
            VecX rhs = VecX::Zero(m);
            for (const SharedBody& sb : run.shared)
                if (std::countr_zero(sb.holders) == run.me)
                    sb.anderson.add_normal_equations(gram, rhs);
            rep.anderson.assign(gram.data(), gram.data() + gram.size());
            rep.anderson.insert(rep.anderson.end(), rhs.data(), rhs.data() + rhs.size());
        }
    }
    rep.rho_changed = run.rho_changed;
    run.rho_changed = false;
    return rep;
}

void AdmmWorker::check_convergence(Run& run, const NewtonStats& st, WorkerReport& rep) {
    {
        Stopwatch sw(run.t_iteration);
        // Eq. 8's |dq|: the last Newton update of the local solve, as taken (direction times
        // accepted step, over h l; 0 when no update was taken). The test passes when it is
        // below theta, or when the local solve is done by the scene's own measure.
        rep.dq = st.history.empty() ? 0.0 : st.history.back().step * st.history.back().step_measure;
        rep.local_done = st.status == ConvergenceStatus::Converged ||
                         st.stop_reason == StopReason::NoImprovement ||
                         st.stop_reason == StopReason::RelativeStep ||
                         run.local_round_iterations >= run.cmd.params.max_iterations;
        // Merge check (Sec. 4.2): CCD from q_i to q^_i, only once the residuals pass
        // (otherwise the controller cannot end the loop anyway).
        const double theta = consensus_threshold(run.cmd.spec, run.cmd.params);
        if ((rep.local_done || rep.dq < theta) && rep.r < theta && rep.s < theta) {
            VecX x_hat = run.x;
            for (const SharedBody& sb : run.shared) run.set_block(x_hat, sb, sb.z);
            rep.toi = run.problem->ccd_fraction(run.x, x_hat);
        }
        const NewtonStats& st_internal = run.problem->internal_stats();
        rep.kappa = run.problem->barrier_stiffness();
        rep.failed = st.status == ConvergenceStatus::Diverged ||
                     st_internal.status == ConvergenceStatus::Diverged;
        rep.newton_iterations = st.iterations + st_internal.iterations;
        if (run.cmd.trace_states) {
            std::map<int, std::size_t> slot;
            for (std::size_t e = 0; e < run.shared.size(); ++e) slot[run.shared[e].id] = e;
            for (const BodyRecord& b : run.held) {
                if (b.home != run.me) continue;
                BodyRecord e = b;
                const auto it = std::find(run.ids.begin(), run.ids.end(), b.id);
                const auto local = static_cast<int>(it - run.ids.begin());
                const auto sh = slot.find(b.id);
                e.q = sh != slot.end() ? run.shared[sh->second].z
                                       : run.system().body_coordinates(run.x, local);
                rep.estimates.push_back(e);
            }
        }
    }
    run.t_compute += run.t_iteration;
    rep.t_compute = run.t_iteration;
}

// Eq. 12 and its normalised variant (every holder sees the same r_b and s_b, so all make the
// same decision), or each replica's spectral estimate.
void AdmmWorker::adapt_penalties(Run& run, int k) {
    const DistributedSpec& spec = run.cmd.spec;
    // The residuals of Eq. 8's test, in displacement: a body below both already agrees.
    const double agreed = consensus_threshold(spec, run.cmd.params) * run.hl;
    for (SharedBody& sb : run.shared) {
        PenaltyUpdate up{sb.rho, 1.0};
        if (spec.adapt_rule == AdaptRule::Spectral) {
            const VecX q_b = run.block(sb);
            if (sb.has_snapshot && k - sb.snapshot_k < kSpectralPeriod) continue;
            if (sb.has_snapshot)
                up = spectral_penalty(
                    spec, sb.rho, sb.rho0,
                    {q_b - sb.q_s, sb.grad - sb.grad_s, sb.z - sb.z_s, sb.lambda - sb.lambda_s});
            sb.has_snapshot = true;
            sb.snapshot_k = k;
            sb.q_s = q_b;
            sb.grad_s = sb.grad;
            sb.z_s = sb.z;
            sb.lambda_s = sb.lambda;
        } else {
            up = adapt_penalty(spec, sb.rho, sb.rho0, sb.r, sb.s, agreed);
        }
        run.rho_changed = run.rho_changed || up.rho != sb.rho;
        sb.rho = up.rho;
        sb.u *= up.u_scale;
    }
}

// Every holder applies the controller's gamma to its copy of each shared body, so z stays the
// same everywhere; a holder's own u follows from its multiplier.
void AdmmWorker::accelerate(Run& run, const ControllerSignal& sig) {
    if (run.cmd.spec.anderson_window <= 0) return;
    Stopwatch sw(run.t_compute);
    for (SharedBody& sb : run.shared) {
        if (sig.anderson_restart) sb.anderson.clear();
        if (sig.gamma.empty()) continue;
        const VecX gamma =
            Eigen::Map<const VecX>(sig.gamma.data(), static_cast<Eigen::Index>(sig.gamma.size()));
        const VecX w = sb.anderson.extrapolate(gamma);
        const Eigen::Index d = sb.z.size();
        sb.z = w.head(d);
        std::size_t mine = 0;
        while (sb.replicas[mine].worker != run.me) ++mine;
        sb.u = w.segment(d * static_cast<Eigen::Index>(mine + 1), d) / sb.rho;
        sb.lambda = -sb.rho * sb.u;
    }
}

void AdmmWorker::snap_kinematic(Run& run) {
    if (run.failed) return;
    WorkerReport rep;
    std::optional<VecX> snapped;
    {
        Stopwatch sw(run.t_compute);
        const bool kinematic = std::any_of(run.ids.begin(), run.ids.end(), [&](int id) {
            return model_.kinematic[static_cast<std::size_t>(id)];
        });
        snapped = kinematic ? run.problem->whole().snapped_kinematic(run.x) : run.x;
    }
    rep.kind = ReportKind::Snap;
    rep.ok = snapped.has_value();
    rep.kappa = run.problem->barrier_stiffness();
    transport_.send(0, Tag::Report, encode(rep));
    const ControllerSignal sig = decode_signal(transport_.receive(0, Tag::Signal));
    if (sig.kind == SignalKind::Converged && snapped) run.x = std::move(*snapped);
}

void AdmmWorker::send_result(Run& run) {
    {
        Stopwatch sw(run.t_compute);
        const std::vector<std::uint64_t>& masks = run.masks;
        // Count each contact once over all workers: by the lowest worker holding both bodies (a
        // plane is held by everyone). Per-body counts follow the same rule, so that the
        // controller's sums over workers count every pair once.
        const LocalMeasure measured = run.problem->measure(run.x, [&](int a, int b) {
            const std::uint64_t both = masks[static_cast<std::size_t>(a)] &
                                       (b < 0 ? run.everyone : masks[static_cast<std::size_t>(b)]);
            return both != 0 && std::countr_zero(both) == run.me;
        });
        WorkerResult& result = run.result;
        result.body_contacts = measured.body_contacts;
        const std::vector<char> supported = supported_at_end(run, measured);
        for (std::size_t k = 0; k < run.ids.size(); ++k) {
            auto it = run.record_of.find(run.ids[k]);
            if (it == run.record_of.end() || it->second->home != run.me) continue;
            BodyRecord end = *it->second;
            run.start_owned[end.id] = end;
            end.q = run.system().body_coordinates(run.x, static_cast<int>(k));
            end.q_dot = (end.q - it->second->q) / run.h;
            end.supported = supported[k] != 0;
            end.contact_multipliers.clear();
            result.owned.push_back(end);
            result.owned_mass +=
                model_.bodies[static_cast<std::size_t>(end.id)].mass_properties.mass;
        }
        // Augmented Lagrangian: the active sets go with the owned bodies' records (in id order).
        attach_contact_multipliers(run.problem->al_memory(), [&](int body) -> BodyRecord* {
            auto it = std::lower_bound(result.owned.begin(), result.owned.end(), body,
                                       [](const BodyRecord& r, int id) { return r.id < id; });
            return it != result.owned.end() && it->id == body ? &*it : nullptr;
        });
        // Penalties and multipliers to carry into the next step if this one is committed.
        if (!run.failed)
            for (const SharedBody& sb : run.shared)
                run.next_carry[sb.id] = {sb.id, sb.holders, sb.rho, sb.rho * sb.u};
        result.failed = run.failed;
        result.bodies = static_cast<int>(run.held.size());
        result.shared = static_cast<int>(run.shared.size());
        result.newton_iterations = run.newton_iterations;
        result.island_rounds = run.problem->island_rounds();
        result.contacts = measured.contacts;
        result.candidates = measured.candidates;
        result.min_distance = measured.min_distance;
        result.joints = measured.joints;
        result.kappa = run.problem->barrier_stiffness();
    }
    WorkerResult& result = run.result;
    result.t_compute = run.t_compute;
    result.t_sync = run.t_pack + (transport_.transfer_seconds() - run.transfer0);
    result.load = run.cmd.spec.load_balance.measure == LoadMeasure::Time ? run.t_compute : run.load;
    transport_.send(0, Tag::Result, encode(result));
}

void AdmmWorker::commit_or_discard(Run& run) {
    const Bytes b = transport_.receive(0, Tag::Command);
    MessageReader r(b);
    const CommandKind kind = decode_command_kind(r);
    if (kind == CommandKind::Commit) {
        owned_.clear();
        for (const BodyRecord& e : run.result.owned) owned_[e.id] = e;
        carry_ = std::move(run.next_carry);
    } else if (kind == CommandKind::Discard) {
        owned_ = std::move(run.start_owned);
    } else {
        throw std::runtime_error("worker: expected commit or discard after a step");
    }
}

}  // namespace concord
