// Joint energies: finite-difference gradients and Hessians of every joint type with drives and
// limits, on affine and elastic (modal) bodies, against the world, another body or a static
// body; zero energy at the build state; the revolute angle and prismatic slide.
#include <gtest/gtest.h>

#include <numbers>
#include <random>

#include "concord/energy/joint_energy.hpp"
#include "concord/math/error.hpp"
#include "concord/math/finite_difference.hpp"
#include "concord/math/psd_projection.hpp"

using namespace concord;

namespace {

constexpr int kModes = 2;

/// Three bodies: 0 and 1 elastic with kModes modal coordinates each (appended after the 36
/// affine numbers), 2 affine. q0 places them rotated and apart, eta = 0.
struct Bodies {
    std::vector<bool> movable{true, true, true};
    std::vector<double> mass{2.0, 3.0, 5.0};
    std::vector<double> length{0.5, 0.7, 0.4};
    std::vector<ModeMatrix> phi_scale;  // per body: a random linear field Phi(X) = P0 + P1 X_0
    std::vector<ModeMatrix> phi_slope;
    VecX q0;

    explicit Bodies(unsigned seed) {
        std::mt19937 rng(seed);
        std::normal_distribution<double> n(0.0, 1.0);
        q0 = VecX::Zero(36 + 2 * kModes);
        const Vec3 axes[3] = {Vec3(1, 2, 0.5), Vec3(-1, 0.3, 1), Vec3(0, 1, -1)};
        for (int b = 0; b < 3; ++b) {
            const Mat3 R = Eigen::AngleAxisd(0.4 + 0.3 * b, axes[b].normalized()).toRotationMatrix();
            q0.segment<3>(12 * b) = Vec3(b, 0.2 * b, -0.1 * b);
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) q0[12 * b + 3 + 3 * i + j] = R(i, j);
            ModeMatrix P0(3, kModes), P1(3, kModes);
            for (int i = 0; i < 3; ++i)
                for (int k = 0; k < kModes; ++k) P0(i, k) = 0.3 * n(rng), P1(i, k) = 0.3 * n(rng);
            phi_scale.push_back(P0);
            phi_slope.push_back(P1);
        }
    }
    int modal_offset(int b) const { return b < 2 ? 36 + kModes * b : -1; }

    /// The attachment point factory: modes on bodies 0 and 1, none on 2.
    BodyPoint point(int body, const Vec3& X) const {
        BodyPoint p = affine_body_point(body, X);
        if (body == 0 || body == 1) {
            p.phi = phi_scale[body] + X[0] * phi_slope[body];
            p.modal_offset = modal_offset(body);
        }
        return p;
    }
    BodyPointFactory factory() const {
        return [this](int b, const Vec3& X) { return point(b, X); };
    }
};

VecX gradient_of(const Energy& e, const VecX& q) {
    VecX g = VecX::Zero(q.size());
    e.add_gradient(q, g);
    return g;
}

MatX hessian_of(const Energy& e, const VecX& q, bool project) {
    HessianBlocks t;
    e.add_hessian(q, t, project);
    return MatX(t.sparse(q.size()));
}

/// DoF mask of the movable bodies (their affine and modal blocks).
VecX movable_mask(const Bodies& b) {
    VecX m = VecX::Zero(b.q0.size());
    for (int k = 0; k < 3; ++k) {
        if (!b.movable[k]) continue;
        m.segment<12>(12 * k).setOnes();
        if (b.modal_offset(k) >= 0) m.segment(b.modal_offset(k), kModes).setOnes();
    }
    return m;
}

double rel_err(const MatX& a, const MatX& b) { return (a - b).norm() / std::max(1.0, b.norm()); }

