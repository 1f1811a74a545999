#include "concord/energy/joint_energy.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "concord/energy/joint_jet.hpp"
#include "concord/math/error.hpp"
#include "concord/math/psd_projection.hpp"

namespace concord {

using namespace joint_jet;

struct JointEnergy::Local : Accumulator {
    using Accumulator::Accumulator;
};

namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;
/// Below this squared length of the child's reference direction projected on the parent's
/// rotation plane (1 when aligned), the revolute angle is treated as undefined.
constexpr double kDegenerateAngle = 1e-12;

/// A unit vector perpendicular to unit a (the world axis least aligned with a, projected).
Vec3 perpendicular(const Vec3& a) {
    Eigen::Index i = 0;
    a.cwiseAbs().minCoeff(&i);
    const Vec3 e = Vec3::Unit(i);
    return (e - a.dot(e) * a).normalized();
}

/// 2 pi k closest to reference - raw: atan2's value shifted to within pi of the reference.
double unwrap_shift(double raw, double reference) {
    return kTwoPi * std::round((reference - raw) / kTwoPi);
}

}  // namespace

JointResidual max_joint_residual(const std::vector<JointResidual>& residuals) {
    JointResidual m;
    for (const JointResidual& r : residuals) {
        m.position = std::max(m.position, r.position);
        m.orientation = std::max(m.orientation, r.orientation);
        m.coordinate = std::max(m.coordinate, std::abs(r.coordinate));
        m.limit_violation = std::max(m.limit_violation, r.limit_violation);
    }
    return m;
}

JointEnergy::JointEnergy(std::vector<bool> movable, std::vector<double> body_mass,
                         std::vector<double> body_length, double time_step, double stiffness_weight)
    : movable_(std::move(movable)),
      mass_(std::move(body_mass)),
      length_(std::move(body_length)),
      h_(time_step),
      weight_(stiffness_weight) {
    if (mass_.size() != movable_.size() || length_.size() != movable_.size())
        throw InputError("joints: body mass and length lists must have one entry per body");
    if (!(h_ > 0.0) || !std::isfinite(h_)) throw InputError("joints: time step must be positive");
    if (!(weight_ > 0.0) || !std::isfinite(weight_))
        throw InputError("joints: stiffness weight must be positive");
}

std::size_t JointEnergy::add_joint(const JointSpec& spec_in, const VecX& q0,
                                   const BodyPointFactory& make_point, const std::string& prefix) {
    const std::string at =
        prefix.empty() ? "joints[" + std::to_string(joints_.size()) + "]" : prefix;
    validate_joint_spec(spec_in, static_cast<int>(movable_.size()), at);
    JointSpec spec = spec_in;
    resolve_world_anchor(spec, q0);
    const BodyPoint parent = spec.parent < 0 ? affine_body_point(-1, spec.parent_anchor)
                                             : make_point(spec.parent, spec.parent_anchor);
    const BodyPoint child = spec.child < 0 ? affine_body_point(-1, spec.child_anchor)
                                           : make_point(spec.child, spec.child_anchor);
    return add_joint(spec, parent, child, q0, at);
}

std::size_t JointEnergy::add_joint(const JointSpec& spec, const BodyPoint& parent,
                                   const BodyPoint& child, const VecX& q0,
                                   const std::string& prefix) {
    const std::string at =
        prefix.empty() ? "joints[" + std::to_string(joints_.size()) + "]" : prefix;
    validate_joint_spec(spec, static_cast<int>(movable_.size()), at);
    if (parent.body != spec.parent || child.body != spec.child)
        throw InputError(at + ": attachment points belong to other bodies than parent and child");
    validate_body_point(parent, q0.size(), at + ".parent");
    validate_body_point(child, q0.size(), at + ".child");

    Joint j;
    j.spec = spec;
    j.spec.parent_anchor = parent.local;
    j.spec.child_anchor = child.local;
    j.spec.world_anchor.reset();
    j.parent = parent;
    j.child = child;
    j.stencil = JointStencil(parent, child);

    // Rest frames: c_i = A_c0^-1 A_p0 p_i, so A_c c_i = A_p p_i holds at q0.
    const Mat3 Ap0 = body_frame(parent.body, q0), Ac0 = body_frame(child.body, q0);
    const Mat3 child_from_parent = Ac0.fullPivLu().solve(Ap0);
    for (int i = 0; i < 3; ++i) {
        j.parent_axes[i] = Vec3::Unit(i);
        j.child_axes[i] = child_from_parent * Vec3::Unit(i);
    }
    j.parent_axis = Ap0.fullPivLu().solve(spec.axis.normalized()).normalized();
    j.child_axis = child_from_parent * j.parent_axis;
    j.parent_ref = perpendicular(j.parent_axis);
    j.parent_ref2 = j.parent_axis.cross(j.parent_ref);
    j.child_ref = child_from_parent * j.parent_ref;

    // Effective mass and length over the movable bodies: a world or static side is rigid.
    std::vector<int> moving;
    for (int b : {parent.body, child.body})
        if (b >= 0 && movable_[b]) moving.push_back(b);
    if (moving.size() == 2) {
        const double m0 = mass_[moving[0]], m1 = mass_[moving[1]];
        j.mass = m0 * m1 / (m0 + m1);
        j.length = std::min(length_[moving[0]], length_[moving[1]]);
    } else if (moving.size() == 1) {
        j.mass = mass_[moving[0]];
        j.length = length_[moving[0]];
    }
    if (spec.orientation_length > 0.0) j.length = spec.orientation_length;
    if (!(j.mass > 0.0) || !std::isfinite(j.mass))
        throw InputError(at + ": the joint's bodies need a positive mass");
    if (!(j.length > 0.0) || !std::isfinite(j.length))
        throw InputError(at + ".orientation_length: the joint's bodies need a positive length");

    j.coordinate_start = coordinate_at(j, q0);
    j.angle_reference = j.coordinate_start;
    j.target = spec.drive.schedule.empty() ? spec.drive.target : spec.drive.schedule.value(time_);
    joints_.push_back(std::move(j));
    return joints_.size() - 1;
}

