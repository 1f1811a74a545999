// Validation of joints inside the implicit-Euler Newton solve: an affine bar hanging from a
// world revolute joint (pendulum period, drives, limits), stepped by a minimal loop over the
// inertia, orthogonality and joint energies with the production Newton solver.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "concord/body/affine_body.hpp"
#include "concord/body/body_builder.hpp"
#include "concord/energy/inertia_energy.hpp"
#include "concord/energy/joint_energy.hpp"
#include "concord/energy/orthogonality_energy.hpp"
#include "concord/solver/newton_solver.hpp"

using namespace concord;

namespace {

/// E(q) = 1/2 |q - q~|_M^2 + h^2 E_orth(q) + E_joints(q): the incremental potential of
/// incremental_potential.hpp without contact.
class StepProblem final : public NewtonProblem {
public:
    std::vector<const Energy*> terms;

    void begin_iteration(const VecX&) override {}
    double energy(const VecX& x) override {
        double e = 0.0;
        for (const Energy* t : terms) e += t->value(x);
        return e;
    }
    void gradient(const VecX& x, VecX& g) override {
        for (const Energy* t : terms) t->add_gradient(x, g);
    }
    void hessian(const VecX& x, HessianBlocks& H, bool project) override {
        for (const Energy* t : terms) t->add_hessian(x, H, project);
    }
    double max_step(const VecX&, const VecX&) override { return 1.0; }
    double step_measure(const VecX& dx) override { return dx.lpNorm<Eigen::Infinity>(); }
    void accepted(const VecX&) override {}
};

/// A 0.1 x 1 x 0.1 m steel-stiff bar (10 kg) hanging from a revolute joint about z at its top
/// end, which sits at the world origin; angle 0 is the vertical rest state.
struct Pendulum {
    AffineBody body;
    double h;
    Vec3 gravity;
    VecX q, v;
    double t = 0.0;
    InertiaEnergy inertia;
    OrthogonalityEnergy orthogonality;
    JointEnergy joints;
    StepProblem problem;
    SolverParams params;

    static AffineBody make_body() {
        BodySpec spec;
        spec.name = "bar";
        spec.shape.kind = ShapeKind::Box;
        spec.shape.size = Vec3(0.1, 1.0, 0.1);
        spec.position = Vec3(0, -0.5, 0);
        return build_body(spec);
    }

    Pendulum(double time_step, const Vec3& g, const JointSpec& joint_spec)
        : body(make_body()),
          h(time_step),
          gravity(g),
          q(body.q_initial),
          v(VecX::Zero(12)),
          inertia({body.mass_matrix}, {true}),
          orthogonality({time_step * time_step * body.stiffness * body.mass_properties.volume}),
          joints({true}, {body.mass_properties.mass}, {body.bounding_radius}, time_step) {
        joints.add_joint(joint_spec, q);
        problem.terms = {&inertia, &orthogonality, &joints};
        // The gradient is in h^2-scaled force units: the bar's weight is m g h^2 (1e-4 at
        // h = 1 ms). 1e-5 of it leaves angle errors ~ 1e-9 / I ~ 3e-10 rad per step at 1 ms,
        // and stays above the round-off floor of the line search's energy comparisons (~1e-8
        // in these units).
        params.convergence_mode = ConvergenceMode::Global;
        params.abs_tol = 1e-5 * body.mass_properties.mass * 9.81 * h * h;
        params.rel_tol = 1e-12;
    }

    /// Pivot point of the bar in its local coordinates.
    Vec3 pivot_local() const { return Vec3(0, 0.5, 0) + body.mass_properties.center_of_mass; }

    /// Turns the bar rigidly by theta about z through the pivot, with angular velocity omega.
    void set_state(double theta, double omega) {
        const Mat3 R = Eigen::AngleAxisd(theta, Vec3::UnitZ()).toRotationMatrix();
        const Vec3 p = -R * pivot_local();  // pivot at the origin
        q = affine_state(p, R);
        const Mat3 W = omega * (Mat3() << 0, -1, 0, 1, 0, 0, 0, 0, 0).finished();  // [w]x
        v = affine_state(W * p, W * R);
    }

    double angle() const { return joints.coordinate(0, q); }

    /// One implicit-Euler step; false (with a test failure) when the solve does not converge.
    bool step() {
        joints.begin_step(t + h, q);
        VecX q_tilde = q + h * v;
        q_tilde.head<3>() += h * h * gravity;  // M^-1 f_ext for gravity moves p only
        inertia.set_predicted(q_tilde);
        VecX x = q_tilde;
        const NewtonStats stats = newton_solve(problem, x, std::vector<bool>(12, true), params);
        EXPECT_EQ(stats.status, ConvergenceStatus::Converged)
            << "t = " << t << ": residual " << stats.final_residual() << " after "
            << stats.iterations << " iterations, stop reason "
            << static_cast<int>(stats.stop_reason);
        if (stats.status != ConvergenceStatus::Converged) return false;
        v = (x - q) / h;
        q = x;
        t += h;
        return true;
    }

