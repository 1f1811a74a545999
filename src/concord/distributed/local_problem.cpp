#include "concord/distributed/local_problem.hpp"

#include <algorithm>
#include <bit>
#include <map>
#include <set>
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
    add_work(total, s);
    if (static_cast<int>(s.status) > static_cast<int>(total.status)) {
        total.status = s.status;
        total.stop_reason = s.stop_reason;
    }
    total.history.clear();  // no single last update
}

// The statistics of a solve followed by another of the same system: the iterations, counts
// and times of both, the status and last update of the second.
NewtonStats then(const NewtonStats& first, NewtonStats next) {
    next.iterations += first.iterations;
    add_work(next, first);
    return next;
}

}  // namespace

LocalProblem::LocalProblem(const WorldModel& model, LocalSystemRef whole,
                           const std::vector<int>& ids, const std::vector<std::uint64_t>& masks,
                           const std::vector<int>& shared_local, const StepInput& in, double kappa,
                           bool islands, const LocalSystemSource& source)
    : model_(model),
      in_(in),
      whole_(whole),
      ids_(ids),
      masks_(masks),
      shared_local_(shared_local),
      source_(source),
      kappa_start_(kappa),
      world_(in.q) {
    const auto n = ids.size();
    for (std::size_t k = 0; k < n; ++k)
        whole_movable_ += model.movable[static_cast<std::size_t>(ids[k])] ? 1 : 0;
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
    VecX predicted_system;
    sys.gather(in.q, start_);
    sys.gather(predicted, predicted_system);
    bounds_ = step_motion_bounds(sys.surface(), start_, predicted_system, model.spec.contact.dhat);
    Groups groups = group_islands();
    // Nothing to split: every island holds a shared body, or there is one island only.
    if (!splits(groups)) {
        unsplit();
        return;
    }
    for (std::vector<int>& island : groups.internal)
        internal_.push_back(make_part(std::move(island), kappa));
    if (!groups.coupled.empty()) set_coupled(make_part(std::move(groups.coupled), kappa));
    internal_movable_ = groups.internal_movable;
    coupled_movable_ = groups.coupled_movable;
}

// The islands over the motion bounds: those holding a shared body (with their obstacles) make
// the coupled group, each of the others is a group of its own.
LocalProblem::Groups LocalProblem::group_islands() {
    const auto n = ids_.size();
    std::vector<bool> movable(n);
    std::vector<std::uint8_t> is_static(n);
    for (std::size_t k = 0; k < n; ++k) {
        movable[k] = model_.movable[static_cast<std::size_t>(ids_[k])];
        is_static[k] = movable[k] ? 0 : 1;
    }
    BroadPhaseParams bp;
    bp.dhat = model_.spec.contact.dhat;
    bp.body_pair_filter =
        contact_pair_filter(std::move(is_static), pairs_within(model_.spec.contact.exclude, ids_));
    const std::vector<Island> found =
        find_islands(movable, whole_.system->interacting_pairs(bounds_.lo, bounds_.hi, bp));

    Groups out;
    std::vector<char> in_coupled(n, 0);
    for (const Island& island : found) {
        const bool coupled = std::any_of(island.movable.begin(), island.movable.end(), [&](int b) {
            return std::binary_search(shared_local_.begin(), shared_local_.end(), b);
        });
        if (coupled) {
            for (int b : island.movable) in_coupled[static_cast<std::size_t>(b)] = 1;
            for (int b : island.obstacles) in_coupled[static_cast<std::size_t>(b)] = 1;
        } else {
            out.internal.push_back(island.bodies());  // whole-system indices, sorted
            out.internal_movable += static_cast<int>(island.movable.size());
        }
    }
    for (std::size_t k = 0; k < n; ++k) {
        if (!in_coupled[k] || !movable[k]) continue;
        ++out.coupled_movable;
    }
    if (out.coupled_movable > 0)
        for (std::size_t k = 0; k < n; ++k)
            if (in_coupled[k]) out.coupled.push_back(static_cast<int>(k));
    return out;
}

bool LocalProblem::splits(const Groups& g) {
    return !g.internal.empty() && !(g.coupled_movable == 0 && g.internal.size() == 1);
}

LocalProblem::Part LocalProblem::make_part(std::vector<int> index, double kappa) {
    Part part{source_(world_ids(ids_, index), masks_of(masks_, index)), std::move(index)};
    part.ref.consensus->set_terms({});
    prepare(part.ref, kappa);
    return part;
}

void LocalProblem::prepare(const LocalSystemRef& ref, double kappa) {
    if (ref.donor && !ref.system->broad_phase_cached())
        ref.system->adopt_broad_phase(*ref.donor, in_.q);
    ref.system->prepare(in_, kappa);
}

void LocalProblem::set_coupled(Part part) {
    coupled_ = std::move(part);
    coupled_index_.assign(ids_.size(), -1);
    for (std::size_t j = 0; j < coupled_.index.size(); ++j)
        coupled_index_[static_cast<std::size_t>(coupled_.index[j])] = static_cast<int>(j);
}

