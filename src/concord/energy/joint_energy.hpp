// Joints as penalty energies of the incremental potential (docs/joints.md).
//
// Units. The incremental potential of one implicit-Euler step is
//     E(q) = 1/2 |q - q~|_M^2 + h^2 Psi(q),
// whose stationarity M (q - q~) / h^2 = -dPsi/dq is Newton's law with the forces of the
// potential Psi evaluated at the end of the step (incremental_potential.hpp). Every term here is
// therefore h^2 times a physical potential (J): a spring 1/2 k f^2 of stiffness k (N/m)
// enters as 1/2 (k h^2) f^2. The automatic stiffness is k = w m_eff / h^2, so its
// incremental-potential weight w m_eff does not depend on h.
//
// Terms of one joint (r = x_child - x_parent, the anchors' world positions; L a length):
//   point coincidence  fixed, revolute, ball: 1/2 k |r|^2
//                      prismatic: 1/2 k ((r.d1)^2 + (r.d2)^2), d1, d2 = A_p u, A_p (a x u)
//                      the parent's directions perpendicular to its axis a
//   orientation        fixed, prismatic: 1/2 k L^2 sum_i |A_c c_i - A_p p_i|^2 (the three
//                      rest-frame axes; c_i = A_c0^-1 A_p0 p_i keeps the relative rotation at
//                      build); revolute: 1/2 k L^2 |A_c a_c - A_p a_p|^2 (the axis only).
//                      L turns the dimensionless axis error into a displacement so that both
//                      kinds of term share the stiffness k (N/m): k L^2 is a torsional
//                      stiffness (N m/rad) for small angles.
//   coordinate c       revolute: the angle theta of the child about A_p a_p (right-handed,
//                      0 at build, unwrapped across steps); prismatic: s = r . (A_p a_p).
//   position drive     1/2 ke (c - c*)^2
//   damper / velocity  kd h/2 ((c - c_prev)/h - v*)^2: its derivative kd ((c - c_prev)/h - v*)
//     drive            is the force of a linear damper on the end-of-step coordinate velocity
//                      (implicit damping, unconditionally stable); v* = 0 for a position drive.
//   limits             1/2 k_lim (c - upper)^2 above upper, 1/2 k_lim (lower - c)^2 below lower.
//
// Gradients and Hessians are exact (joint_jet.hpp carries second derivatives through every
// term, including the frame-mode coupling of elastic attachment points and the atan2 of the
// angle); with project_psd each joint's Hessian block, restricted to its movable DoFs, is
// replaced by its PSD projection.
#pragma once

#include <functional>
#include <vector>

#include "concord/energy/body_point.hpp"
#include "concord/energy/energy.hpp"
#include "concord/scene/joint_spec.hpp"

namespace concord {

/// Automatic penalty weight w of k = w m_eff / h^2: with gravity as the load the static
/// constraint error is about g h^2 / w (1e-6 m at h = 10 ms); see docs/joints.md.
inline constexpr double kDefaultJointStiffnessWeight = 1e3;

/// Constraint violation of one joint at a state, for statistics.
struct JointResidual {
    double position = 0.0;     ///< m: |x_c - x_p| (prismatic: its part perpendicular to the axis)
    double orientation = 0.0;  ///< dimensionless (~rad): max_i |A_c c_i - A_p p_i| (fixed,
                               ///< prismatic), |A_c a_c - A_p a_p| (revolute), 0 (ball)
    double coordinate = 0.0;   ///< theta (rad) or s (m); 0 for fixed and ball
    double limit_violation = 0.0;  ///< rad or m outside [lower, upper]; 0 without limits
};

/// The largest of each field over the joints (all zero for none).
JointResidual max_joint_residual(const std::vector<JointResidual>& residuals);

/// Makes the attachment point of a body at a body-local position (with its mode values for
/// elastic bodies). affine_body_point fits scenes without elastic bodies.
using BodyPointFactory = std::function<BodyPoint(int body, const Vec3& local)>;

class JointEnergy final : public Energy {
public:
    /// movable[b]: whether body b's DoFs are unknowns (dynamic or kinematic); body_mass[b] (kg)
    /// and body_length[b] (m, e.g. the bounding radius) set the automatic stiffness and
    /// orientation length; time_step h converts physical stiffnesses (see the file comment).
    /// Throws InputError on size mismatch or a non-positive h or weight.
    JointEnergy(std::vector<bool> movable, std::vector<double> body_mass,
                std::vector<double> body_length, double time_step,
                double stiffness_weight = kDefaultJointStiffnessWeight);