    /// Moment of inertia about the pivot axis z and the pivot-to-centre-of-mass distance.
    double inertia_about_pivot() const {
        const MassProperties& mp = body.mass_properties;
        const Vec3 d = mp.center_of_mass - pivot_local();
        return mp.inertia_about_com(2, 2) + mp.mass * (d.x() * d.x() + d.y() * d.y());
    }
    double pivot_distance() const { return (body.mass_properties.center_of_mass - pivot_local()).norm(); }
};

JointSpec hinge() {
    JointSpec s;
    s.type = JointType::Revolute;
    s.parent = -1;
    s.child = 0;
    s.world_anchor = Vec3::Zero();
    s.axis = Vec3::UnitZ();
    return s;
}

}  // namespace

TEST(JointPendulum, PeriodMatchesTheAnalyticPendulum) {
    // Released from theta0 = 0.05 rad at h = 1 ms. Reference: the physical pendulum
    //   T = 2 pi sqrt(I_pivot / (m g d)) (1 + theta0^2 / 16)
    // (finite-amplitude correction 1.6e-4 included). Expected deviations: implicit Euler
    // lengthens the period by (omega h)^2 / 3 = 5e-6 (omega = 3.8 rad/s); the penalty
    // compliance moves the pivot by ~g h^2 / w = 1e-8 m; the bar's elastic stretch under its
    // weight (strain rho g L / E ~ 1e-5) changes I / (m d) by about as much; the 4e-3 amplitude
    // decay of implicit Euler changes the amplitude correction by < 1e-6. Tolerance 1e-4 (below
    // the amplitude correction, so the test would see a missing or wrong angle scale).
    Pendulum p(1e-3, Vec3(0, -9.81, 0), hinge());
    const double theta0 = 0.05;
    p.set_state(theta0, 0.0);
    EXPECT_NEAR(p.angle(), theta0, 1e-12);

    const double m = p.body.mass_properties.mass, d = p.pivot_distance();
    const double T_ref = 2 * std::numbers::pi * std::sqrt(p.inertia_about_pivot() / (m * 9.81 * d)) *
                         (1 + theta0 * theta0 / 16);
    std::vector<double> crossings;  // times theta changes sign, linearly interpolated
    double max_position = 0.0, max_orientation = 0.0;
    double prev = p.angle();
    while (crossings.size() < 3 && p.t < 2 * T_ref) {
        ASSERT_TRUE(p.step());
        const double a = p.angle();
        if ((prev > 0) != (a > 0)) crossings.push_back(p.t - p.h * a / (a - prev));
        prev = a;
        const JointResidual r = p.joints.residual(0, p.q);
        max_position = std::max(max_position, r.position);
        max_orientation = std::max(max_orientation, r.orientation);
    }
    ASSERT_EQ(crossings.size(), 3u);
    const double T = crossings[2] - crossings[0];
    RecordProperty("period", std::to_string(T));
    RecordProperty("period_reference", std::to_string(T_ref));
    std::printf("pendulum: T = %.7f s, reference %.7f s, rel. error %.2e; max joint position "
                "error %.2e m, axis error %.2e (k = %.3e N/m)\n",
                T, T_ref, T / T_ref - 1, max_position, max_orientation, p.joints.stiffness(0));
    EXPECT_NEAR(T / T_ref, 1.0, 1e-4);
    // Static estimate of the penalty stretch: m g (1 + centripetal) / k ~ g h^2 / w = 1e-8 m.
    EXPECT_LT(max_position, 3e-8);
    EXPECT_LT(max_orientation, 1e-7);
}