StepSystem& LocalProblem::whole() {
    if (!whole_prepared_) {
        whole_.consensus->set_terms({});
        prepare(whole_, kappa_start_);
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
    // Augmented-Lagrangian contact has no barrier stiffness to balance.
    if (model_.spec.contact.model == ContactModel::AugmentedLagrangian) return out;
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
    std::sort(
        out.shared.begin(), out.shared.end(),
        [](const StiffnessShare::Piece& a, const StiffnessShare::Piece& b) { return a.id < b.id; });
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
    NewtonStats st = solve_once(x, kappa, terms, inexact, exact);
    // A system that grew (or the whole one, taking over) starts from a cut state it has not
    // solved: solve it before anything reports this iteration's result.
    while (unsettled_) {
        unsettled_ = false;
        st = then(st, solve_once(x, kappa, terms, inexact, exact));
    }
    return st;
}

NewtonStats LocalProblem::solve_once(VecX& x, double kappa, const std::vector<ConsensusTerm>& terms,
                                     const SolverParams& inexact, const SolverParams& exact) {
    if (!split()) {
        whole_.consensus->set_terms(terms);
        return whole().newton(x, kappa, inexact, std::nullopt);
    }
    const VecX x_prev = x;
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
    settle(x_prev, x, kappa, exact);
    return st;
}

// The islands assumed every vertex stays in its motion bounds. When one left them, as World
// does: grow the bounds by the motion made, find the islands again (they can only merge), keep
// the systems whose islands did not change (their results are exact for them) and start each
// merged one from a certified state: the chord from x_prev, where every system lay in the old
// bounds (so no pair across systems was within dhat), to x, cut by CCD over the new system;
// both ends lie in the grown bounds, so the chords of different islands stay apart. A merged
// island without shared bodies is solved again at once; a grown coupled system is left
// unsettled (solve() solves it again). After kMaxIslandRounds rounds, or when it is all one
// island, the whole system takes over from the chord cut by CCD over it.
void LocalProblem::settle(const VecX& x_prev, VecX& x, double kappa, const SolverParams& exact) {
    constexpr int kMaxIslandRounds = 4;
    StepSystem& whole_sys = *whole_.system;
    const double dhat = model_.spec.contact.dhat;
    while (!within_bounds(bounds_, whole_sys.surface().positions(x))) {
        ++island_rounds_;
        const MotionBounds reached = step_motion_bounds(whole_sys.surface(), start_, x, dhat);
        bounds_.lo = bounds_.lo.cwiseMin(reached.lo);
        bounds_.hi = bounds_.hi.cwiseMax(reached.hi);
        Groups g;
        if (island_rounds_ < kMaxIslandRounds) g = group_islands();
        if (!splits(g)) {
            whole();
            x = x_prev + whole_sys.ccd_fraction(x_prev, x) * (x - x_prev);
            merge(kappa);
            unsettled_ = true;
            return;
        }
        const double k = std::max(kappa, barrier_stiffness());
        VecX prev_world = in_.q, round_world = in_.q, a, b;
        whole_sys.scatter(x_prev, prev_world);
        whole_sys.scatter(round_start_, round_world);
        whole_sys.scatter(x, world_);
        // A new system starts on its chord, stiffness k, friction lagged at the round's start.
        auto start_on_chord = [&](Part& p) {
            StepSystem& s = *p.ref.system;
            s.gather(prev_world, a);
            s.gather(world_, b);
            VecX at = a + s.ccd_fraction(a, b) * (b - a);
            s.set_barrier_stiffness(k);
            s.gather(round_world, b);
            s.lag_friction(b);
            return at;
        };
        std::vector<Part> internal;
        bool first = internal_stats_.iterations == 0 && internal_stats_.history.empty();
        for (std::vector<int>& island : g.internal) {
            auto same = std::find_if(internal_.begin(), internal_.end(),
                                     [&](const Part& p) { return p.index == island; });
            if (same != internal_.end()) {
                internal.push_back(std::move(*same));
                continue;
            }
            Part p = make_part(std::move(island), kappa_start_);
            VecX at = start_on_chord(p);
            const NewtonStats st = p.ref.system->newton(at, k, exact, std::nullopt);
            p.ref.system->scatter(at, world_);
            fold(internal_stats_, st, first);
            first = false;
            internal.push_back(std::move(p));
        }
        internal_ = std::move(internal);
        internal_movable_ = g.internal_movable;
        if (g.coupled != coupled_.index) {
            Part p = make_part(std::move(g.coupled), kappa_start_);
            const VecX at = start_on_chord(p);
            p.ref.system->scatter(at, world_);
            set_coupled(std::move(p));
            coupled_movable_ = g.coupled_movable;
            unsettled_ = true;
        }
        whole_sys.gather(world_, x);
    }
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

AlContactMemory LocalProblem::al_memory() const {
    if (!split()) return whole_.system->al_memory();
    AlContactMemory out;
    for (const Part* p : parts()) {
        const AlContactMemory m = p->ref.system->al_memory();
        out.insert(out.end(), m.begin(), m.end());
    }
    // Disjoint sets (each pair has a movable body, which is in one system only).
    std::sort(out.begin(), out.end());
    return out;
}

LocalMeasure LocalProblem::measure(const VecX& x, const std::function<bool(int, int)>& keep) {
    LocalMeasure out;
    std::map<int, int> counts;  // world body -> pairs (a static body may be in several systems)
    std::set<int> touching;
    std::set<std::pair<int, int>> touching_pairs;
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
            touching.insert(wa);
            if (wb >= 0) {
                touching.insert(wb);
                if (wa != wb) touching_pairs.insert({std::min(wa, wb), std::max(wa, wb)});
            }
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
    out.touching.assign(touching.begin(), touching.end());
    out.touching_pairs.assign(touching_pairs.begin(), touching_pairs.end());
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