void JointEnergy::set_time_step(double h) {
    if (!(h > 0.0) || !std::isfinite(h)) throw InputError("joints: time step must be positive");
    h_ = h;
}

void JointEnergy::begin_step(double t_end, const VecX& q_start) {
    time_ = t_end;
    for (Joint& j : joints_) {
        j.coordinate_start = coordinate_at(j, q_start);
        j.angle_reference = j.coordinate_start;
        j.target = j.spec.drive.schedule.empty() ? j.spec.drive.target
                                                 : j.spec.drive.schedule.value(t_end);
    }
}

void JointEnergy::set_drive_target(std::size_t j, double target) {
    JointSpec& spec = joints_.at(j).spec;
    if (!spec.drive.enabled) throw std::logic_error("set_drive_target: the joint has no drive");
    spec.drive.target = target;
    spec.drive.schedule = {};
}

double JointEnergy::stiffness_ip(const Joint& j) const {
    return j.spec.stiffness > 0.0 ? j.spec.stiffness * h_ * h_ : weight_ * j.mass;
}

JointEnergy::Local JointEnergy::evaluate(const Joint& j, const VecX& q, int order) const {
    const int n = j.stencil.size();
    const int op = j.stencil.offset(0), oc = j.stencil.offset(1);
    const int bp = j.parent.body, bc = j.child.body;
    const auto parent_dir = [&](const Vec3& a) { return axis_jet(bp, a, op, n, q, order); };
    const auto child_dir = [&](const Vec3& a) { return axis_jet(bc, a, oc, n, q, order); };

    Local acc(n, order);
    const double k = stiffness_ip(j);
    const double k_rot = k * j.length * j.length;
    const JointType type = j.spec.type;
    const Jet3 r = point_jet(j.child, oc, n, q, order) - point_jet(j.parent, op, n, q, order);

    // Point coincidence.
    if (type == JointType::Prismatic) {
        acc.add_square(dot(r, parent_dir(j.parent_ref)), k);
        acc.add_square(dot(r, parent_dir(j.parent_ref2)), k);
    } else {
        for (int i = 0; i < 3; ++i) acc.add_square(component(r, i), k);
    }

    // Orientation.
    if (type == JointType::Fixed || type == JointType::Prismatic) {
        for (int a = 0; a < 3; ++a) {
            const Jet3 d = child_dir(j.child_axes[a]) - parent_dir(j.parent_axes[a]);
            for (int i = 0; i < 3; ++i) acc.add_square(component(d, i), k_rot);
        }
    } else if (type == JointType::Revolute) {
        const Jet3 d = child_dir(j.child_axis) - parent_dir(j.parent_axis);
        for (int i = 0; i < 3; ++i) acc.add_square(component(d, i), k_rot);
    }

    // Drive and limits on the joint coordinate.
    const JointDrive& drive = j.spec.drive;
    const JointLimits& limits = j.spec.limits;
    if (!has_coordinate(type) || (!drive.enabled && !limits.enabled)) return acc;
    Jet c;
    if (type == JointType::Prismatic) {
        c = dot(r, parent_dir(j.parent_axis));
    } else {
        const Jet3 v = child_dir(j.child_ref);
        const Jet x = dot(v, parent_dir(j.parent_ref)), y = dot(v, parent_dir(j.parent_ref2));
        if (x.v * x.v + y.v * y.v > kDegenerateAngle) {
            c = atan2(y, x, unwrap_shift(std::atan2(y.v, x.v), j.angle_reference));
        } else {
            // The child's reference direction lies along the parent's axis (a misalignment of
            // ~90 degrees that the axis term is removing): the angle is undefined there, so
            // hold it at the previous step's value with no force rather than return NaN.
            c.v = j.angle_reference;
            if (order >= 1) c.g = VecX::Zero(n);
            if (order >= 2) c.H = MatX::Zero(n, n);
        }
    }
    const double h2 = h_ * h_;
    if (drive.enabled) {
        if (drive.mode == DriveMode::Position && drive.ke > 0.0)
            acc.add_square(affine(c, -j.target, 1.0), h2 * drive.ke);
        if (drive.kd > 0.0) {
            // h^2 * kd h/2 ((c - c0)/h - v*)^2 = kd h/2 (c - c0 - h v*)^2.
            const double v_target = drive.mode == DriveMode::Velocity ? j.target : 0.0;
            acc.add_square(affine(c, -(j.coordinate_start + h_ * v_target), 1.0), drive.kd * h_);
        }
    }
    if (limits.enabled) {
        const double k_lim = limits.stiffness > 0.0 ? h2 * limits.stiffness
                                                    : (type == JointType::Revolute ? k_rot : k);
        if (c.v > limits.upper) acc.add_square(affine(c, -limits.upper, 1.0), k_lim);
        if (c.v < limits.lower) acc.add_square(affine(c, -limits.lower, 1.0), k_lim);
    }
    return acc;
}

