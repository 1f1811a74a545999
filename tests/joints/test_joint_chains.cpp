// Joints between two bodies and prismatic joints inside the implicit-Euler Newton solve:
// a welded two-bar pendulum (fixed joint) against the composite physical pendulum, a slider on
// an inclined prismatic joint against the exact implicit-Euler free fall along it, its limit,
// and a scheduled position drive (kinematic driver).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <numbers>

#include "concord/body/affine_body.hpp"
#include "concord/body/body_builder.hpp"
#include "concord/energy/inertia_energy.hpp"
#include "concord/energy/joint_energy.hpp"
#include "concord/energy/orthogonality_energy.hpp"
#include "concord/solver/newton_solver.hpp"

using namespace concord;

namespace {

/// Inertia + h^2 orthogonality + joints for several affine bodies, stepped with newton_solve.
class ChainWorld final : public NewtonProblem {
public:
    std::vector<AffineBody> bodies;
    double h;
    Vec3 gravity;
    VecX q, v;
    double t = 0.0;
    std::unique_ptr<InertiaEnergy> inertia;
    std::unique_ptr<OrthogonalityEnergy> orthogonality;
    std::unique_ptr<JointEnergy> joints;
    SolverParams params;

    ChainWorld(const std::vector<BodySpec>& specs, double time_step, const Vec3& g)
        : h(time_step), gravity(g) {
        std::vector<Mat12> masses;
        std::vector<double> weights, mass, length;
        double total_mass = 0.0;
        for (const BodySpec& s : specs) {
            bodies.push_back(build_body(s));
            const AffineBody& b = bodies.back();
            masses.push_back(b.mass_matrix);
            weights.push_back(h * h * b.stiffness * b.mass_properties.volume);
            mass.push_back(b.mass_properties.mass);
            length.push_back(b.bounding_radius);
            total_mass += b.mass_properties.mass;
        }
        const std::size_t n = bodies.size();
        q.resize(12 * n);
        for (std::size_t b = 0; b < n; ++b) q.segment<12>(12 * b) = bodies[b].q_initial;
        v = VecX::Zero(12 * n);
        inertia = std::make_unique<InertiaEnergy>(masses, std::vector<bool>(n, true));
        orthogonality = std::make_unique<OrthogonalityEnergy>(weights);
        joints = std::make_unique<JointEnergy>(std::vector<bool>(n, true), mass, length, h);
        // Gradient in h^2-scaled force units; 1e-5 of the total weight (see test_joint_pendulum).
        params.convergence_mode = ConvergenceMode::Global;
        params.abs_tol = 1e-5 * total_mass * 9.81 * h * h;
        params.rel_tol = 1e-12;
    }

    bool step() {
        joints->begin_step(t + h, q);
        VecX q_tilde = q + h * v;
        for (std::size_t b = 0; b < bodies.size(); ++b) q_tilde.segment<3>(12 * b) += h * h * gravity;
        inertia->set_predicted(q_tilde);
        VecX x = q_tilde;
        const NewtonStats stats = newton_solve(*this, x, std::vector<bool>(x.size(), true), params);
        EXPECT_EQ(stats.status, ConvergenceStatus::Converged)
            << "t = " << t << ": residual " << stats.final_residual();
        if (stats.status != ConvergenceStatus::Converged) return false;
        v = (x - q) / h;
        q = x;
        t += h;
        return true;
    }

    // NewtonProblem
    void begin_iteration(const VecX&) override {}
    double energy(const VecX& x) override {
        return inertia->value(x) + orthogonality->value(x) + joints->value(x);
    }
    void gradient(const VecX& x, VecX& g) override {
        inertia->add_gradient(x, g);
        orthogonality->add_gradient(x, g);
        joints->add_gradient(x, g);
    }
    void hessian(const VecX& x, HessianBlocks& H, bool project) override {
        inertia->add_hessian(x, H, project);
        orthogonality->add_hessian(x, H, project);
        joints->add_hessian(x, H, project);
    }
    double max_step(const VecX&, const VecX&) override { return 1.0; }
    double step_measure(const VecX& dx) override { return dx.lpNorm<Eigen::Infinity>(); }
    void accepted(const VecX&) override {}
};

BodySpec bar(const Vec3& position) {
    BodySpec spec;
    spec.name = "bar";
    spec.shape.kind = ShapeKind::Box;
    spec.shape.size = Vec3(0.1, 1.0, 0.1);
    spec.position = position;
    return spec;
}

/// Sets body b to its initial pose turned by theta about z through the world origin.
void turn_about_origin(ChainWorld& w, int b, double theta) {
    const Mat3 R = Eigen::AngleAxisd(theta, Vec3::UnitZ()).toRotationMatrix();
    const Vec12 q0 = w.bodies[b].q_initial;
    w.q.segment<12>(12 * b) = affine_state(R * q0.head<3>(), R * affine_matrix(q0));
}

}  // namespace

