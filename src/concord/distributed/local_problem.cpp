#include "concord/distributed/local_problem.hpp"

#include <algorithm>
#include <bit>

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
    if (!islands || shared_local.empty()) return;

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

    // Islands holding a shared body depend on z; the others do not.
    std::vector<char> in_coupled(n, 0), in_internal(n, 0);
    for (const Island& island : found) {
        const bool coupled = std::any_of(island.movable.begin(), island.movable.end(), [&](int b) {
            return std::find(shared_local.begin(), shared_local.end(), b) != shared_local.end();
        });
        auto& mark = coupled ? in_coupled : in_internal;
        for (int b : island.movable) mark[static_cast<std::size_t>(b)] = 1;
        for (int b : island.obstacles) mark[static_cast<std::size_t>(b)] = 1;
    }
    std::vector<int> coupled, internal;
    for (std::size_t k = 0; k < n; ++k) {
        if (in_coupled[k]) coupled.push_back(static_cast<int>(k));
        if (in_internal[k]) internal.push_back(static_cast<int>(k));
        if (in_internal[k] && movable[k]) ++internal_movable_;
        if (in_coupled[k] && movable[k]) ++coupled_movable_;
    }
    if (internal_movable_ == 0) return;

    const SystemReplication rep_i = replication_of(model, ids, masks, internal);
    const SystemReplication rep_c = replication_of(model, ids, masks, coupled);
    internal_ = std::make_unique<StepSystem>(model, world_ids(ids, internal), nullptr, &rep_i);
    coupled_ = std::make_unique<StepSystem>(model, world_ids(ids, coupled), nullptr, &rep_c);
    coupled_->add_term(coupled_consensus_);
    coupled_index_.assign(n, -1);
    for (std::size_t j = 0; j < coupled.size(); ++j)
        coupled_index_[static_cast<std::size_t>(coupled[j])] = static_cast<int>(j);
    internal_->prepare(in, kappa);
    coupled_->prepare(in, kappa);
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
    for (StepSystem* s : {internal_.get(), coupled_.get()}) {
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
    internal_stats_.iterations = 0;
    if (!split()) {
        whole_consensus_.set_terms(terms);
        return whole_.newton(x, kappa, inexact, std::nullopt);
    }
    whole_.scatter(x, world_);
    VecX part;
    if (internal_due_) {
        internal_->gather(world_, part);
        internal_stats_ = internal_->newton(part, kappa, exact, std::nullopt);
        internal_->scatter(part, world_);
        internal_due_ = false;
    }
    std::vector<ConsensusTerm> mapped = terms;
    for (ConsensusTerm& t : mapped) t.body = coupled_index_[static_cast<std::size_t>(t.body)];
    coupled_consensus_.set_terms(std::move(mapped));
    coupled_->gather(world_, part);
    const NewtonStats st = coupled_->newton(part, kappa, inexact, std::nullopt);
    coupled_->scatter(part, world_);
    whole_.gather(world_, x);
    // The islands assumed every vertex stays in its motion bounds; if one left them, the two
    // systems may have missed a pair between them.
    if (!within_bounds(bounds_, whole_.surface().positions(x))) merge(kappa);
    return st;
}

double LocalProblem::barrier_stiffness() const {
    double k = whole_.barrier_stiffness();
    if (coupled_) k = std::max({k, coupled_->barrier_stiffness(), internal_->barrier_stiffness()});
    return k;
}

int LocalProblem::solved_bodies() const {
    return split() ? coupled_movable_ : whole_movable_;
}

int LocalProblem::internal_contacts() const {
    return internal_ ? static_cast<int>(internal_->contacts().size()) : 0;
}

int LocalProblem::solved_contacts() const {
    return static_cast<int>(split() ? coupled_->contacts().size() : whole_.contacts().size());
}

}  // namespace concord
