#include "concord/world/world.hpp"

#include <chrono>
#include <cmath>

#include "concord/body/body_builder.hpp"
#include "concord/collision/barrier/barrier.hpp"
#include "concord/math/error.hpp"
#include "concord/world/initial_state_check.hpp"
#include "concord/world/kinematic_motion.hpp"
#include "concord/world/incremental_potential.hpp"

namespace concord {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Weight of the energy that keeps kinematic bodies on their prescribed pose, relative to
// their inertia: a contact force F moves a kinematic body off its path by about
// h^2 F / (weight m), and the step ends by snapping it exactly onto the path when CCD allows.
constexpr double kKinematicWeight = 1e6;

double combined_friction(const std::optional<double>& a, const std::optional<double>& b,
                         double fallback) {
    if (a && b) return std::sqrt(*a * *b);
    if (a) return *a;
    if (b) return *b;
    return fallback;
}

}  // namespace

struct World::Impl {
    SceneSpec spec;
    std::vector<AffineBody> bodies;
    std::vector<HalfSpace> planes;
    std::vector<std::optional<double>> plane_friction;
    ContactSurface surface;
    std::vector<bool> movable, dynamic, free_dof;
    VecX q, q_dot;
    std::vector<Vec12> external_acceleration;  ///< M^-1 f_ext per body (gravity and forces)
    double time = 0.0;
    int steps = 0;
    double scene_scale = 1.0;
    double kappa = 0.0, kappa_min = 0.0, kappa_max = 0.0;
    StepStats stats;

    std::unique_ptr<InertiaEnergy> inertia, kinematic_target;
    std::unique_ptr<OrthogonalityEnergy> orthogonality;
    std::unique_ptr<BarrierEnergy> barrier;
    std::unique_ptr<FrictionEnergy> friction;
    std::unique_ptr<IncrementalPotential> potential;

    explicit Impl(const SceneSpec& s);
    void init_barrier_stiffness_bounds();
    void choose_barrier_stiffness(const VecX& x);
    std::vector<double> contact_friction(const ContactSet& c) const;
    void step();
};

World::Impl::Impl(const SceneSpec& s) : spec(s) {
    if (!(spec.time_step > 0) || !std::isfinite(spec.time_step))
        throw InputError("time_step must be a positive number");
    if (!(spec.contact.dhat > 0) || !std::isfinite(spec.contact.dhat))
        throw InputError("contact.dhat must be a positive number");
    bodies.reserve(spec.bodies.size());
    for (const auto& b : spec.bodies) bodies.push_back(build_body(b));
    for (const auto& p : spec.planes) {
        planes.push_back({p.point, p.normal.normalized()});
        plane_friction.push_back(p.friction);
    }
    surface = build_contact_surface(bodies);

    const int B = static_cast<int>(bodies.size());
    q = VecX::Zero(12 * B);
    q_dot = VecX::Zero(12 * B);
    std::vector<Mat12> masses, kinematic_masses;
    std::vector<double> orth_weights;
    for (int b = 0; b < B; ++b) {
        const AffineBody& body = bodies[b];
        const BodySpec& bs = spec.bodies[b];
        q.segment<12>(12 * b) = body.q_initial;
        movable.push_back(body.motion != MotionType::Static);
        dynamic.push_back(body.motion == MotionType::Dynamic);
        for (int k = 0; k < 12; ++k) free_dof.push_back(movable.back());
        if (body.is_dynamic())
            q_dot.segment<12>(12 * b) = affine_velocity(body.q_initial, body.mass_properties.center_of_mass,
                                                        bs.velocity, bs.angular_velocity);
        masses.push_back(body.mass_matrix);
        kinematic_masses.push_back(kKinematicWeight * body.mass_matrix);
        orth_weights.push_back(body.is_dynamic() ? body.stiffness * body.mass_properties.volume : 0.0);
        // Gravity accelerates every point equally: M^-1 f_gravity = [g, 0]. A constant force at
        // the centre of mass adds M^-1 J(c)^T f.
        Vec12 a = Vec12::Zero();
        a.head<3>() = spec.gravity;
        if (body.external_force.squaredNorm() > 0) {
            const Vec12 f = affine_jacobian_transpose(body.mass_properties.center_of_mass, body.external_force);
            a += body.mass_matrix.ldlt().solve(f);
        }
        external_acceleration.push_back(a);
    }
    std::vector<bool> kinematic(static_cast<std::size_t>(B));
    for (int b = 0; b < B; ++b) kinematic[b] = bodies[b].motion == MotionType::Kinematic;

    // Scene scale l: diagonal of the bounding box of every body in its initial pose.
    AABB box;
    const Vertices x0 = surface.positions(q);
    for (Eigen::Index v = 0; v < x0.rows(); ++v) box.expand(Vec3(x0.row(v).transpose()));
    scene_scale = box.empty() ? 1.0 : std::max(box.diagonal(), 1e-9);

    check_initial_state(bodies, surface, q, planes, spec.contact.dhat);

    inertia = std::make_unique<InertiaEnergy>(masses, dynamic);
    kinematic_target = std::make_unique<InertiaEnergy>(kinematic_masses, kinematic, "kinematic_target");
    orthogonality = std::make_unique<OrthogonalityEnergy>(orth_weights);
    barrier = std::make_unique<BarrierEnergy>(surface, planes, movable, spec.contact.dhat);
    friction = std::make_unique<FrictionEnergy>(surface, movable);

    IncrementalPotentialConfig cfg;
    cfg.time_step = spec.time_step;
    cfg.dhat = spec.contact.dhat;
    cfg.scene_scale = scene_scale;
    for (const auto& b : bodies) cfg.body_radius.push_back(b.bounding_radius);
    cfg.body_movable = movable;
    potential = std::make_unique<IncrementalPotential>(surface, planes, cfg, *inertia, *orthogonality,
                                                       *kinematic_target, *barrier, *friction);
    init_barrier_stiffness_bounds();
}