/// Compares gradient and Hessian with central differences on the movable DoFs and checks that
/// nothing is written for the others.
void check_derivatives(const JointEnergy& e, const Bodies& b, const VecX& q, const std::string& what) {
    const VecX mask = movable_mask(b);
    const VecX g = gradient_of(e, q);
    const VecX g_fd = fd_gradient([&](const VecX& x) { return e.value(x); }, q, 1e-6);
    EXPECT_LT(rel_err(g, mask.asDiagonal() * g_fd), 1e-6) << what << " gradient\n"
                                                           << g.transpose() << "\n"
                                                           << g_fd.transpose();
    EXPECT_EQ(((VecX::Ones(q.size()) - mask).asDiagonal() * g).norm(), 0.0) << what;
    const MatX H = hessian_of(e, q, false);
    const MatX H_fd = fd_jacobian([&](const VecX& x) { return gradient_of(e, x); }, q, 1e-6);
    EXPECT_LT(rel_err(H, H_fd * mask.asDiagonal()), 1e-5) << what << " Hessian";
    EXPECT_LT((H - H.transpose()).norm(), 1e-9 * std::max(1.0, H.norm())) << what;
    const MatX Hp = hessian_of(e, q, true);
    EXPECT_TRUE(is_psd(Hp, 1e-9)) << what << " projected Hessian";
}

VecX perturbed(const VecX& q0, unsigned seed, double noise) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> n(0.0, noise);
    VecX q = q0;
    for (Eigen::Index i = 0; i < q.size(); ++i) q[i] += n(rng);
    return q;
}

struct Pairing {
    const char* name;
    int parent, child;
    bool parent_static;
};

const Pairing kPairings[] = {
    {"world-elastic", -1, 0, false},  {"world-affine", -1, 2, false},
    {"elastic-elastic", 0, 1, false}, {"affine-elastic", 2, 1, false},
    {"static-elastic", 2, 0, true},   {"elastic-world", 1, -1, false},
};

const JointType kTypes[] = {JointType::Fixed, JointType::Revolute, JointType::Prismatic,
                            JointType::Ball};

}  // namespace

TEST(JointEnergy, DerivativesMatchFiniteDifferencesForEveryTypeAndPairing) {
    for (const Pairing& pairing : kPairings) {
        for (const JointType type : kTypes) {
            for (const DriveMode mode : {DriveMode::Position, DriveMode::Velocity}) {
                if (!has_coordinate(type) && mode == DriveMode::Velocity) continue;
                Bodies bodies(7);
                if (pairing.parent_static) bodies.movable[pairing.parent] = false;
                JointEnergy e(bodies.movable, bodies.mass, bodies.length, 0.05);
                JointSpec s;
                s.type = type;
                s.parent = pairing.parent;
                s.child = pairing.child;
                s.world_anchor = Vec3(0.4, -0.2, 0.3);
                s.axis = Vec3(0.3, 1.0, -0.5);
                if (has_coordinate(type)) {
                    s.drive.enabled = true;
                    s.drive.mode = mode;
                    s.drive.target = 0.2;
                    s.drive.ke = mode == DriveMode::Position ? 40.0 : 0.0;
                    s.drive.kd = 3.0;
                    // A narrow range that the perturbed states leave on either side.
                    s.limits.enabled = true;
                    s.limits.lower = -1e-3;
                    s.limits.upper = 1e-3;
                }
                e.add_joint(s, bodies.q0, bodies.factory());
                for (unsigned trial = 0; trial < 3; ++trial) {
                    VecX q = perturbed(bodies.q0, 100 + trial, 0.05);
                    // Elastic coordinates of a visible size, so the modes move the anchors.
                    q.tail(2 * kModes) = perturbed(VecX::Zero(2 * kModes), 200 + trial, 0.2);
                    e.begin_step(0.1, perturbed(q, 300 + trial, 0.01));
                    const std::string what = std::string(pairing.name) + " " + joint_type_name(type) +
                                             (mode == DriveMode::Velocity ? " velocity" : "") +
                                             " trial " + std::to_string(trial);
                    const JointResidual r = e.residual(0, q);
                    EXPECT_GT(r.position, 1e-3) << what;
                    if (has_coordinate(type)) {
                        ASSERT_GT(r.limit_violation, 1e-4) << what << ": limit not active";
                    }
                    check_derivatives(e, bodies, q, what);
                }
            }
        }
    }
}

