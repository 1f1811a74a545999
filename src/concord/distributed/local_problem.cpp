#include "concord/distributed/local_problem.hpp"

#include <algorithm>
#include <map>
#include <bit>
#include <utility>

#include "concord/collision/broad_phase/body_pair_filter.hpp"

namespace concord {

namespace {

std::vector<int> world_ids(const std::vector<int>& ids, const std::vector<int>& subset) {
    std::vector<int> out;
    for (int k : subset) out.push_back(ids[static_cast<std::size_t>(k)]);
    return out;
}

std::vector<std::uint64_t> masks_of(const std::vector<std::uint64_t>& masks,
                                    const std::vector<int>& subset) {
    std::vector<std::uint64_t> out;
    for (int k : subset) out.push_back(masks[static_cast<std::size_t>(k)]);
    return out;
}

// Folds one island's statistics into the total as one machine folds its islands': the most
// iterations of any island, the other counts and times summed, the worst status.
void fold(NewtonStats& total, const NewtonStats& s, bool first) {
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

}  // namespace

LocalProblem::LocalProblem(const WorldModel& model, LocalSystemRef whole,
                           const std::vector<int>& ids, const std::vector<std::uint64_t>& masks,
                           const std::vector<int>& shared_local, const StepInput& in,
                           double kappa, bool islands, BroadPhase& broad_phase,
                           const LocalSystemSource& source)
    : model_(model),
      in_(in),
      whole_(whole),
      ids_(ids),
      shared_local_(shared_local),
      kappa_start_(kappa),
      world_(in.q) {
    const auto n = ids.size();
    std::vector<bool> movable(n);
    for (std::size_t k = 0; k < n; ++k) {
        movable[k] = model.movable[static_cast<std::size_t>(ids[k])];
        whole_movable_ += movable[k] ? 1 : 0;
    }
    auto unsplit = [this] {
        internal_.clear();
        internal_movable_ = coupled_movable_ = 0;
        this->whole();
    };
    // Joined bodies are solved together: with joints the problem is one system, as World
    // solves such scenes.
    if (!islands || !model.joints.empty()) {
        unsplit();
        return;
    }

    // The islands of the step (World::find_step_islands over this system's bodies).
    StepSystem& sys = *whole_.system;
    VecX predicted = in.q_tilde;
    for (std::size_t k = 0; k < n; ++k)
        if (model.kinematic[static_cast<std::size_t>(ids[k])])
            predicted.segment<12>(12 * ids[k]) = in.target.segment<12>(12 * ids[k]);
    VecX start_system, predicted_system;
    sys.gather(in.q, start_system);
    sys.gather(predicted, predicted_system);
    bounds_ = step_motion_bounds(sys.surface(), start_system, predicted_system,
                                 model.spec.contact.dhat);
    BroadPhaseParams bp;
    bp.dhat = model.spec.contact.dhat;
    std::vector<std::uint8_t> is_static(n);
    for (std::size_t k = 0; k < n; ++k) is_static[k] = movable[k] ? 0 : 1;
    bp.body_pair_filter = skip_static_pairs(std::move(is_static));
    const Candidates c = broad_phase.find(sys.surface().mesh, bounds_.lo, bounds_.hi, bp);
    const std::vector<Island> found =
        find_islands(movable, candidate_body_pairs(sys.surface().mesh, c));

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
        unsplit();
        return;
    }
    for (std::vector<int>& island : internal) {
        Part part{source(world_ids(ids, island), masks_of(masks, island)), std::move(island)};
        part.ref.consensus->set_terms({});
        part.ref.system->prepare(in, kappa);
        internal_.push_back(std::move(part));
    }
    if (coupled_movable_ > 0) {
        coupled_ = {source(world_ids(ids, coupled), masks_of(masks, coupled)), coupled};
        coupled_.ref.consensus->set_terms({});
        coupled_index_.assign(n, -1);
        for (std::size_t j = 0; j < coupled.size(); ++j)
            coupled_index_[static_cast<std::size_t>(coupled[j])] = static_cast<int>(j);
        coupled_.ref.system->prepare(in, kappa);
    }
}

StepSystem& LocalProblem::whole() {
    if (!whole_prepared_) {
        whole_.consensus->set_terms({});
        whole_.system->prepare(in_, kappa_start_);
        whole_prepared_ = true;
    }
    return *whole_.system;
}

std::vector<const LocalProblem::Part*> LocalProblem::parts() const {
    std::vector<const Part*> out;
    for (const Part& p : internal_) out.push_back(&p);
    if (coupled_.ref.system) out.push_back(&coupled_);
    return out;
}

// Per system: its bodies' gradients at the start, summed over the bodies held here alone; the
// shared bodies' pieces go out whole. Every body is in one system, so the sums are the whole
// system's (up to the order of additions within a body).
StiffnessShare LocalProblem::stiffness_share() {
    StiffnessShare out;
    auto add = [&](StepSystem& sys, const std::vector<int>* index) {
        const ContactSet& c = sys.contacts();
        out.internal.has_contacts = out.internal.has_contacts || c.size() > 0;
        VecX g_rest, g_unit;
        sys.start_gradients(g_rest, g_unit);
        const std::vector<int>& bodies = sys.bodies();
        for (std::size_t k = 0; k < bodies.size(); ++k) {
            if (!model_.movable[static_cast<std::size_t>(bodies[k])]) continue;
            const int local = index ? (*index)[k] : static_cast<int>(k);
            const int kk = static_cast<int>(k);
            VecX rest = sys.body_coordinates(g_rest, kk), unit = sys.body_coordinates(g_unit, kk);
            if (std::binary_search(shared_local_.begin(), shared_local_.end(), local)) {
                out.shared.push_back({bodies[k], std::move(rest), std::move(unit)});
                continue;
            }
            out.internal.dot += unit.dot(rest);
            out.internal.norm_sq += unit.squaredNorm();
        }
    };
    if (!split()) {
        add(whole(), nullptr);
    } else {
        for (const Part* p : parts()) add(*p->ref.system, &p->index);
    }
    std::sort(out.shared.begin(), out.shared.end(),
              [](const StiffnessShare::Piece& a, const StiffnessShare::Piece& b) {
                  return a.id < b.id;
              });
    return out;
}

void LocalProblem::start_round(const VecX& x, double kappa) {
    round_start_ = x;
    if (!split()) {
        StepSystem& sys = whole();
        sys.set_barrier_stiffness(kappa);
        sys.lag_friction(x);
        return;
    }
    whole_.system->scatter(x, world_);
    VecX part;
    for (const Part* p : parts()) {
        StepSystem& s = *p->ref.system;
        s.set_barrier_stiffness(kappa);
        s.gather(world_, part);
        s.lag_friction(part);
    }
    internal_due_ = true;
}

void LocalProblem::merge(double kappa) {
    // The whole system takes over for the rest of the step, with the friction of this round.
    const double k = std::max(kappa, barrier_stiffness());
    StepSystem& sys = whole();
    sys.set_barrier_stiffness(k);
    merged_ = true;
    sys.lag_friction(round_start_);
}

NewtonStats LocalProblem::solve(VecX& x, double kappa, const std::vector<ConsensusTerm>& terms,
                                const SolverParams& inexact, const SolverParams& exact) {
    internal_stats_ = NewtonStats{};
    if (!split()) {
        whole_.consensus->set_terms(terms);
        return whole().newton(x, kappa, inexact, std::nullopt);
    }
    StepSystem& whole_sys = *whole_.system;
    whole_sys.scatter(x, world_);
    VecX part;
    if (internal_due_) {
        for (std::size_t i = 0; i < internal_.size(); ++i) {
            StepSystem& s = *internal_[i].ref.system;
            s.gather(world_, part);
            const NewtonStats st = s.newton(part, kappa, exact, std::nullopt);
            s.scatter(part, world_);
            fold(internal_stats_, st, i == 0);
        }
        internal_due_ = false;
    }
    NewtonStats st;
    if (coupled_.ref.system) {
        std::vector<ConsensusTerm> mapped = terms;
        StepSystem& s = *coupled_.ref.system;
        for (ConsensusTerm& t : mapped) {
            t.body = coupled_index_[static_cast<std::size_t>(t.body)];
            t.modal_offset = s.modal_offset(t.body);
        }
        coupled_.ref.consensus->set_terms(std::move(mapped));
        s.gather(world_, part);
        st = s.newton(part, kappa, inexact, std::nullopt);
        s.scatter(part, world_);
    } else {
        st = std::exchange(internal_stats_, NewtonStats{});  // nothing depends on z
    }
    whole_sys.gather(world_, x);
    // The islands assumed every vertex stays in its motion bounds; if one left them, the two
    // systems may have missed a pair between them.
    if (!within_bounds(bounds_, whole_sys.surface().positions(x))) merge(kappa);
    return st;
}

double LocalProblem::ccd_fraction(const VecX& x0, const VecX& x1) {
    StepSystem& whole_sys = *whole_.system;
    if (!split() || !coupled_.ref.system ||
        !within_bounds(bounds_, whole_sys.surface().positions(x1)))
        return whole_sys.ccd_fraction(x0, x1);
    std::vector<VecX> at0(internal_.size());
    VecX coupled0, coupled1, part;
    whole_sys.scatter(x0, world_);
    for (std::size_t i = 0; i < internal_.size(); ++i)
        internal_[i].ref.system->gather(world_, at0[i]);
    coupled_.ref.system->gather(world_, coupled0);
    whole_sys.scatter(x1, world_);
    for (std::size_t i = 0; i < internal_.size(); ++i) {
        internal_[i].ref.system->gather(world_, part);
        if (part != at0[i]) return whole_sys.ccd_fraction(x0, x1);  // an island moves too
    }
    coupled_.ref.system->gather(world_, coupled1);
    return coupled_.ref.system->ccd_fraction(coupled0, coupled1);
}

LocalMeasure LocalProblem::measure(const VecX& x, const std::function<bool(int, int)>& keep) {
    LocalMeasure out;
    std::map<int, int> counts;  // world body -> pairs (a static body may be in several systems)
    auto add = [&](StepSystem& sys, const VecX& xs, const std::vector<int>* index) {
        SystemStepResult r;
        sys.measure(xs, r);
        out.candidates = std::max(out.candidates, r.candidates);
        out.min_distance = std::min(out.min_distance, r.min_distance);
        out.joints.take_worst(r.joint_residual);
        auto keep_here = [&](int a, int b) {
            const int wa = index ? (*index)[static_cast<std::size_t>(a)] : a;
            const int wb = b < 0 ? -1 : (index ? (*index)[static_cast<std::size_t>(b)] : b);
            const bool here = keep(wa, wb);
            out.contacts += here ? 1 : 0;
            return here;
        };
        for (const BodyContactCount& c :
             count_body_contacts(sys.contacts(), sys.surface(), sys.bodies(), keep_here, scratch_))
            counts[c.body] += c.count;
    };
    if (!split()) {
        add(whole(), x, nullptr);
    } else {
        whole_.system->scatter(x, world_);
        VecX part;
        for (const Part* p : parts()) {
            p->ref.system->gather(world_, part);
            add(*p->ref.system, part, &p->index);
        }
    }
    for (const auto& [body, count] : counts) out.body_contacts.push_back({body, count});
    return out;
}

double LocalProblem::barrier_stiffness() const {
    double k = whole_prepared_ ? whole_.system->barrier_stiffness() : 0.0;
    for (const Part* p : parts()) k = std::max(k, p->ref.system->barrier_stiffness());
    return k;
}

int LocalProblem::internal_contacts() const {
    int c = 0;
    for (const Part& p : internal_) c += static_cast<int>(p.ref.system->contacts().size());
    return c;
}

int LocalProblem::solved_bodies() const {
    if (!split()) return whole_movable_;
    return coupled_.ref.system ? coupled_movable_ : internal_movable_;
}

int LocalProblem::solved_contacts() const {
    if (!split()) return static_cast<int>(whole_.system->contacts().size());
    return coupled_.ref.system ? static_cast<int>(coupled_.ref.system->contacts().size())
                               : internal_contacts();
}

}  // namespace concord