TEST(JointChains, WeldedBarsSwingAsOneCompositePendulum) {
    // Bar 0 hangs from a world hinge at the origin, bar 1 is welded (fixed joint) below it:
    // a 2 m, 20 kg bar. Reference: T = 2 pi sqrt(I_O / (M g d)) (1 + theta0^2 / 16) with I_O
    // the two bars' inertia about the pivot and d the composite centre-of-mass depth. The weld
    // (k L^2 ~ 1e9 N m/rad at h = 1 ms) bends by < 1e-8 rad; implicit Euler lengthens the
    // period by (omega h)^2 / 3 ~ 3e-6. Tolerance 1e-4 as for the single pendulum.
    const double h = 1e-3, theta0 = 0.05;
    ChainWorld w({bar(Vec3(0, -0.5, 0)), bar(Vec3(0, -1.5, 0))}, h, Vec3(0, -9.81, 0));
    JointSpec hinge;
    hinge.type = JointType::Revolute;
    hinge.parent = -1;
    hinge.child = 0;
    hinge.world_anchor = Vec3::Zero();
    hinge.axis = Vec3::UnitZ();
    w.joints->add_joint(hinge, w.q);
    JointSpec weld;
    weld.type = JointType::Fixed;
    weld.parent = 0;
    weld.child = 1;
    weld.world_anchor = Vec3(0, -1, 0);
    w.joints->add_joint(weld, w.q);
    EXPECT_LT(w.joints->value(w.q), 1e-20);

    double I = 0.0, M = 0.0;
    Vec3 moment = Vec3::Zero();
    for (int b = 0; b < 2; ++b) {
        const MassProperties& mp = w.bodies[b].mass_properties;
        const Vec3 c = affine_translation(w.bodies[b].q_initial) +
                       affine_matrix(w.bodies[b].q_initial) * mp.center_of_mass;
        I += mp.inertia_about_com(2, 2) + mp.mass * (c.x() * c.x() + c.y() * c.y());
        M += mp.mass;
        moment += mp.mass * c;
    }
    const double d = (moment / M).norm();
    const double T_ref =
        2 * std::numbers::pi * std::sqrt(I / (M * 9.81 * d)) * (1 + theta0 * theta0 / 16);
    for (int b = 0; b < 2; ++b) turn_about_origin(w, b, theta0);
    EXPECT_NEAR(w.joints->coordinate(0, w.q), theta0, 1e-12);

    std::vector<double> crossings;
    double prev = w.joints->coordinate(0, w.q), max_weld_orientation = 0.0, max_weld_gap = 0.0;
    while (crossings.size() < 3 && w.t < 2 * T_ref) {
        ASSERT_TRUE(w.step());
        const double a = w.joints->coordinate(0, w.q);
        if ((prev > 0) != (a > 0)) crossings.push_back(w.t - h * a / (a - prev));
        prev = a;
        const JointResidual r = w.joints->residual(1, w.q);
        max_weld_orientation = std::max(max_weld_orientation, r.orientation);
        max_weld_gap = std::max(max_weld_gap, r.position);
    }
    ASSERT_EQ(crossings.size(), 3u);
    const double T = crossings[2] - crossings[0];
    std::printf("welded pendulum: T = %.7f s, reference %.7f s, rel. error %.2e; weld gap "
                "%.2e m, weld misalignment %.2e\n",
                T, T_ref, T / T_ref - 1, max_weld_gap, max_weld_orientation);
    EXPECT_NEAR(T / T_ref, 1.0, 1e-4);
    EXPECT_LT(max_weld_gap, 1e-7);
    EXPECT_LT(max_weld_orientation, 1e-7);
}

namespace {

/// A 0.2 m cube on a world prismatic joint through its centre along (1, -1, 0)/sqrt 2.
ChainWorld slider_world(double h, const Vec3& g, const JointSpec& base) {
    BodySpec cube;
    cube.name = "cube";
    cube.shape.kind = ShapeKind::Box;
    cube.shape.size = Vec3(0.2, 0.2, 0.2);
    ChainWorld w({cube}, h, g);
    JointSpec s = base;
    s.type = JointType::Prismatic;
    s.parent = -1;
    s.child = 0;
    s.world_anchor = affine_translation(w.bodies[0].q_initial);
    s.axis = Vec3(1, -1, 0);
    w.joints->add_joint(s, w.q);
    return w;
}

}  // namespace