    /// Adds a joint; its attachment points are made by `make_point` from the spec's anchors
    /// (the world anchor, if any, resolved at q0). The build state q0 defines the rest relative
    /// orientation and the angle zero. Validates the spec (InputError "joints[i]..." with
    /// `prefix`). Returns the joint's index.
    std::size_t add_joint(const JointSpec& spec, const VecX& q0,
                          const BodyPointFactory& make_point = affine_body_point,
                          const std::string& prefix = "");
    /// As above with explicit attachment points (their body indices must be the spec's parent
    /// and child; the spec's anchors are ignored).
    std::size_t add_joint(const JointSpec& spec, const BodyPoint& parent, const BodyPoint& child,
                          const VecX& q0, const std::string& prefix = "");

    std::size_t size() const { return joints_.size(); }
    /// This energy's share of joint j (default 1): its value, gradient and Hessian are scaled
    /// by it. A worker of a distributed solve holding the joint's bodies with k - 1 other
    /// workers carries 1/k of it, so that the workers' shares sum to the joint (paper Eq. 3).
    /// Throws InputError unless 0 < share <= 1.
    void set_share(std::size_t j, double share);
    const JointSpec& spec(std::size_t j) const { return joints_[j].spec; }
    const BodyPoint& parent_point(std::size_t j) const { return joints_[j].parent; }
    const BodyPoint& child_point(std::size_t j) const { return joints_[j].child; }

    void set_time_step(double h);
    double time_step() const { return h_; }
    /// Call before each step's solve with the step's end time (drive targets are evaluated
    /// there, as the implicit forces are) and its start state (the coordinate velocity
    /// reference and the revolute unwrapping reference). Calling it again with the same
    /// arguments (a retried step) gives the same energy.
    void begin_step(double t_end, const VecX& q_start);

    /// Penalty stiffness k of joint j, N/m (automatic or the spec's).
    double stiffness(std::size_t j) const { return stiffness_ip(joints_[j]) / (h_ * h_); }
    /// Orientation length L of joint j, m.
    double orientation_length(std::size_t j) const { return joints_[j].length; }
    /// The joint coordinate at q (theta unwrapped to within pi of the previous step's angle).
    double coordinate(std::size_t j, const VecX& q) const;
    /// Replaces joint j's drive target (its schedule, if any, is dropped) from the next
    /// begin_step on. The drive must be enabled (logic_error otherwise).
    void set_drive_target(std::size_t j, double target);
    /// The drive target in use this step (position or velocity).
    double target(std::size_t j) const { return joints_[j].target; }
    JointResidual residual(std::size_t j, const VecX& q) const;
    std::vector<JointResidual> residuals(const VecX& q) const;

    std::string name() const override { return "joints"; }
    double value(const VecX& q) const override;
    void add_gradient(const VecX& q, VecX& g) const override;
    void add_hessian(const VecX& q, HessianBlocks& H, bool project_psd) const override;

private:
    struct Joint {
        JointSpec spec;
        BodyPoint parent, child;
        JointStencil stencil;
        std::array<Vec3, 3> parent_axes, child_axes;  ///< p_i, c_i (rest frames, body-local)
        Vec3 parent_axis, child_axis;                 ///< a_p, a_c
        Vec3 parent_ref, parent_ref2, child_ref;      ///< u_p, a_p x u_p, u_c (theta = 0 at build)
        double mass = 1.0;    ///< m_eff, kg
        double length = 1.0;  ///< L, m
        double angle_reference = 0.0;  ///< unwrapping reference (previous step's theta)
        double coordinate_start = 0.0;  ///< c at the step's start state
        double target = 0.0;
        double share = 1.0;  ///< see set_share
    };

    double stiffness_ip(const Joint& j) const;
    double coordinate_at(const Joint& j, const VecX& q) const;
    /// Joint energy with derivatives to `order` over the joint's local DoFs.
    struct Local;
    Local evaluate(const Joint& j, const VecX& q, int order) const;

    std::vector<bool> movable_;
    std::vector<double> mass_, length_;
    double h_;
    double weight_;
    double time_ = 0.0;
    std::vector<Joint> joints_;
};

/// When world_anchor is set, fills parent_anchor and child_anchor with its local coordinates
/// in each body at state q0 (X = A0^-1 (x - p0); the world keeps x) and clears world_anchor.
void resolve_world_anchor(JointSpec& spec, const VecX& q0);

}  // namespace concord