TEST(JointPendulum, VelocityDriveSpinsAtTheTargetRate) {
    // No gravity, damper kd towards v* = 2 rad/s with time constant I / kd = 0.02 s; after 4 s
    // (200 time constants) the rate is steady. It settles where the drive torque
    // kd (v* - w) balances implicit Euler's numerical dissipation of a rotating affine body:
    // each step's linear update of A leaves the rotations by (w h)^2 / 2, which the stiff
    // orthogonality energy removes, a loss of (w h)^2 of the kinetic energy I w^2 / 2 per step,
    // i.e. a torque I w^3 h. Hence v* - w = I v*^3 h / kd (3.2e-4 here, first order in h:
    // measured 1.6e-4 at h = 1 ms). Tolerance: 10 % of that deficit. The angle passes 2 pi
    // (unwrapped across steps).
    JointSpec s = hinge();
    s.drive.enabled = true;
    s.drive.mode = DriveMode::Velocity;
    s.drive.target = 2.0;
    const double h = 2e-3;
    const double I = Pendulum(h, Vec3::Zero(), s).inertia_about_pivot();
    const double kd = I / 0.02;
    s.drive.kd = kd;
    Pendulum driven(h, Vec3::Zero(), s);
    driven.set_state(0.0, 0.0);
    double prev = driven.angle();
    while (driven.t < 4.0 - 1e-9) {
        prev = driven.angle();
        ASSERT_TRUE(driven.step());
    }
    const double rate = (driven.angle() - prev) / driven.h;
    const double deficit = I * 8.0 * h / kd;
    std::printf("velocity drive: rate %.9f rad/s (expected %.9f), angle %.6f rad\n", rate,
                2.0 - deficit, driven.angle());
    EXPECT_NEAR(rate, 2.0 - deficit, 0.1 * deficit);
    EXPECT_GT(driven.angle(), 2 * std::numbers::pi);
    // theta(t) = v* (t - tau) after the transient (implicit Euler has the same lag tau): 7.96.
    EXPECT_NEAR(driven.angle(), 2.0 * (4.0 - 0.02), 4.0 * deficit + 2 * h * 2.0);
}

TEST(JointPendulum, PositionDriveHoldsTheStaticEquilibrium) {
    // Spring ke to theta* = 0.5 rad against gravity, critically damped by kd: the rest angle
    // solves ke (theta - theta*) + m g d sin(theta) = 0 (Newton's method below). h = 20 ms;
    // after 3 s (omega t ~ 23) the transient is gone. The solve tolerance (1e-5 of the weight
    // in h^2 units) leaves theta within abs_tol / (h^2 (ke + m g d cos theta)) ~ 5e-6 rad;
    // the joint penalty shifts it by ~1e-8. Tolerance 2e-5 rad.
    JointSpec s = hinge();
    const double h = 0.02;
    Pendulum probe(h, Vec3(0, -9.81, 0), s);
    const double m = probe.body.mass_properties.mass, d = probe.pivot_distance();
    const double I = probe.inertia_about_pivot();
    const double ke = 3 * m * 9.81 * d;
    s.drive.enabled = true;
    s.drive.mode = DriveMode::Position;
    s.drive.target = 0.5;
    s.drive.ke = ke;
    s.drive.kd = 2 * std::sqrt((ke + m * 9.81 * d) * I);
    Pendulum p(h, Vec3(0, -9.81, 0), s);
    p.set_state(0.0, 0.0);
    while (p.t < 3.0) ASSERT_TRUE(p.step());
    double theta = 0.5;
    for (int i = 0; i < 50; ++i)
        theta -= (ke * (theta - 0.5) + m * 9.81 * d * std::sin(theta)) /
                 (ke + m * 9.81 * d * std::cos(theta));
    std::printf("position drive: angle %.9f rad, equilibrium %.9f rad\n", p.angle(), theta);
    EXPECT_NEAR(p.angle(), theta, 2e-5);
}

TEST(JointPendulum, LimitsStopTheSwing) {
    // Kicked at 1 rad/s from the bottom, the free swing would reach 0.26 rad; the limit at
    // 0.1 rad stops it. The penalty k_lim = k L^2 = 2.6e9 N m/rad would absorb the remaining
    // kinetic energy (~1.4 J) within sqrt(2 E / k_lim) ~ 3e-5 rad; being stiffer than one
    // step resolves (period 2e-4 s < h), implicit Euler stops the bar within one step, at
    // ~ I w / (k_lim h) ~ 1e-6 rad. Tolerance 1e-3 rad.
    JointSpec s = hinge();
    s.limits.enabled = true;
    s.limits.lower = -0.1;
    s.limits.upper = 0.1;
    Pendulum p(1e-3, Vec3(0, -9.81, 0), s);
    p.set_state(0.0, 1.0);
    double max_angle = 0.0, max_violation = 0.0;
    while (p.t < 1.5) {
        ASSERT_TRUE(p.step());
        max_angle = std::max(max_angle, std::abs(p.angle()));
        max_violation = std::max(max_violation, p.joints.residual(0, p.q).limit_violation);
    }
    std::printf("limits: max |theta| %.6f rad, max violation %.2e rad\n", max_angle, max_violation);
    EXPECT_GT(max_angle, 0.1);
    EXPECT_LT(max_angle, 0.1 + 1e-3);
    EXPECT_NEAR(max_violation, max_angle - 0.1, 1e-12);
}