TEST(JointChains, SliderFallsAlongAnInclinedPrismaticJoint) {
    // Gravity's component along the axis, a = g / sqrt 2, is the only force along it (the
    // joint's forces are perpendicular to the fixed world axis, gravity acts at the anchor so
    // there is no torque). Implicit Euler from rest gives exactly v_n = n h a and
    // s_n = a h^2 n (n + 1) / 2. Tolerance 1e-6 relative (solver tolerance accumulated over
    // 100 steps).
    const double h = 0.01;
    ChainWorld w = slider_world(h, Vec3(0, -9.81, 0), JointSpec{});
    const double a = 9.81 / std::sqrt(2.0);
    double max_gap = 0.0, max_orientation = 0.0;
    for (int n = 1; n <= 100; ++n) {
        ASSERT_TRUE(w.step());
        const JointResidual r = w.joints->residual(0, w.q);
        max_gap = std::max(max_gap, r.position);
        max_orientation = std::max(max_orientation, r.orientation);
    }
    const double s_ref = a * h * h * 100 * 101 / 2;
    std::printf("slider: s = %.9f m, reference %.9f m; gap %.2e m, misalignment %.2e\n",
                w.joints->coordinate(0, w.q), s_ref, max_gap, max_orientation);
    EXPECT_NEAR(w.joints->coordinate(0, w.q), s_ref, 1e-6 * s_ref);
    // The perpendicular weight component m g / sqrt 2 over k = w m / h^2: g h^2 / (sqrt 2 w).
    EXPECT_LT(max_gap, 2.0 * 9.81 * h * h / (std::sqrt(2.0) * kDefaultJointStiffnessWeight));
    EXPECT_LT(max_orientation, 1e-9);
}

TEST(JointChains, PrismaticLimitStopsTheSlider) {
    // Same slide with limits [-0.1, 0.5] m: the cube stops at the upper limit and rests there
    // against the one-sided penalty k_lim = k: the weight component pushes it in by
    // m a / k = a h^2 / w = 7e-7 m at rest. Tolerance 1e-8 m (the solve tolerance moves it by
    // ~abs_tol / (w m) ~ 1e-11 m; 200 steps leave no visible transient: the penalty's implicit
    // Euler response is overdamped at this stiffness).
    JointSpec s;
    s.limits.enabled = true;
    s.limits.lower = -0.1;
    s.limits.upper = 0.5;
    const double h = 0.01;
    ChainWorld w = slider_world(h, Vec3(0, -9.81, 0), s);
    for (int n = 0; n < 200; ++n) ASSERT_TRUE(w.step());
    const double c = w.joints->coordinate(0, w.q);
    std::printf("slider limit: s = %.9f m (rest estimate %.9f m)\n", c,
                0.5 + 9.81 / std::sqrt(2.0) * h * h / kDefaultJointStiffnessWeight);
    EXPECT_NEAR(c, 0.5 + 9.81 / std::sqrt(2.0) * h * h / kDefaultJointStiffnessWeight, 1e-8);
}

TEST(JointChains, ScheduledPositionDriveMovesTheSlider) {
    // Kinematic driver without gravity: a stiff critically damped position drive whose target
    // ramps 0 -> 0.3 m over 0.5 s, then holds. After 1.5 s the slide equals the final target
    // (transient ~ e^-omega t with omega = 100 rad/s; the solve tolerance leaves ~1e-9 m).
    // Mid-ramp (25 time constants in) it lags the target by the PD steady-state lag
    // v kd / ke = 2 v / omega = 1.2e-2 m; tolerance 20 % of it plus one step of the ramp, h v.
    JointSpec s;
    s.drive.enabled = true;
    s.drive.mode = DriveMode::Position;
    s.drive.schedule.kind = TargetScheduleKind::PiecewiseLinear;
    s.drive.schedule.keyframes = {{0.0, 0.0}, {0.5, 0.3}};
    const double h = 0.005, omega = 100.0;
    ChainWorld probe = slider_world(h, Vec3::Zero(), JointSpec{});
    const double m = probe.bodies[0].mass_properties.mass;
    s.drive.ke = m * omega * omega;
    s.drive.kd = 2 * m * omega;
    ChainWorld w = slider_world(h, Vec3::Zero(), s);
    double mid = 0.0;
    while (w.t < 1.5 - 1e-9) {
        ASSERT_TRUE(w.step());
        if (std::abs(w.t - 0.25) < 1e-9) mid = w.joints->coordinate(0, w.q);
    }
    const double v = 0.3 / 0.5, lag = 2 * v / omega;
    std::printf("scheduled drive: mid-ramp s = %.6f m (target 0.15, PD lag %.4f), final %.9f m\n",
                mid, lag, w.joints->coordinate(0, w.q));
    EXPECT_NEAR(mid, 0.15 - lag, 0.2 * lag + h * v);
    EXPECT_NEAR(w.joints->coordinate(0, w.q), 0.3, 1e-6);
}