double JointEnergy::coordinate_at(const Joint& j, const VecX& q) const {
    const int bp = j.parent.body, bc = j.child.body;
    if (j.spec.type == JointType::Prismatic) {
        const Vec3 r = body_point_position(j.child, q) - body_point_position(j.parent, q);
        return r.dot(body_axis(bp, j.parent_axis, q));
    }
    if (j.spec.type == JointType::Revolute) {
        const Vec3 v = body_axis(bc, j.child_ref, q);
        const double x = v.dot(body_axis(bp, j.parent_ref, q));
        const double y = v.dot(body_axis(bp, j.parent_ref2, q));
        if (x * x + y * y <= kDegenerateAngle) return j.angle_reference;  // see evaluate()
        const double raw = std::atan2(y, x);
        return raw + unwrap_shift(raw, j.angle_reference);
    }
    return 0.0;
}

double JointEnergy::coordinate(std::size_t j, const VecX& q) const {
    return coordinate_at(joints_[j], q);
}

JointResidual JointEnergy::residual(std::size_t index, const VecX& q) const {
    const Joint& j = joints_[index];
    const int bp = j.parent.body, bc = j.child.body;
    JointResidual res;
    const Vec3 r = body_point_position(j.child, q) - body_point_position(j.parent, q);
    if (j.spec.type == JointType::Prismatic) {
        res.position = std::hypot(r.dot(body_axis(bp, j.parent_ref, q)),
                                  r.dot(body_axis(bp, j.parent_ref2, q)));
    } else {
        res.position = r.norm();
    }
    if (j.spec.type == JointType::Fixed || j.spec.type == JointType::Prismatic) {
        for (int a = 0; a < 3; ++a)
            res.orientation = std::max(
                res.orientation,
                (body_axis(bc, j.child_axes[a], q) - body_axis(bp, j.parent_axes[a], q)).norm());
    } else if (j.spec.type == JointType::Revolute) {
        res.orientation = (body_axis(bc, j.child_axis, q) - body_axis(bp, j.parent_axis, q)).norm();
    }
    if (has_coordinate(j.spec.type)) {
        res.coordinate = coordinate_at(j, q);
        if (j.spec.limits.enabled)
            res.limit_violation = std::max(
                {0.0, res.coordinate - j.spec.limits.upper, j.spec.limits.lower - res.coordinate});
    }
    return res;
}

std::vector<JointResidual> JointEnergy::residuals(const VecX& q) const {
    std::vector<JointResidual> out;
    out.reserve(joints_.size());
    for (std::size_t j = 0; j < joints_.size(); ++j) out.push_back(residual(j, q));
    return out;
}

void JointEnergy::set_share(std::size_t j, double share) {
    if (!(share > 0.0 && share <= 1.0)) throw InputError("joints: a share must lie in (0, 1]");
    joints_.at(j).share = share;
}

double JointEnergy::value(const VecX& q) const {
    double e = 0.0;
    for (const Joint& j : joints_) e += j.share * evaluate(j, q, 0).value;
    return e;
}

void JointEnergy::add_gradient(const VecX& q, VecX& g) const {
    for (const Joint& j : joints_)
        j.stencil.scatter_gradient(j.share * evaluate(j, q, 1).g, g, movable_);
}

void JointEnergy::add_hessian(const VecX& q, HessianBlocks& H, bool project_psd) const {
    for (const Joint& j : joints_) {
        Local local = evaluate(j, q, 2);
        local.H *= j.share;
        if (project_psd) {
            // Project only the block of the unknowns: a static body's rows never enter H.
            const std::vector<int> idx = j.stencil.movable_indices(movable_);
            const MatX block = project_to_psd(MatX(local.H(idx, idx)));
            local.H.setZero();
            local.H(idx, idx) = block;
        }
        j.stencil.scatter_hessian(local.H, H, movable_);
    }
}

void resolve_world_anchor(JointSpec& spec, const VecX& q0) {
    if (!spec.world_anchor) return;
    const Vec3 x = *spec.world_anchor;
    const auto to_local = [&](int body) -> Vec3 {
        if (body < 0) return x;
        const Mat3 A = body_frame(body, q0);
        return A.fullPivLu().solve(x - q0.segment<3>(12 * body));
    };
    spec.parent_anchor = to_local(spec.parent);
    spec.child_anchor = to_local(spec.child);
    spec.world_anchor.reset();
}

}  // namespace concord
