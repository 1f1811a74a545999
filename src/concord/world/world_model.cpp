#include "concord/world/world_model.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "concord/body/body_builder.hpp"
#include "concord/body/modal_part_builder.hpp"
#include "concord/energy/joint_energy.hpp"
#include "concord/scene/modal_basis_json.hpp"
#include "concord/collision/barrier/barrier.hpp"
#include "concord/math/error.hpp"
#include "concord/world/initial_state_check.hpp"

namespace concord {

namespace {

double combined_friction(const std::optional<double>& a, const std::optional<double>& b,
                         double fallback) {
    if (a && b) return std::sqrt(*a * *b);
    if (a) return *a;
    if (b) return *b;
    return fallback;
}

/// Builds each modal basis the bodies use (once, shared) and gives every elastic body its
/// modal part. The basis's mass quadrature becomes the body's inertia, so it must weigh about
/// what the body's shape and density do.
void attach_modal_parts(const SceneSpec& spec, std::vector<AffineBody>& bodies) {
    std::map<std::string, ModalBasis> bases;
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        const BodySpec& bs = spec.bodies[i];
        if (!bs.elastic) continue;
        const std::string context = "bodies." + bs.name + ".elastic";
        auto it = bases.find(bs.elastic->basis);
        if (it == bases.end()) {
            const auto def = std::find_if(
                spec.modal_bases.begin(), spec.modal_bases.end(),
                [&](const ModalBasisSpec& m) { return m.name == bs.elastic->basis; });
            if (def == spec.modal_bases.end())
                throw InputError(context + ".basis: unknown modal basis \"" + bs.elastic->basis + "\"");
            const JsonNode node(def->definition, def->source, "modal_bases." + def->name);
            it = bases.emplace(def->name, modal_basis_from_json(node, def->base_dir)).first;
        }
        AffineBody& body = bodies[i];
        body.modal = make_modal_part(it->second, it->first, body.mesh(), bs.elastic->origin,
                                     bs.elastic->initial, context);
        const double basis_mass = modal_part_mass(*body.modal);
        const double mesh_mass = body.mass_properties.mass;
        if (!(std::abs(basis_mass - mesh_mass) <= 0.1 * mesh_mass))
            throw InputError(context + ": the basis \"" + it->first + "\" weighs " +
                             std::to_string(basis_mass) + " kg but the body's shape and density give " +
                             std::to_string(mesh_mass) +
                             " kg (they must agree within 10%: check the basis's size, density and "
                             "the body's origin)");
    }
}

}  // namespace

std::vector<double> WorldModel::contact_friction(const ContactSurface& s, const ContactSet& c,
                                                 const std::vector<int>& global_body) const {
    std::vector<double> mu;
    mu.reserve(c.size());
    const double base = spec.contact.friction;
    auto body_mu = [&](int v) {
        return bodies[static_cast<std::size_t>(
                          global_body[static_cast<std::size_t>(s.body_of_vertex(v))])]
            .friction;
    };
    for (const auto& p : c.point_triangle)
        mu.push_back(combined_friction(body_mu(p.vertex), body_mu(s.mesh.faces(p.face, 0)), base));
    for (const auto& p : c.edge_edge)
        mu.push_back(combined_friction(body_mu(s.mesh.edges(p.edge_a, 0)),
                                       body_mu(s.mesh.edges(p.edge_b, 0)), base));
    for (const auto& p : c.point_plane)
        mu.push_back(combined_friction(body_mu(p.vertex),
                                       plane_friction[static_cast<std::size_t>(p.plane)], base));
    return mu;
}

VecX WorldModel::initial_state() const {
    VecX q = VecX::Zero(state_size);
    for (std::size_t b = 0; b < bodies.size(); ++b) {
        q.segment<12>(12 * static_cast<Eigen::Index>(b)) = bodies[b].q_initial;
        if (modal_offset[b] >= 0)
            q.segment(modal_offset[b], bodies[b].modal->num_modes) = bodies[b].modal->eta_initial;
    }
    return q;
}

WorldState WorldModel::initial_world_state() const {
    WorldState s;
    s.num_bodies = num_bodies();
    s.q = initial_state();
    s.q_dot = VecX::Zero(state_size);
    for (std::size_t b = 0; b < bodies.size(); ++b) {
        const AffineBody& body = bodies[b];
        const BodySpec& bs = spec.bodies[b];
        if (body.is_dynamic())
            s.q_dot.segment<12>(12 * static_cast<Eigen::Index>(b)) =
                affine_velocity(body.q_initial, body.mass_properties.center_of_mass, bs.velocity,
                                bs.angular_velocity);
    }
    s.barrier_stiffness = kappa_min;
    return s;
}

void check_start_state(const WorldModel& m) {
    check_initial_state(m.bodies, m.surface, m.initial_state(), m.planes, m.spec.contact.dhat,
                        m.spec.contact.exclude);
}

