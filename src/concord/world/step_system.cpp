#include "concord/world/step_system.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <map>
#include <stdexcept>

#include "concord/solver/al_newton_solver.hpp"
#include "concord/solver/hybrid_newton_solver.hpp"

namespace concord {

namespace {

double seconds_since(SolverClock::time_point t0) {
    return std::chrono::duration<double>(SolverClock::now() - t0).count();
}

// Weight of the energy that keeps kinematic bodies on their prescribed pose, relative to
// their inertia: a contact force F moves a kinematic body off its path by about
// h^2 F / (weight m), and the step ends by snapping it exactly onto the path when CCD allows.
constexpr double kKinematicWeight = 1e6;

/// Where the modal coordinates of each system body go in system vectors: after the 12 per
/// body, in system order (-1 for affine bodies).
std::vector<int> system_modal_offsets(const WorldModel& model, const std::vector<int>& bodies) {
    std::vector<int> offsets;
    int next = 12 * static_cast<int>(bodies.size());
    for (int b : bodies) {
        const AffineBody& body = model.bodies[static_cast<std::size_t>(b)];
        offsets.push_back(body.is_elastic() ? next : -1);
        if (body.is_elastic()) next += body.modal->num_modes;
    }
    return offsets;
}

ContactSurface subset_surface(const WorldModel& model, const std::vector<int>& bodies) {
    std::vector<const AffineBody*> ptrs;
    ptrs.reserve(bodies.size());
    for (int b : bodies) ptrs.push_back(&model.bodies[static_cast<std::size_t>(b)]);
    ContactSurface s = build_contact_surface(ptrs);
    assign_surface_modes(s, ptrs, system_modal_offsets(model, bodies));
    return s;
}

}  // namespace

StepSystem::StepSystem(const WorldModel& model, std::vector<int> bodies,
                       const ContactSurface* surface, const SystemReplication* replication)
    : model_(model), bodies_(std::move(bodies)) {
    if (replication) replication_ = *replication;
    if (surface == nullptr) {
        own_surface_ = subset_surface(model_, bodies_);
        surface_ = &own_surface_;
    } else {
        surface_ = surface;
    }
    std::vector<bool> dynamic, kinematic;
    IncrementalPotentialConfig cfg;
    std::vector<ReducedInertiaBody> reduced_inertia;
    std::vector<ModalElasticityBody> modal_elasticity;
    modal_offsets_ = system_modal_offsets(model_, bodies_);
    for (std::size_t k = 0; k < bodies_.size(); ++k) {
        const auto i = static_cast<std::size_t>(bodies_[k]);
        const AffineBody& body = model_.bodies[i];
        // 1/kappa_b: this system's share of the body's inertia and stiffness.
        const double w = replication_ ? replication_->body_weight[k] : 1.0;
        movable_.push_back(model_.movable[i]);
        if (body.is_elastic()) {
            // Reduced elastic bodies (always dynamic): their inertia is the reduced one over
            // frame and modes together; the affine inertia below skips them.
            const ElasticDofs dofs{static_cast<int>(k), modal_offsets_[k], body.modal->num_modes};
            reduced_inertia.push_back({dofs, w * body.modal->reduced_mass});
            modal_elasticity.push_back(
                {dofs, w * body.modal->modal_stiffness, w * body.modal->modal_damping});
            for (int j = 0; j < dofs.num_modes; ++j) {
                cfg.modal_scale.push_back(body.modal->mode_scale[j]);
                cfg.modal_body.push_back(static_cast<int>(k));
            }
        }
        dynamic.push_back(model_.dynamic[i] && !body.is_elastic());
        kinematic.push_back(model_.kinematic[i]);
        any_kinematic_ = any_kinematic_ || model_.kinematic[i];
        for (int d = 0; d < 12; ++d) free_dof_.push_back(model_.movable[i]);
        cfg.body_radius.push_back(body.bounding_radius);
        cfg.body_lever_arm.push_back(model_.lever_arms[i]);
    }
    ShareWeighted weighted = share_weighted();
    cfg.body_mass = std::move(weighted.body_mass);
    cfg.body_movable = movable_;
    cfg.excluded_pairs = pairs_within(model_.spec.contact.exclude, bodies_);
    cfg.time_step = model_.spec.time_step;
    cfg.dhat = model_.spec.contact.dhat;
    cfg.scene_scale = model_.scene_scale;
    cfg.characteristic_acceleration = model_.characteristic_acceleration;

    inertia_ = std::make_unique<InertiaEnergy>(std::move(weighted.masses), dynamic);
    kinematic_target_ = std::make_unique<InertiaEnergy>(std::move(weighted.kinematic_masses),
                                                        kinematic, "kinematic_target");
    orthogonality_ = std::make_unique<OrthogonalityEnergy>(std::move(weighted.orthogonality));
    barrier_ = std::make_unique<BarrierEnergy>(*surface_, model_.planes, movable_,
                                               model_.spec.contact.dhat);
    if (replication_) barrier_->set_replication(&replication_->contacts);
    friction_ = std::make_unique<FrictionEnergy>(*surface_, movable_);
    potential_ = std::make_unique<IncrementalPotential>(*surface_, model_.planes, cfg, *inertia_,
                                                        *orthogonality_, *kinematic_target_,
                                                        *barrier_, *friction_);
    potential_->set_stiffness_bounds(model_.kappa_max);
    switch (model_.spec.contact.model) {
    case ContactModel::AugmentedLagrangian:
        al_ = make_al_contact();
        al_names_.emplace(*surface_, bodies_, static_cast<int>(model_.planes.size()));
        potential_->use_al_contact(al_.get());
        break;
    case ContactModel::Hybrid:
        hybrid_al_ = make_al_contact();
        al_names_.emplace(*surface_, bodies_, static_cast<int>(model_.planes.size()));
        potential_->use_hybrid_contact(hybrid_al_.get());
        break;
    case ContactModel::Barrier:
        break;
    }
    // Elastic bodies' unknowns: the modal coordinates follow the 12 per body.
    for (std::size_t k = 0; k < bodies_.size(); ++k)
        if (modal_offsets_[k] >= 0)
            for (int j = 0; j < model_.bodies[static_cast<std::size_t>(bodies_[k])].modal->num_modes; ++j)
                free_dof_.push_back(true);
    if (!reduced_inertia.empty()) {
        reduced_inertia_ = std::make_unique<ReducedInertiaEnergy>(std::move(reduced_inertia));
        modal_elasticity_ = std::make_unique<ModalElasticityEnergy>(std::move(modal_elasticity));
        potential_->add_term(*reduced_inertia_);
        potential_->add_term(*modal_elasticity_);
    }
    build_joints(cfg);
}

bool StepSystem::replication_settable() const {
    return replication_.has_value() && !reduced_inertia_ && !joints_;
}

void StepSystem::set_replication(const SystemReplication& replication) {
    if (!replication_settable())
        throw std::logic_error("StepSystem::set_replication: not a replicated affine system");
    if (replication.body_weight.size() != bodies_.size() ||
        replication.contacts.holders.size() != bodies_.size())
        throw std::logic_error("StepSystem::set_replication: wrong number of bodies");
    *replication_ = replication;  // the barrier keeps pointing at replication_->contacts
    ShareWeighted weighted = share_weighted();
    inertia_->set_masses(std::move(weighted.masses));
    kinematic_target_->set_masses(std::move(weighted.kinematic_masses));
    orthogonality_->set_weights(std::move(weighted.orthogonality));
    potential_->set_body_mass(std::move(weighted.body_mass));
}

std::unique_ptr<AlContactEnergy> StepSystem::make_al_contact() const {
    std::vector<double> mass;
    for (int b : bodies_) mass.push_back(model_.bodies[static_cast<std::size_t>(b)].mass_properties.mass);
    AlContactParams ap;
    ap.dhat = model_.spec.contact.dhat;
    ap.penalty_scale = model_.spec.contact.al_penalty;
    ap.load_compression = model_.spec.contact.al_load_compression;
    auto al = std::make_unique<AlContactEnergy>(*surface_, model_.planes, movable_, std::move(mass), ap);
    if (replication_) al->set_replication(&replication_->contacts);
    return al;
}

AlSolveParams StepSystem::al_solve_params() const {
    return {.toi_threshold = model_.spec.contact.al_toi_threshold,
            .iterations = model_.spec.contact.al_iterations};
}

StepSystem::ShareWeighted StepSystem::share_weighted() const {
    ShareWeighted out;
    for (std::size_t k = 0; k < bodies_.size(); ++k) {
        const auto i = static_cast<std::size_t>(bodies_[k]);
        // 1/kappa_b: this system's share of the body's inertia and stiffness.
        const double w = replication_ ? replication_->body_weight[k] : 1.0;
        out.masses.push_back(w * model_.masses[i]);
        out.kinematic_masses.push_back(w * kKinematicWeight * model_.masses[i]);
        out.orthogonality.push_back(w * model_.orthogonality_weights[i]);
        out.body_mass.push_back(w * model_.bodies[i].mass_properties.mass);
    }
    return out;
}

void StepSystem::build_joints(const IncrementalPotentialConfig& cfg) {
    joint_slots_.assign(model_.joints.size(), -1);
    if (model_.joints.empty()) return;
    std::map<int, int> local;  // world body -> system body
    for (std::size_t k = 0; k < bodies_.size(); ++k) local[bodies_[k]] = static_cast<int>(k);
    const VecX q_world = model_.initial_state();
    VecX q0;
    gather(q_world, q0);
    // An attachment point in system numbering: modes sampled at the anchor on elastic bodies;
    // a static body outside the system is a fixed world point.
    auto point = [&](int world_body, const Vec3& anchor) {
        if (world_body < 0) return BodyPoint{-1, anchor, {}, -1};
        const auto w = static_cast<std::size_t>(world_body);
        const auto it = local.find(world_body);
        if (it == local.end())
            return BodyPoint{-1, affine_apply(q_world.segment<12>(12 * world_body), anchor), {}, -1};
        const AffineBody& body = model_.bodies[w];
        BodyPoint p{it->second, anchor, {}, -1};
        if (body.is_elastic()) {
            p.phi = body.modal->phi_at(anchor);
            p.modal_offset = modal_offsets_[static_cast<std::size_t>(it->second)];
        }
        return p;
    };
    std::vector<double> mass, length;
    for (int b : bodies_) {
        mass.push_back(model_.bodies[static_cast<std::size_t>(b)].mass_properties.mass);
        length.push_back(model_.bodies[static_cast<std::size_t>(b)].bounding_radius);
    }
    for (std::size_t j = 0; j < model_.joints.size(); ++j) {
        const JointSpec& spec = model_.joints[j];
        auto in_system = [&](int b) { return b >= 0 && local.count(b) > 0; };
        auto movable = [&](int b) { return b >= 0 && model_.movable[static_cast<std::size_t>(b)]; };
        if (!(in_system(spec.parent) && movable(spec.parent)) &&
            !(in_system(spec.child) && movable(spec.child)))
            continue;
        for (int b : {spec.parent, spec.child})
            if (movable(b) && !in_system(b))
                throw std::logic_error("joint " + std::to_string(j) + " spans two systems");
        if (!joints_)
            joints_ = std::make_unique<JointEnergy>(movable_, mass, length, cfg.time_step);
        JointSpec sys = spec;
        sys.parent = in_system(spec.parent) ? local[spec.parent] : -1;
        sys.child = in_system(spec.child) ? local[spec.child] : -1;
        const std::size_t added = joints_->add_joint(
            sys, point(spec.parent, spec.parent_anchor), point(spec.child, spec.child_anchor),
            q0, "joints[" + std::to_string(j) + "]");
        joint_slots_[j] = static_cast<int>(added);
        if (replication_) {
            // A distributed worker's share of the joint: 1/k for k workers holding its bodies
            // (the partition gives the bodies of a joint the same holders).
            std::uint64_t holders = 0;
            for (int b : {spec.parent, spec.child}) {
                if (!movable(b)) continue;
                const std::uint64_t h =
                    replication_->contacts.holders[static_cast<std::size_t>(local[b])];
                if (holders != 0 && h != holders)
                    throw std::logic_error("joint " + std::to_string(j) +
                                           ": its bodies have different holders");
                holders = h;
            }
            joints_->set_share(added, 1.0 / std::popcount(holders));
        }
    }
    if (joints_) potential_->add_term(*joints_);
}

void StepSystem::gather(const VecX& world, VecX& sys) const {
    sys.resize(static_cast<Eigen::Index>(free_dof_.size()));
    for (std::size_t k = 0; k < bodies_.size(); ++k) {
        sys.segment<12>(12 * static_cast<Eigen::Index>(k)) = world.segment<12>(12 * bodies_[k]);
        if (modal_offsets_[k] < 0) continue;
        const auto i = static_cast<std::size_t>(bodies_[k]);
        const int m = model_.bodies[i].modal->num_modes;
        sys.segment(modal_offsets_[k], m) = world.segment(model_.modal_offset[i], m);
    }
}

VecX StepSystem::body_coordinates(const VecX& x, int k) const {
    const int m = model_.body_dofs(bodies_[static_cast<std::size_t>(k)]) - 12;
    VecX out(12 + m);
    out.head<12>() = x.segment<12>(12 * k);
    if (m > 0) out.tail(m) = x.segment(modal_offset(k), m);
    return out;
}

void StepSystem::set_body_coordinates(VecX& x, int k, const VecX& block) const {
    x.segment<12>(12 * k) = block.head<12>();
    const auto m = block.size() - 12;
    if (m > 0) x.segment(modal_offset(k), m) = block.tail(m);
}

std::vector<int> StepSystem::movable_bodies() const {
    std::vector<int> out;
    for (std::size_t k = 0; k < bodies_.size(); ++k)
        if (movable_[k]) out.push_back(bodies_[k]);
    return out;
}

double starting_barrier_stiffness(const WorldModel& model, double kappa,
                                  const StiffnessBalance& total) {
    if (model.spec.contact.barrier_stiffness > 0 || !total.has_contacts || !(total.norm_sq > 0))
        return kappa;
    return std::max(kappa,
                    std::clamp(-total.dot / total.norm_sq, model.kappa_min, model.kappa_max));
}

int StepSystem::adopt_broad_phase(const StepSystem& donor, const VecX& q) {
    // Both body lists are sorted world indices; each surface numbers its bodies by position.
    std::vector<int> donor_body(bodies_.size(), -1);
    std::size_t j = 0;
    for (std::size_t k = 0; k < bodies_.size(); ++k) {
        while (j < donor.bodies_.size() && donor.bodies_[j] < bodies_[k]) ++j;
        if (j < donor.bodies_.size() && donor.bodies_[j] == bodies_[k])
            donor_body[k] = static_cast<int>(j);
    }
    VecX q_system;
    gather(q, q_system);
    potential_->adopt_broad_phase(*donor.potential_, donor_body, q_system);
    return potential_->broad_phase().adopted_bodies();
}

bool StepSystem::broad_phase_cached() const { return potential_->broad_phase().cached(); }

void BroadPhaseDonors::clear() {
    systems_.clear();
    for (std::vector<int>& h : holding_) h.clear();
}

void BroadPhaseDonors::add(const StepSystem& system) {
    const int index = static_cast<int>(systems_.size());
    systems_.push_back(&system);
    const std::vector<int>& bodies = system.bodies();
    for (std::size_t k = 0; k < bodies.size(); ++k) {
        if (!system.movable(static_cast<int>(k))) continue;
        const auto b = static_cast<std::size_t>(bodies[k]);
        if (holding_.size() <= b) holding_.resize(b + 1);
        holding_[b].push_back(index);
    }
}

const StepSystem* BroadPhaseDonors::donor_for(const std::vector<int>& bodies) const {
    std::vector<std::pair<int, int>> votes;  // (system, movable bodies in common), by system
    for (int b : bodies) {
        if (static_cast<std::size_t>(b) >= holding_.size()) continue;
        for (int s : holding_[static_cast<std::size_t>(b)]) {
            auto it = std::lower_bound(votes.begin(), votes.end(), std::make_pair(s, 0));
            if (it == votes.end() || it->first != s) it = votes.insert(it, {s, 0});
            ++it->second;
        }
    }
    const StepSystem* best = nullptr;
    int best_votes = 0;
    for (const auto& [s, n] : votes) {
        const StepSystem* system = systems_[static_cast<std::size_t>(s)];
        if (n > best_votes && system->broad_phase_cached()) {
            best = system;
            best_votes = n;
        }
    }
    return best;
}

std::vector<std::pair<int, int>> StepSystem::interacting_pairs(const Vertices& x0,
                                                               const Vertices& x1,
                                                               const BroadPhaseParams& params) {
    if (!mesh_by_body_) {
        validate_collision_mesh(surface_->mesh);
        mesh_by_body_.emplace(surface_->mesh);
    }
    return interacting_body_pairs(surface_->mesh, *mesh_by_body_, x0, x1, params);
}

StiffnessBalance StepSystem::prepare(const StepInput& in, double kappa) {
    VecX q_tilde;
    gather(in.q, q_start_);
    gather(in.q_tilde, q_tilde);
    gather(in.target, target_);
    time_step_ = in.time_step;
    inertia_->set_predicted(q_tilde);
    if (reduced_inertia_) {
        reduced_inertia_->set_step(q_start_, q_tilde);
        modal_elasticity_->set_step(q_start_, time_step_);
    }
    if (joints_) {
        joints_->set_time_step(time_step_);
        joints_->begin_step(in.time_end, q_start_);
    }
    kinematic_target_->set_predicted(target_);
    potential_->set_time_step(time_step_);
    friction_->clear();
    barrier_->set_stiffness(kappa);
    if (hybrid_al_) {
        // The loads the constraints found where the last step ended with them (friction's
        // normal forces, lag_friction).
        hybrid_al_->set_time_step(time_step_);
        hybrid_al_->set_constraints(in.contact_multipliers
                                        ? al_names_->constraints_in(*in.contact_multipliers)
                                        : std::vector<AlConstraint>{});
    }

    const double c0 = potential_->collision_seconds();
    potential_->reset();
    if (al_) {
        // The multipliers carried from the last step; no barrier to balance.
        al_->set_time_step(time_step_);
        al_->set_constraints(in.contact_multipliers
                                 ? al_names_->constraints_in(*in.contact_multipliers)
                                 : std::vector<AlConstraint>{});
        prepare_collision_seconds_ = 0.0;
        return {};
    }
    potential_->refresh_contacts(q_start_, &q_tilde);
    prepare_collision_seconds_ = potential_->collision_seconds() - c0;
    StiffnessBalance balance;
    if (potential_->contacts().size() == 0) return balance;
    VecX g_rest, g_unit;
    potential_->split_gradients(q_start_, g_rest, g_unit);
    balance.has_contacts = true;
    balance.dot = g_unit.dot(g_rest);
    balance.norm_sq = g_unit.squaredNorm();
    return balance;
}

void StepSystem::lag_friction(const VecX& x) {
    if (!model_.has_friction) return;
    if (al_) {
        // Normal forces: the multipliers (h^2-scaled, like the barrier's), of the pairs whose
        // multiplier is positive.
        std::vector<double> lambda;
        const ContactSet c = al_->active_contacts(x, lambda);
        friction_->lag(c, model_.planes, x, lambda, model_.contact_friction(*surface_, c, bodies_),
                       q_start_, model_.spec.contact.friction_velocity * time_step_);
        return;
    }
    potential_->refresh_contacts(x);
    const ContactSet& c = potential_->contacts();
    std::vector<double> normal = barrier_->normal_forces(x);
    // Hybrid: where the constraints ended the last solve, their multipliers are the loads; the
    // barrier's force at the distance they left a pair at is off by what the penalty
    // compressed it (they keep no dhat margin, so that can be a large share of the force).
    if (hybrid_al_) hybrid_al_->carried_loads(c, normal);
    friction_->lag(c, model_.planes, x, normal, model_.contact_friction(*surface_, c, bodies_),
                   q_start_, model_.spec.contact.friction_velocity * time_step_);
}

NewtonStats StepSystem::newton(VecX& x, double kappa, const SolverParams& params,
                               std::optional<SolverClock::time_point> deadline) {
    barrier_->set_stiffness(kappa);
    potential_->reset();
    if (al_) return al_newton_solve(*potential_, x, free_dof_, params, al_solve_params(), deadline);
    if (hybrid_al_) {
        // The set holds the constraints of this solve only if it hands over to them.
        hybrid_al_->clear();
        return hybrid_newton_solve(*potential_, x, free_dof_, params, al_solve_params(),
                                   model_.spec.contact.hybrid_barrier_iterations, deadline);
    }
    return newton_solve(*potential_, x, free_dof_, params, deadline);
}

double StepSystem::ccd_fraction(const VecX& x0, const VecX& x1) {
    if ((x1 - x0).squaredNorm() == 0) return 1.0;
    return potential_->ccd_step(x0, x1);
}

std::optional<VecX> StepSystem::snapped_kinematic(const VecX& x) {
    if (!any_kinematic_) return x;
    VecX snapped = x;
    for (std::size_t k = 0; k < bodies_.size(); ++k)
        if (model_.kinematic[static_cast<std::size_t>(bodies_[k])])
            snapped.segment<12>(12 * static_cast<Eigen::Index>(k)) =
                target_.segment<12>(12 * static_cast<Eigen::Index>(k));
    if ((snapped - x).squaredNorm() == 0) return snapped;
    if (potential_->ccd_step(x, snapped) >= 1.0 &&
        std::isfinite(potential_->energy(snapped)))
        return snapped;
    return std::nullopt;
}

double StepSystem::objective(const VecX& x) {
    potential_->refresh_contacts(x);
    return potential_->energy(x);
}

void StepSystem::measure(const VecX& x, SystemStepResult& r) {
    potential_->refresh_contacts(x);
    // Contacts: the pairs within dhat (barrier), or those holding a positive multiplier.
    std::vector<double> lambda;
    if (al_) al_contacts_ = al_->active_contacts(x, lambda);
    const ContactSet& contacts = this->contacts();
    r.contacts = static_cast<int>(contacts.size());
    r.body_contacts = count_body_contacts(
        contacts, *surface_, bodies_, [](int, int) { return true; }, contact_count_scratch_);
    r.min_distance = potential_->min_distance();
    r.candidates = std::max(r.candidates, static_cast<int>(potential_->num_candidates()));
    r.barrier_stiffness = al_ ? 0.0 : barrier_->stiffness();
    if (joints_) r.joint_residual = max_joint_residual(joints_->residuals(x));
}

int StepSystem::contact_queries() const {
    return potential_->contact_queries();
}

AlContactMemory StepSystem::al_memory() const {
    AlContactMemory out;
    // Hybrid: the constraints of the last solve if it handed over to them (else none).
    const AlContactEnergy* al = al_ ? al_.get() : hybrid_al_.get();
    if (!al) return out;
    for (const AlConstraint& c : al->constraints()) out.push_back(al_names_->name(c));
    std::sort(out.begin(), out.end());
    return out;
}

void StepSystem::hessian_blocks(const VecX& x, HessianBlocks& H) {
    potential_->refresh_contacts(x);
    potential_->begin_iteration(x);
    potential_->hessian(x, H, true);
}

SystemStepResult StepSystem::solve(double kappa, const SolverParams& params,
                                   std::optional<SolverClock::time_point> deadline) {
    SystemStepResult r;
    barrier_->set_stiffness(kappa);
    VecX x = q_start_;
    const int lag_rounds =
        model_.has_friction ? std::max(1, model_.spec.contact.friction_iterations) : 1;
    double collision = prepare_collision_seconds_;
    std::size_t peak = potential_->num_candidates();
    for (int lag = 0; lag < lag_rounds; ++lag) {
        // Lag the friction at the current iterate (the step's start in the first round).
        const double c0 = potential_->collision_seconds();
        lag_friction(x);
        collision += potential_->collision_seconds() - c0;
        NewtonStats st = newton(x, barrier_->stiffness(), params, deadline);
        peak = std::max(peak, potential_->peak_candidates());
        r.iterations += st.iterations;
        r.status = st.status;
        r.stop_reason = st.stop_reason;
        r.solves.push_back(std::move(st));
        if (r.status == ConvergenceStatus::Diverged) break;
    }

    const auto t0 = SolverClock::now();
    // Put kinematic bodies exactly on their prescribed pose when nothing is in the way.
    if (r.status != ConvergenceStatus::Diverged)
        if (auto snapped = snapped_kinematic(x)) x = std::move(*snapped);
    r.candidates = static_cast<int>(peak);
    measure(x, r);
    r.al_memory = al_memory();
    collision += seconds_since(t0);
    r.t_collision = collision;
    r.x = std::move(x);
    return r;
}

void StepSystem::scatter(const VecX& x, VecX& x_world) const {
    for (std::size_t k = 0; k < bodies_.size(); ++k) {
        if (!movable_[k]) continue;
        x_world.segment<12>(12 * bodies_[k]) = x.segment<12>(12 * static_cast<Eigen::Index>(k));
        if (modal_offsets_[k] < 0) continue;
        const auto i = static_cast<std::size_t>(bodies_[k]);
        const int m = model_.bodies[i].modal->num_modes;
        x_world.segment(model_.modal_offset[i], m) = x.segment(modal_offsets_[k], m);
    }
}

}  // namespace concord