void World::Impl::init_barrier_stiffness_bounds() {
    if (spec.contact.barrier_stiffness > 0) {
        kappa = kappa_min = kappa_max = spec.contact.barrier_stiffness;
        potential->set_stiffness_bounds(kappa_max);
        barrier->set_stiffness(kappa);
        return;
    }
    // IPC (Li et al. 2020, Sec. 4.3 and supplement): kappa_min makes the barrier able to hold
    // an average nodal mass at a distance of 1e-8 l; kappa_max = 100 kappa_min. The nodal mass
    // of an affine body is its mass over its vertex count.
    double nodal_mass = 0.0;
    int count = 0;
    for (const auto& b : bodies)
        if (b.is_dynamic()) {
            nodal_mass += b.mass_properties.mass / std::max(1, b.mesh.num_vertices());
            ++count;
        }
    nodal_mass = count > 0 ? nodal_mass / count : 1.0;
    const double dhat_sq = spec.contact.dhat * spec.contact.dhat;
    double d0 = 1e-8 * scene_scale;
    d0 *= d0;
    if (d0 >= dhat_sq) d0 = 0.5 * dhat_sq;
    kappa_min = 1e11 * nodal_mass / (4.0 * d0 * barrier_second_derivative(d0, dhat_sq));
    kappa_max = 100.0 * kappa_min;
    kappa = kappa_min;
    potential->set_stiffness_bounds(kappa_max);
    barrier->set_stiffness(kappa);
}

void World::Impl::choose_barrier_stiffness(const VecX& x) {
    if (spec.contact.barrier_stiffness > 0) return;
    if (potential->contacts().size() == 0) return;
    // Balance the barrier gradient against the rest of the potential's gradient.
    VecX g_rest, g_unit;
    potential->split_gradients(x, g_rest, g_unit);
    const double gg = g_unit.squaredNorm();
    if (gg > 0) {
        const double suggested = std::clamp(-g_unit.dot(g_rest) / gg, kappa_min, kappa_max);
        kappa = std::max(kappa, suggested);
    }
    barrier->set_stiffness(kappa);
}

std::vector<double> World::Impl::contact_friction(const ContactSet& c) const {
    std::vector<double> mu;
    const double base = spec.contact.friction;
    auto body_mu = [&](int v) { return bodies[static_cast<std::size_t>(surface.body_of_vertex(v))].friction; };
    for (const auto& p : c.point_triangle)
        mu.push_back(combined_friction(body_mu(p.vertex), body_mu(surface.mesh.faces(p.face, 0)), base));
    for (const auto& p : c.edge_edge)
        mu.push_back(combined_friction(body_mu(surface.mesh.edges(p.edge_a, 0)),
                                       body_mu(surface.mesh.edges(p.edge_b, 0)), base));
    for (const auto& p : c.point_plane)
        mu.push_back(combined_friction(body_mu(p.vertex), plane_friction[static_cast<std::size_t>(p.plane)], base));
    return mu;
}

