#include "concord/body/body_builder.hpp"

#include <vector>

#include "concord/geometry/mass_properties.hpp"
#include "concord/geometry/mesh_io.hpp"
#include "concord/geometry/mesh_validation.hpp"
#include "concord/geometry/primitives.hpp"
#include "concord/math/error.hpp"

namespace concord {

Mat3 skew(const Vec3& w) {
    Mat3 S;
    S << 0, -w[2], w[1], w[2], 0, -w[0], -w[1], w[0], 0;
    return S;
}

namespace {

/// The parts of a compound, each placed in the body's coordinates, as one mesh.
TriMesh compound_mesh(const ShapeSpec& s);

TriMesh shape_mesh(const ShapeSpec& s) {
    switch (s.kind) {
        case ShapeKind::Box:
            return box(s.size, s.divisions);
        case ShapeKind::Sphere:
            return icosphere(s.radius, s.subdivisions);
        case ShapeKind::Cylinder:
            return cylinder(s.radius, s.height, s.segments);
        case ShapeKind::Capsule:
            return capsule(s.radius, s.height, s.segments, s.rings);
        case ShapeKind::Torus:
            return torus(s.major_radius, s.radius, s.segments, s.rings);
        case ShapeKind::Container:
            return open_box_container(s.size, s.wall_thickness);
        case ShapeKind::Funnel:
            return funnel(s.top_radius, s.bottom_radius, s.height, s.wall_thickness, s.segments);
        case ShapeKind::Compound:
            return compound_mesh(s);
        case ShapeKind::Mesh: {
            TriMesh m = load_mesh(s.resolved_file.empty() ? s.file : s.resolved_file);
            for (Eigen::Index v = 0; v < m.vertices.rows(); ++v)
                m.vertices.row(v) = m.vertices.row(v).cwiseProduct(s.scale.transpose());
            // A negative scale count that is odd mirrors the mesh: flip faces to stay outward.
            if (s.scale.prod() < 0) m.faces.col(1).swap(m.faces.col(2));
            m.build_connectivity();
            return m;
        }
    }
    throw InputError("unknown shape");
}

TriMesh compound_mesh(const ShapeSpec& s) {
    if (s.parts.empty()) throw InputError("a compound shape needs at least one part");
    TriMesh out;
    Eigen::Index nv = 0, nf = 0;
    std::vector<TriMesh> parts;
    for (const ShapePart& part : s.parts) {
        parts.push_back(shape_mesh(part.shape));
        nv += parts.back().vertices.rows();
        nf += parts.back().faces.rows();
    }
    out.vertices.resize(nv, 3);
    out.faces.resize(nf, 3);
    Eigen::Index v0 = 0, f0 = 0;
    for (std::size_t k = 0; k < parts.size(); ++k) {
        const TriMesh& m = parts[k];
        const ShapePart& part = s.parts[k];
        for (Eigen::Index v = 0; v < m.vertices.rows(); ++v)
            out.vertices.row(v0 + v) =
                (part.position + part.rotation * m.vertices.row(v).transpose()).transpose();
        out.faces.middleRows(f0, m.faces.rows()) = m.faces.array() + static_cast<int>(v0);
        v0 += m.vertices.rows();
        f0 += m.faces.rows();
    }
    out.build_connectivity();
    return out;
}

}  // namespace

TriMesh build_shape_mesh(const ShapeSpec& s, const std::string& body_name) {
    try {
        return shape_mesh(s);
    } catch (const InputError& e) {
        throw InputError("body '" + body_name + "': " + e.what());
    }
}

Vec12 affine_velocity(const Vec12& q, const Vec3& local_com, const Vec3& v, const Vec3& w) {
    const Mat3 A = affine_matrix(q);
    const Mat3 A_dot = skew(w) * A;
    const Vec3 p_dot = v - A_dot * local_com;
    return affine_state(p_dot, A_dot);
}

AffineBody build_body(const BodySpec& spec, const AffineBody* same_shape) {
    AffineBody b;
    b.name = spec.name;
    b.motion = spec.motion;
    b.material = spec.material;
    b.friction = spec.friction;
    b.kinematic = spec.kinematic;
    b.external_force = spec.external_force;
    b.stiffness = spec.material.youngs_modulus;
    b.q_initial = affine_state(spec.position, spec.rotation);
    if (same_shape) {
        b.shape = same_shape->shape;
        b.mass_properties = same_shape->mass_properties;
        b.mass_matrix = same_shape->mass_matrix;
        b.bounding_radius = same_shape->bounding_radius;
        return b;
    }
    b.shape = std::make_shared<const TriMesh>(build_shape_mesh(spec.shape, spec.name));
    require_closed_oriented(b.mesh(), "body '" + spec.name + "'");
    const std::string label = "body '" + spec.name + "'";
    b.mass_properties = compute_mass_properties(b.mesh(), spec.material.density, label);
    if (spec.inertia)
        b.mass_properties = mass_properties_from_inertia(
            b.mass_properties.volume, spec.inertia->mass, spec.inertia->center_of_mass,
            spec.inertia->inertia, label);
    b.mass_matrix = affine_mass_matrix(b.mass_properties);
    const Vec3 c = b.mass_properties.center_of_mass;
    for (Eigen::Index v = 0; v < b.mesh().vertices.rows(); ++v)
        b.bounding_radius =
            std::max(b.bounding_radius, (b.mesh().vertices.row(v).transpose() - c).norm());
    return b;
}

}  // namespace concord
