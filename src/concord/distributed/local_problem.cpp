#include "concord/distributed/local_problem.hpp"

#include <algorithm>
#include <bit>
#include <utility>

#include "concord/collision/broad_phase/body_pair_filter.hpp"

namespace concord {

namespace {

// The share of the replication over a subset of the whole system's bodies (whole indices).
SystemReplication replication_of(const WorldModel& model, const std::vector<int>& ids,
                                 const std::vector<std::uint64_t>& masks,
                                 const std::vector<int>& subset) {
    SystemReplication rep;
    for (int k : subset) {
        const auto kk = static_cast<std::size_t>(k);
        const bool movable = model.movable[static_cast<std::size_t>(ids[kk])];
        rep.body_weight.push_back(movable ? 1.0 / std::popcount(masks[kk]) : 1.0);
        rep.contacts.holders.push_back(masks[kk]);
    }
    return rep;
}

std::vector<int> world_ids(const std::vector<int>& ids, const std::vector<int>& subset) {
    std::vector<int> out;
    for (int k : subset) out.push_back(ids[static_cast<std::size_t>(k)]);
    return out;
}

}  // namespace

LocalProblem::LocalProblem(const WorldModel& model, StepSystem& whole,
                           ConsensusEnergy& whole_consensus, const std::vector<int>& ids,
                           const std::vector<std::uint64_t>& masks,
                           const std::vector<int>& shared_local, const StepInput& in,
                           double kappa, bool islands, BroadPhase& broad_phase)
    : whole_(whole), whole_consensus_(whole_consensus), world_(in.q) {
    const auto n = ids.size();
    std::vector<bool> movable(n);
    for (std::size_t k = 0; k < n; ++k) {
        movable[k] = model.movable[static_cast<std::size_t>(ids[k])];
        whole_movable_ += movable[k] ? 1 : 0;
    }
    if (!islands) return;

    // The islands of the step (World::find_step_islands over this system's bodies).
    VecX predicted = in.q_tilde;
    for (std::size_t k = 0; k < n; ++k)
        if (model.kinematic[static_cast<std::size_t>(ids[k])])
            predicted.segment<12>(12 * ids[k]) = in.target.segment<12>(12 * ids[k]);
    VecX predicted_system;
    whole_.gather(predicted, predicted_system);
    bounds_ = step_motion_bounds(whole_.surface(), whole_.start(), predicted_system,
                                 model.spec.contact.dhat);
    BroadPhaseParams bp;
    bp.dhat = model.spec.contact.dhat;
    std::vector<std::uint8_t> is_static(n);
    for (std::size_t k = 0; k < n; ++k) is_static[k] = movable[k] ? 0 : 1;
    bp.body_pair_filter = skip_static_pairs(std::move(is_static));
    const Candidates c = broad_phase.find(whole_.surface().mesh, bounds_.lo, bounds_.hi, bp);
    const std::vector<Island> found =
        find_islands(movable, candidate_body_pairs(whole_.surface().mesh, c));

    // Islands holding a shared body depend on z (together, one coupled system); each of the
    // others is a system of its own, as on one machine.
    std::vector<char> in_coupled(n, 0);
    std::vector<std::vector<int>> internal;
    for (const Island& island : found) {
        const bool coupled = std::any_of(island.movable.begin(), island.movable.end(), [&](int b) {
            return std::find(shared_local.begin(), shared_local.end(), b) != shared_local.end();
        });
        if (coupled) {
            for (int b : island.movable) in_coupled[static_cast<std::size_t>(b)] = 1;
            for (int b : island.obstacles) in_coupled[static_cast<std::size_t>(b)] = 1;
        } else {
            internal.push_back(island.bodies());  // whole-system indices, sorted
            internal_movable_ += static_cast<int>(island.movable.size());
        }
    }
    std::vector<int> coupled;
    for (std::size_t k = 0; k < n; ++k) {
        if (!in_coupled[k]) continue;
        coupled.push_back(static_cast<int>(k));
        coupled_movable_ += movable[k] ? 1 : 0;
    }
    // Nothing to split: every island holds a shared body, or there is one island only.
    if (internal.empty() || (coupled_movable_ == 0 && internal.size() == 1)) {
        internal_movable_ = coupled_movable_ = 0;
        return;
    }
    for (const std::vector<int>& island : internal) {
        const SystemReplication rep = replication_of(model, ids, masks, island);
        internal_.push_back(
            std::make_unique<StepSystem>(model, world_ids(ids, island), nullptr, &rep));
        internal_.back()->prepare(in, kappa);
    }
    if (coupled_movable_ > 0) {
        const SystemReplication rep_c = replication_of(model, ids, masks, coupled);
        coupled_ = std::make_unique<StepSystem>(model, world_ids(ids, coupled), nullptr, &rep_c);
        coupled_->add_term(coupled_consensus_);
        coupled_index_.assign(n, -1);
        for (std::size_t j = 0; j < coupled.size(); ++j)
            coupled_index_[static_cast<std::size_t>(coupled[j])] = static_cast<int>(j);
        coupled_->prepare(in, kappa);
    }
}

void LocalProblem::start_round(const VecX& x, double kappa) {
    round_start_ = x;
    whole_.set_barrier_stiffness(kappa);
    if (!split()) {
        whole_.lag_friction(x);
        return;
    }
    whole_.scatter(x, world_);
    VecX part;
    for (StepSystem* s : systems()) {
        s->set_barrier_stiffness(kappa);
        s->gather(world_, part);
        s->lag_friction(part);
    }
    internal_due_ = true;
}

void LocalProblem::merge(double kappa) {
    // The whole system takes over for the rest of the step, with the friction of this round.
    whole_.set_barrier_stiffness(std::max(kappa, barrier_stiffness()));
    merged_ = true;
    whole_.lag_friction(round_start_);
}

NewtonStats LocalProblem::solve(VecX& x, double kappa, const std::vector<ConsensusTerm>& terms,
                                const SolverParams& inexact, const SolverParams& exact) {
    internal_stats_ = NewtonStats{};
    if (!split()) {
        whole_consensus_.set_terms(terms);
        return whole_.newton(x, kappa, inexact, std::nullopt);
    }
    whole_.scatter(x, world_);
    VecX part;
    if (internal_due_) {
        // Each island to convergence; the statistics as one machine folds its islands': the
        // most iterations of any island, the other counts and times summed, the worst status.
        for (std::size_t i = 0; i < internal_.size(); ++i) {
            internal_[i]->gather(world_, part);
            const NewtonStats s = internal_[i]->newton(part, kappa, exact, std::nullopt);
            internal_[i]->scatter(part, world_);
            fold(internal_stats_, s, i == 0);
        }
        internal_due_ = false;
    }
    NewtonStats st;
    if (coupled_) {
        std::vector<ConsensusTerm> mapped = terms;
        for (ConsensusTerm& t : mapped) t.body = coupled_index_[static_cast<std::size_t>(t.body)];
        coupled_consensus_.set_terms(std::move(mapped));
        coupled_->gather(world_, part);
        st = coupled_->newton(part, kappa, inexact, std::nullopt);
        coupled_->scatter(part, world_);
    } else {
        st = std::exchange(internal_stats_, NewtonStats{});  // nothing depends on z
    }
    whole_.gather(world_, x);
    // The islands assumed every vertex stays in its motion bounds; if one left them, the two
    // systems may have missed a pair between them.
    if (!within_bounds(bounds_, whole_.surface().positions(x))) merge(kappa);
    return st;
}

std::vector<StepSystem*> LocalProblem::systems() const {
    std::vector<StepSystem*> out;
    for (const auto& s : internal_) out.push_back(s.get());
    if (coupled_) out.push_back(coupled_.get());
    return out;
}

void LocalProblem::fold(NewtonStats& total, const NewtonStats& s, bool first) {
    if (first) {
        total = s;
        return;
    }
    total.iterations = std::max(total.iterations, s.iterations);
    total.line_search_trials += s.line_search_trials;
    total.ccd_limited += s.ccd_limited;
    total.linear_iterations += s.linear_iterations;
    total.t_collision += s.t_collision;
    total.t_assembly += s.t_assembly;
    total.t_linear += s.t_linear;
    total.t_line_search += s.t_line_search;
    if (static_cast<int>(s.status) > static_cast<int>(total.status)) {
        total.status = s.status;
        total.stop_reason = s.stop_reason;
    }
    total.history.clear();  // no single last update
}

double LocalProblem::barrier_stiffness() const {
    double k = whole_.barrier_stiffness();
    for (StepSystem* s : systems()) k = std::max(k, s->barrier_stiffness());
    return k;
}


int LocalProblem::internal_contacts() const {
    int c = 0;
    for (const auto& s : internal_) c += static_cast<int>(s->contacts().size());
    return c;
}

int LocalProblem::solved_bodies() const {
    if (!split()) return whole_movable_;
    return coupled_ ? coupled_movable_ : internal_movable_;
}

int LocalProblem::solved_contacts() const {
    if (!split()) return static_cast<int>(whole_.contacts().size());
    return coupled_ ? static_cast<int>(coupled_->contacts().size()) : internal_contacts();
}

}  // namespace concord