void World::Impl::step() {
    const auto t_start = Clock::now();
    const double h = spec.time_step;
    const int B = static_cast<int>(bodies.size());
    const VecX q_start = q;

    VecX q_tilde = q, target = q;
    for (int b = 0; b < B; ++b) {
        if (dynamic[b])
            q_tilde.segment<12>(12 * b) += h * q_dot.segment<12>(12 * b) + h * h * external_acceleration[b];
        else if (bodies[b].motion == MotionType::Kinematic)
            target.segment<12>(12 * b) = kinematic_state(bodies[b].kinematic, bodies[b].q_initial, time + h);
    }
    inertia->set_predicted(q_tilde);
    kinematic_target->set_predicted(target);

    stats = StepStats{};
    potential->reset();
    potential->refresh_contacts(q);
    choose_barrier_stiffness(q);
    friction->clear();

    NewtonParams np;
    np.max_iterations = spec.solver.max_iterations;
    np.tolerance = spec.solver.tolerance;
    np.linear.cg_max_iterations = spec.solver.cg_max_iterations;
    np.linear.cg_tolerance = spec.solver.cg_tolerance;
    if (spec.solver.linear_solver == "ldlt") np.linear.type = LinearSolverType::LDLT;
    else if (spec.solver.linear_solver == "cg") np.linear.type = LinearSolverType::CG;

    VecX x = q;
    const bool has_friction = spec.contact.friction > 0 ||
                              std::any_of(bodies.begin(), bodies.end(), [](const AffineBody& b) { return b.friction && *b.friction > 0; }) ||
                              std::any_of(plane_friction.begin(), plane_friction.end(), [](const auto& f) { return f && *f > 0; });
    const int lag_rounds = has_friction ? std::max(1, spec.contact.friction_iterations) : 1;
    double t_solve = 0.0;
    for (int lag = 0; lag < lag_rounds; ++lag) {
        if (has_friction) {
            // Lag the friction at the current iterate (the step's start in the first round).
            potential->refresh_contacts(x);
            const ContactSet& c = potential->contacts();
            friction->lag(c, planes, x, barrier->normal_forces(x), contact_friction(c), q_start,
                          spec.contact.friction_velocity * h);
        }
        potential->reset();
        const auto t0 = Clock::now();
        const NewtonResult r = newton_solve(*potential, x, free_dof, np);
        t_solve += seconds_since(t0);
        stats.newton_iterations += r.iterations;
        stats.converged = r.converged;
        stats.line_search_trials += r.line_search_trials;
        stats.ccd_limited_steps += r.ccd_limited;
        stats.linear_solver_iterations += r.linear_iterations;
        stats.candidates = std::max<int>(stats.candidates, static_cast<int>(potential->peak_candidates()));
        stats.t_coll += potential->t_collision();
    }

    // Put kinematic bodies exactly on their prescribed pose when nothing is in the way.
    bool any_kinematic = false;
    VecX snapped = x;
    for (int b = 0; b < B; ++b)
        if (bodies[b].motion == MotionType::Kinematic) {
            snapped.segment<12>(12 * b) = target.segment<12>(12 * b);
            any_kinematic = true;
        }
    if (any_kinematic && (snapped - x).squaredNorm() > 0) {
        if (potential->ccd_step(x, snapped) >= 1.0 && std::isfinite(potential->energy(snapped))) x = snapped;
    }

    potential->refresh_contacts(x);
    stats.contacts = static_cast<int>(potential->contacts().size());
    stats.min_distance = potential->min_distance();
    stats.candidates = std::max<int>(stats.candidates, static_cast<int>(potential->num_candidates()));
    stats.barrier_stiffness = barrier->stiffness();
    kappa = barrier->stiffness();

    q_dot = (x - q_start) / h;
    for (int b = 0; b < B; ++b)
        if (!movable[b]) q_dot.segment<12>(12 * b).setZero();
    q = x;
    time += h;
    ++steps;
    stats.t_frame = seconds_since(t_start);
    stats.t_solve = t_solve - stats.t_coll;  // the collision part of the solves is in t_coll
    if (stats.t_solve < 0) stats.t_solve = 0;
}

World::World(const SceneSpec& spec) : impl_(std::make_unique<Impl>(spec)) {}
World::~World() = default;
World::World(World&&) noexcept = default;
World& World::operator=(World&&) noexcept = default;

const SceneSpec& World::spec() const { return impl_->spec; }
int World::num_bodies() const { return static_cast<int>(impl_->bodies.size()); }
const AffineBody& World::body(int i) const { return impl_->bodies.at(static_cast<std::size_t>(i)); }
Vec12 World::q(int i) const { return impl_->q.segment<12>(12 * i); }
Vec12 World::q_dot(int i) const { return impl_->q_dot.segment<12>(12 * i); }
Vertices World::world_vertices(int i) const {
    const AffineBody& b = body(i);
    Vertices x(b.mesh.num_vertices(), 3);
    const Vec12 qi = q(i);
    for (int v = 0; v < b.mesh.num_vertices(); ++v)
        x.row(v) = affine_apply(qi, b.mesh.vertices.row(v).transpose()).transpose();
    return x;
}
double World::time() const { return impl_->time; }
int World::step_count() const { return impl_->steps; }
double World::scene_scale() const { return impl_->scene_scale; }
const StepStats& World::step() {
    impl_->step();
    return impl_->stats;
}
const StepStats& World::last_stats() const { return impl_->stats; }

}  // namespace concord