TEST(JointEnergy, ZeroAtTheBuildState) {
    for (const Pairing& pairing : kPairings) {
        for (const JointType type : kTypes) {
            Bodies bodies(3);
            JointEnergy e(bodies.movable, bodies.mass, bodies.length, 0.01);
            JointSpec s;
            s.type = type;
            s.parent = pairing.parent;
            s.child = pairing.child;
            s.world_anchor = Vec3(0.1, 0.5, -0.3);
            s.axis = Vec3(1, 1, 0);
            if (has_coordinate(type)) {
                s.drive.enabled = true;
                s.drive.ke = 10.0;
                s.drive.kd = 1.0;
                s.limits.enabled = true;
                s.limits.lower = -0.5;
                s.limits.upper = 0.5;
            }
            e.add_joint(s, bodies.q0, bodies.factory());
            const std::string what = std::string(pairing.name) + " " + joint_type_name(type);
            // Round-off of the anchor conversion only: k |dx|^2 with |dx| ~ 1e-16.
            EXPECT_LT(e.value(bodies.q0), 1e-24) << what;
            EXPECT_LT(gradient_of(e, bodies.q0).norm(), 1e-10) << what;
            const JointResidual r = e.residual(0, bodies.q0);
            EXPECT_LT(r.position, 1e-14) << what;
            EXPECT_LT(r.orientation, 1e-14) << what;
            EXPECT_NEAR(r.coordinate, 0.0, 1e-14) << what;
        }
    }
}

namespace {

/// q with body b's frame turned by R about the world point c (x -> c + R (x - c)).
VecX rotate_body_about(const VecX& q, int b, const Mat3& R, const Vec3& c) {
    VecX out = q;
    const Vec3 p = q.segment<3>(12 * b);
    const Mat3 A = body_frame(b, q);
    const Mat3 A2 = R * A;
    out.segment<3>(12 * b) = c + R * (p - c);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) out[12 * b + 3 + 3 * i + j] = A2(i, j);
    return out;
}

}  // namespace

TEST(JointEnergy, RevoluteAngleEqualsTheRelativeRotationAndUnwraps) {
    Bodies bodies(5);
    JointEnergy e(bodies.movable, bodies.mass, bodies.length, 0.01);
    JointSpec s;
    s.type = JointType::Revolute;
    s.parent = 2;
    s.child = 1;
    const Vec3 anchor(0.5, 0.1, -0.2), axis = Vec3(1, -2, 0.5).normalized();
    s.world_anchor = anchor;
    s.axis = axis;
    e.add_joint(s, bodies.q0, bodies.factory());

    // Child turned by +0.7 rad about the axis through the anchor: theta = 0.7, constraints met.
    const double theta = 0.7;
    VecX q = rotate_body_about(bodies.q0, 1, Eigen::AngleAxisd(theta, axis).toRotationMatrix(), anchor);
    EXPECT_NEAR(e.coordinate(0, q), theta, 1e-12);
    EXPECT_LT(e.residual(0, q).position, 1e-12);
    EXPECT_LT(e.residual(0, q).orientation, 1e-12);
    EXPECT_LT(e.value(q), 1e-20);

    // Both bodies turned together by any rotation: the relative angle stays 0.
    const Mat3 G = Eigen::AngleAxisd(1.1, Vec3(0.2, 1, 0.3).normalized()).toRotationMatrix();
    const VecX qg = rotate_body_about(rotate_body_about(q, 2, G, Vec3::Zero()), 1, G, Vec3::Zero());
    EXPECT_NEAR(e.coordinate(0, qg), theta, 1e-12);

    // Seven steps of 1 rad: the angle is continuous past pi, 7 rad after unwrapping.
    VecX qs = bodies.q0;
    const Mat3 step = Eigen::AngleAxisd(1.0, axis).toRotationMatrix();
    for (int k = 0; k < 7; ++k) {
        e.begin_step(0.01 * (k + 1), qs);
        qs = rotate_body_about(qs, 1, step, anchor);
    }
    EXPECT_NEAR(e.coordinate(0, qs), 7.0, 1e-10);
    // Negative direction from there: 7 - 2.5 = 4.5.
    e.begin_step(0.08, qs);
    qs = rotate_body_about(qs, 1, Eigen::AngleAxisd(-2.5, axis).toRotationMatrix(), anchor);
    EXPECT_NEAR(e.coordinate(0, qs), 4.5, 1e-10);
}