WorldModel build_world_model(const SceneSpec& spec, bool check_start) {
    WorldModel m;
    m.spec = spec;
    if (!(spec.time_step > 0) || !std::isfinite(spec.time_step))
        throw InputError("time_step must be a positive number");
    if (!(spec.contact.dhat > 0) || !std::isfinite(spec.contact.dhat))
        throw InputError("contact.dhat must be a positive number");
    m.bodies.reserve(spec.bodies.size());
    // The bodies of an array follow each other with one shape: its mesh is built and checked
    // once.
    for (std::size_t i = 0; i < spec.bodies.size(); ++i) {
        const BodySpec& b = spec.bodies[i];
        const bool same = i > 0 && b.shape == spec.bodies[i - 1].shape &&
                          b.material.density == spec.bodies[i - 1].material.density &&
                          b.inertia == spec.bodies[i - 1].inertia;
        m.bodies.push_back(build_body(b, same ? &m.bodies.back() : nullptr));
    }
    attach_modal_parts(spec, m.bodies);
    for (const auto& p : spec.planes) {
        m.planes.push_back({p.point, p.normal.normalized()});
        m.plane_friction.push_back(p.friction);
    }
    m.surface = build_contact_surface(m.bodies);

    const int B = m.num_bodies();
    m.state_size = 12 * B;
    std::vector<const AffineBody*> ptrs;
    for (const AffineBody& body : m.bodies) {
        ptrs.push_back(&body);
        if (body.is_elastic() && body.motion != MotionType::Dynamic)
            throw InputError("bodies." + body.name + ".elastic: elastic bodies must be dynamic");
        m.modal_offset.push_back(body.is_elastic() ? m.state_size : -1);
        if (body.is_elastic()) m.state_size += body.modal->num_modes;
    }
    assign_surface_modes(m.surface, ptrs, m.modal_offset);
    const VecX q = m.initial_state();
    for (std::size_t j = 0; j < spec.joints.size(); ++j) {
        JointSpec joint = spec.joints[j];
        validate_joint_spec(joint, B, "joints[" + std::to_string(j) + "]");
        resolve_world_anchor(joint, q);
        m.joints.push_back(std::move(joint));
    }
    for (int b = 0; b < B; ++b) {
        const AffineBody& body = m.bodies[static_cast<std::size_t>(b)];
        m.movable.push_back(body.motion != MotionType::Static);
        m.dynamic.push_back(body.motion == MotionType::Dynamic);
        m.kinematic.push_back(body.motion == MotionType::Kinematic);
        m.masses.push_back(body.mass_matrix);
        m.orthogonality_weights.push_back(
            body.is_dynamic() ? body.stiffness * body.mass_properties.volume : 0.0);
        double lever = 0.0;
        for (Eigen::Index v = 0; v < body.mesh().vertices.rows(); ++v)
            lever = std::max(lever, body.mesh().vertices.row(v).norm());
        m.lever_arms.push_back(lever);
        // Gravity accelerates every point equally: M^-1 f_gravity = [g, 0]. A constant force at
        // the centre of mass adds M^-1 J(c)^T f.
        Vec12 a = Vec12::Zero();
        a.head<3>() = spec.gravity;
        if (body.external_force.squaredNorm() > 0 || !body.external_force.allFinite()) {
            const Vec12 f =
                affine_jacobian_transpose(body.mass_properties.center_of_mass, body.external_force);
            a += body.mass_matrix.ldlt().solve(f);
        }
        m.initial_external_acceleration.push_back(a);
    }

    AABB box;
    const Vertices x0 = m.surface.positions(q);
    for (Eigen::Index v = 0; v < x0.rows(); ++v) box.expand(Vec3(x0.row(v).transpose()));
    m.scene_scale = box.empty() ? 1.0 : std::max(box.diagonal(), 1e-9);
    const double g = spec.gravity.norm();
    m.characteristic_acceleration = g > 0 && std::isfinite(g) ? g : 9.81;
    for (auto& lever : m.lever_arms) lever = std::max(lever, 1e-9 * m.scene_scale);

    if (check_start) check_start_state(m);

    m.has_friction =
        spec.contact.friction > 0 ||
        std::any_of(m.bodies.begin(), m.bodies.end(),
                    [](const AffineBody& b) { return b.friction && *b.friction > 0; }) ||
        std::any_of(m.plane_friction.begin(), m.plane_friction.end(),
                    [](const auto& f) { return f && *f > 0; });

    if (spec.contact.barrier_stiffness > 0) {
        m.kappa_min = m.kappa_max = spec.contact.barrier_stiffness;
    } else {
        // IPC (Li et al. 2020, Sec. 4.3 and supplement): kappa_min makes the barrier able to
        // hold an average nodal mass at a distance of 1e-8 l; kappa_max = 100 kappa_min. The
        // nodal mass of an affine body is its mass over its vertex count.
        double nodal_mass = 0.0;
        int count = 0;
        for (const auto& b : m.bodies)
            if (b.is_dynamic()) {
                nodal_mass += b.mass_properties.mass / std::max(1, b.mesh().num_vertices());
                ++count;
            }
        nodal_mass = count > 0 ? nodal_mass / count : 1.0;
        const double dhat_sq = spec.contact.dhat * spec.contact.dhat;
        double d0 = 1e-8 * m.scene_scale;
        d0 *= d0;
        if (d0 >= dhat_sq) d0 = 0.5 * dhat_sq;
        m.kappa_min = 1e11 * nodal_mass / (4.0 * d0 * barrier_second_derivative(d0, dhat_sq));
        m.kappa_max = 100.0 * m.kappa_min;
    }
    return m;
}

}  // namespace concord