TEST(JointEnergy, PrismaticSlideEqualsTheDisplacementAlongTheParentAxis) {
    Bodies bodies(6);
    JointEnergy e(bodies.movable, bodies.mass, bodies.length, 0.01);
    JointSpec s;
    s.type = JointType::Prismatic;
    s.parent = 0;
    s.child = 2;
    const Vec3 axis = Vec3(0.2, 0.3, 1).normalized();
    s.world_anchor = Vec3(0.3, 0.3, 0.3);
    s.axis = axis;
    e.add_joint(s, bodies.q0, bodies.factory());

    VecX q = bodies.q0;
    q.segment<3>(24) += 0.37 * axis;
    EXPECT_NEAR(e.coordinate(0, q), 0.37, 1e-12);
    EXPECT_LT(e.value(q), 1e-20);  // sliding along the axis costs nothing
    // Parent and child turned together: the axis turns with the parent, the slide is kept.
    const Mat3 G = Eigen::AngleAxisd(0.9, Vec3(1, 0, 1).normalized()).toRotationMatrix();
    const VecX qg = rotate_body_about(rotate_body_about(q, 0, G, Vec3::Zero()), 2, G, Vec3::Zero());
    EXPECT_NEAR(e.coordinate(0, qg), 0.37, 1e-12);
    EXPECT_LT(e.residual(0, qg).position, 1e-12);
    // A perpendicular displacement is a position error of its size.
    VecX qp = q;
    const Vec3 perp = axis.cross(Vec3::UnitX()).normalized();
    qp.segment<3>(24) += 0.01 * perp;
    EXPECT_NEAR(e.residual(0, qp).position, 0.01, 1e-12);
    EXPECT_NEAR(e.coordinate(0, qp), 0.37, 1e-12);
    // Turning the child about the axis is an orientation error (prismatic locks rotation).
    const VecX qr = rotate_body_about(q, 2, Eigen::AngleAxisd(0.1, axis).toRotationMatrix(),
                                      q.segment<3>(24));
    // |R v - v| = 2 sin(0.05) |v_perp| for each rest axis v = A_p e_i (the parent's columns).
    double expected = 0.0;
    for (int i = 0; i < 3; ++i) {
        const Vec3 v = body_frame(0, q).col(i);
        expected = std::max(expected, 2.0 * std::sin(0.05) * std::sqrt(1.0 - std::pow(v.dot(axis), 2)));
    }
    EXPECT_NEAR(e.residual(0, qr).orientation, expected, 1e-12);
}

TEST(JointEnergy, ModesMoveTheAttachmentPointTranslationally) {
    Bodies bodies(8);
    JointEnergy e(bodies.movable, bodies.mass, bodies.length, 0.01);
    JointSpec s;
    s.type = JointType::Ball;
    s.parent = -1;
    s.child = 0;
    s.world_anchor = Vec3(0.2, 0.1, 0.0);
    e.add_joint(s, bodies.q0, bodies.factory());
    VecX q = bodies.q0;
    const Vec2 eta(0.03, -0.02);
    q.segment<2>(bodies.modal_offset(0)) = eta;
    // x = p + A (X + Phi eta): the anchor moves by A Phi eta.
    const BodyPoint& c = e.child_point(0);
    const Vec3 expected = body_frame(0, q) * c.phi * eta;
    EXPECT_NEAR(e.residual(0, q).position, expected.norm(), 1e-14);
    EXPECT_NEAR(e.value(q), 0.5 * e.stiffness(0) * 0.01 * 0.01 * expected.squaredNorm(), 1e-15);
}

TEST(JointEnergy, DefaultStiffnessIsWeightTimesEffectiveMassOverHSquared) {
    Bodies bodies(9);
    const double h = 0.02;
    JointEnergy e(bodies.movable, bodies.mass, bodies.length, h, 500.0);
    JointSpec s;
    s.type = JointType::Ball;
    s.parent = 0;
    s.child = 1;
    e.add_joint(s, bodies.q0, bodies.factory());
    s.parent = -1;
    e.add_joint(s, bodies.q0, bodies.factory());
    s.stiffness = 1234.0;
    e.add_joint(s, bodies.q0, bodies.factory());
    EXPECT_NEAR(e.stiffness(0), 500.0 * (2.0 * 3.0 / 5.0) / (h * h), 1e-9);
    EXPECT_NEAR(e.stiffness(1), 500.0 * 3.0 / (h * h), 1e-9);
    EXPECT_NEAR(e.stiffness(2), 1234.0, 1e-9);
    EXPECT_DOUBLE_EQ(e.orientation_length(0), 0.5);
    EXPECT_DOUBLE_EQ(e.orientation_length(1), 0.7);
}

TEST(JointEnergy, ASharedJointScalesValueGradientAndHessianByItsShare) {
    // A distributed worker carries 1/k of a joint held by k workers: the shares sum to the whole.
    Bodies bodies(5);
    JointSpec s;
    s.type = JointType::Revolute;
    s.parent = 0;
    s.child = 1;
    s.world_anchor = Vec3(0.4, -0.2, 0.3);
    s.axis = Vec3(0.3, 1.0, -0.5);
    s.drive.enabled = true;
    s.drive.ke = 40.0;
    s.drive.kd = 3.0;
    s.drive.target = 0.2;
    JointEnergy whole(bodies.movable, bodies.mass, bodies.length, 0.05);
    JointEnergy third(bodies.movable, bodies.mass, bodies.length, 0.05);
    whole.add_joint(s, bodies.q0, bodies.factory());
    third.add_joint(s, bodies.q0, bodies.factory());
    third.set_share(0, 1.0 / 3.0);
    VecX q = perturbed(bodies.q0, 17, 0.05);
    q.tail(2 * kModes) = perturbed(VecX::Zero(2 * kModes), 18, 0.2);
    whole.begin_step(0.1, bodies.q0);
    third.begin_step(0.1, bodies.q0);
    ASSERT_GT(whole.value(q), 0.0);
    EXPECT_NEAR(3.0 * third.value(q), whole.value(q), 1e-12 * whole.value(q));
    EXPECT_LT((3.0 * gradient_of(third, q) - gradient_of(whole, q)).norm(),
              1e-12 * gradient_of(whole, q).norm());
    for (bool project : {false, true}) {
        const MatX H = hessian_of(whole, q, project);
        EXPECT_LT((3.0 * hessian_of(third, q, project) - H).norm(), 1e-12 * H.norm());
    }
    check_derivatives(third, bodies, q, "a third of a revolute joint");
    EXPECT_THROW(third.set_share(0, 0.0), InputError);
    EXPECT_THROW(third.set_share(0, 1.5), InputError);
}

TEST(JointEnergy, BadSpecsAreInputErrors) {
    Bodies bodies(1);
    JointEnergy e(bodies.movable, bodies.mass, bodies.length, 0.01);
    JointSpec s;
    s.parent = 0;
    s.child = 0;
    EXPECT_THROW(e.add_joint(s, bodies.q0), InputError);
    s.child = 3;
    EXPECT_THROW(e.add_joint(s, bodies.q0), InputError);
    s.child = 1;
    s.type = JointType::Ball;
    s.drive.enabled = true;
    EXPECT_THROW(e.add_joint(s, bodies.q0), InputError);
    s.type = JointType::Revolute;
    s.drive.mode = DriveMode::Velocity;
    s.drive.ke = 1.0;
    EXPECT_THROW(e.add_joint(s, bodies.q0), InputError);
    s.drive = JointDrive{};
    s.axis = Vec3::Zero();
    EXPECT_THROW(e.add_joint(s, bodies.q0), InputError);
    s.axis = Vec3::UnitX();
    s.limits.enabled = true;
    s.limits.lower = 1.0;
    s.limits.upper = 0.0;
    EXPECT_THROW(e.add_joint(s, bodies.q0), InputError);
    s.limits = JointLimits{};
    // Attachment points of other bodies than the spec's.
    EXPECT_THROW(e.add_joint(s, affine_body_point(2, Vec3::Zero()), affine_body_point(1, Vec3::Zero()),
                             bodies.q0),
                 InputError);
    EXPECT_EQ(e.size(), 0u);
    e.add_joint(s, bodies.q0);
    EXPECT_EQ(e.size(), 1u);
}

TEST(JointTargetSchedule, PiecewiseLinearAndSinusoidal) {
    JointTargetSchedule p;
    p.kind = TargetScheduleKind::PiecewiseLinear;
    p.keyframes = {{0.0, 1.0}, {1.0, 3.0}, {3.0, -1.0}};
    EXPECT_DOUBLE_EQ(p.value(-1.0), 1.0);
    EXPECT_DOUBLE_EQ(p.value(0.0), 1.0);
    EXPECT_DOUBLE_EQ(p.value(0.25), 1.5);
    EXPECT_DOUBLE_EQ(p.value(1.0), 3.0);
    EXPECT_DOUBLE_EQ(p.value(2.0), 1.0);
    EXPECT_DOUBLE_EQ(p.value(5.0), -1.0);
    EXPECT_NO_THROW(validate_target_schedule(p, "s"));

    JointTargetSchedule s;
    s.kind = TargetScheduleKind::Sinusoidal;
    s.offset = 0.5;
    s.amplitude = 2.0;
    s.frequency = 0.25;
    s.phase = 0.1;
    for (double t : {0.0, 0.3, 1.7})
        EXPECT_DOUBLE_EQ(s.value(t), 0.5 + 2.0 * std::sin(2.0 * std::numbers::pi * 0.25 * t + 0.1));

    JointTargetSchedule bad = p;
    bad.keyframes[2].time = 1.0;
    EXPECT_THROW(validate_target_schedule(bad, "s"), InputError);
    bad.keyframes.clear();
    EXPECT_THROW(validate_target_schedule(bad, "s"), InputError);
}

TEST(JointEnergy, DriveTargetFollowsTheScheduleAtTheStepEnd) {
    Bodies bodies(2);
    JointEnergy e(bodies.movable, bodies.mass, bodies.length, 0.01);
    JointSpec s;
    s.type = JointType::Prismatic;
    s.parent = -1;
    s.child = 2;
    s.drive.enabled = true;
    s.drive.ke = 100.0;
    s.drive.target = 9.0;  // ignored: the schedule wins
    s.drive.schedule.kind = TargetScheduleKind::PiecewiseLinear;
    s.drive.schedule.keyframes = {{0.0, 0.0}, {1.0, 0.5}};
    s.world_anchor = Vec3(0.1, 0.2, 0.3);
    e.add_joint(s, bodies.q0);
    EXPECT_DOUBLE_EQ(e.target(0), 0.0);
    e.begin_step(0.4, bodies.q0);
    EXPECT_DOUBLE_EQ(e.target(0), 0.2);
    // Only the drive acts at the build state: h^2 ke/2 (0 - 0.2)^2.
    EXPECT_NEAR(e.value(bodies.q0), 0.01 * 0.01 * 100.0 / 2.0 * 0.04, 1e-15);
}

TEST(JointEnergy, RevoluteAngleStaysFiniteWhenUndefined) {
    // Child turned 90 degrees about y: its reference direction (world x at build, the
    // perpendicular chosen for axis z) now lies along the hinge axis, where theta is undefined.
    Bodies bodies(4);
    VecX q0 = bodies.q0;
    q0.segment<12>(24) = VecX::Zero(12);
    q0.segment<3>(27) = Vec3(1, 0, 0);
    q0.segment<3>(30) = Vec3(0, 1, 0);
    q0.segment<3>(33) = Vec3(0, 0, 1);
    JointEnergy e(bodies.movable, bodies.mass, bodies.length, 0.01);
    JointSpec s;
    s.type = JointType::Revolute;
    s.parent = -1;
    s.child = 2;
    s.axis = Vec3::UnitZ();
    s.drive.enabled = true;
    s.drive.ke = 5.0;
    s.drive.target = 0.3;
    e.add_joint(s, q0);
    e.begin_step(0.01, q0);
    const Mat3 R = Eigen::AngleAxisd(-std::numbers::pi / 2, Vec3::UnitY()).toRotationMatrix();
    VecX q = q0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) q[24 + 3 + 3 * i + j] = R(i, j);
    EXPECT_DOUBLE_EQ(e.coordinate(0, q), 0.0);
    EXPECT_TRUE(std::isfinite(e.value(q)));
    EXPECT_TRUE(gradient_of(e, q).allFinite());
    EXPECT_TRUE(hessian_of(e, q, true).allFinite());
}
