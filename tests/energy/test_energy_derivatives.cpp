// Finite-difference checks of every energy's gradient and Hessian with respect to q.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <random>

#include "concord/body/body_builder.hpp"
#include "concord/energy/barrier_energy.hpp"
#include "concord/energy/contact_set.hpp"
#include "concord/energy/friction_energy.hpp"
#include "concord/energy/inertia_energy.hpp"
#include "concord/energy/orthogonality_energy.hpp"
#include "concord/collision/broad_phase/broad_phase.hpp"
#include "concord/math/finite_difference.hpp"
#include "energy_test_util.hpp"

using namespace concord;
using concord::test::dense_hessian;
using concord::test::gradient_of;
using concord::test::rel_err;

namespace {

void check_derivatives(const Energy& e, const VecX& q, double h, double tol) {
    const VecX g = gradient_of(e, q);
    const VecX g_fd = fd_gradient([&](const VecX& x) { return e.value(x); }, q, h);
    EXPECT_LT(rel_err(g, g_fd), tol) << e.name() << " gradient\n" << g.transpose() << "\n" << g_fd.transpose();
    const MatX H = dense_hessian(e, q, false);
    const MatX H_fd = fd_jacobian([&](const VecX& x) { return gradient_of(e, x); }, q, h);
    EXPECT_LT(rel_err(H, H_fd), tol) << e.name() << " Hessian";
}

Vec12 random_affine(std::mt19937& rng, double noise) {
    std::normal_distribution<double> n(0.0, noise);
    Vec12 q = affine_state(Vec3::Zero(), Mat3::Identity());
    for (int i = 0; i < 12; ++i) q[i] += n(rng);
    return q;
}

}  // namespace

TEST(EnergyDerivatives, InertiaMatchesFiniteDifferences) {
    std::mt19937 rng(1);
    BodySpec spec;
    spec.name = "b";
    spec.shape.kind = ShapeKind::Box;
    spec.shape.size = Vec3(1, 2, 3);
    const AffineBody body = build_body(spec);
    InertiaEnergy e({body.mass_matrix, body.mass_matrix}, {true, false});
    VecX qt(24), q(24);
    qt << random_affine(rng, 0.1), random_affine(rng, 0.1);
    q << random_affine(rng, 0.1), random_affine(rng, 0.1);
    e.set_predicted(qt);
    check_derivatives(e, q, 1e-6, 1e-6);
    // Bodies that are not dynamic contribute nothing.
    EXPECT_EQ(gradient_of(e, q).tail<12>().norm(), 0.0);
}

TEST(EnergyDerivatives, OrthogonalityMatchesFiniteDifferences) {
    std::mt19937 rng(2);
    OrthogonalityEnergy e({3.0, 0.5});
    for (int trial = 0; trial < 20; ++trial) {
        VecX q(24);
        q << random_affine(rng, 0.3), random_affine(rng, 0.3);
        check_derivatives(e, q, 1e-6, 1e-6);
    }
}

TEST(EnergyDerivatives, OrthogonalityVanishesOnRotationsAndIsPsdProjected) {
    const Mat3 R = Eigen::AngleAxisd(0.8, Vec3(1, 2, 0.5).normalized()).toRotationMatrix();
    EXPECT_NEAR(orthogonality_potential(R), 0.0, 1e-14);
    EXPECT_LT(orthogonality_gradient(R).norm(), 1e-13);
    // Compressed body: the raw Hessian is indefinite, the projected one PSD.
    OrthogonalityEnergy e({1.0});
    const VecX q = affine_state(Vec3::Zero(), 0.5 * Mat3::Identity());
    const MatX H = dense_hessian(e, q, true);
    Eigen::SelfAdjointEigenSolver<MatX> eig(H);
    EXPECT_GE(eig.eigenvalues().minCoeff(), -1e-9);
    Eigen::SelfAdjointEigenSolver<MatX> raw(dense_hessian(e, q, false));
    EXPECT_LT(raw.eigenvalues().minCoeff(), -1e-3);
}

using concord::test::ContactFixture;

TEST(EnergyDerivatives, BarrierMatchesFiniteDifferences) {
    ContactFixture f;
    const ContactSet c = f.contacts();
    ASSERT_GT(c.point_triangle.size(), 0u);
    ASSERT_GT(c.edge_edge.size(), 0u);
    ASSERT_GT(c.point_plane.size(), 0u);
    BarrierEnergy e(f.surface, f.planes, {true, true}, f.dhat);
    e.set_contacts(&c);
    e.set_stiffness(10.0);
    // The contact set is fixed, so the energy is smooth in q while no pair changes type; a
    // step of 1e-7 keeps every pair inside its type for this configuration.
    check_derivatives(e, f.q, 1e-7, 1e-5);
}

TEST(EnergyDerivatives, BarrierHessianProjectionIsPsd) {
    ContactFixture f;
    const ContactSet c = f.contacts();
    BarrierEnergy e(f.surface, f.planes, {true, true}, f.dhat);
    e.set_contacts(&c);
    Eigen::SelfAdjointEigenSolver<MatX> eig(dense_hessian(e, f.q, true));
    EXPECT_GE(eig.eigenvalues().minCoeff(), -1e-8 * eig.eigenvalues().cwiseAbs().maxCoeff());
}

TEST(EnergyDerivatives, StaticBodiesGetNoDerivatives) {
    ContactFixture f;
    const ContactSet c = f.contacts();
    BarrierEnergy e(f.surface, f.planes, {false, true}, f.dhat);
    e.set_contacts(&c);
    const VecX g = gradient_of(e, f.q);
    EXPECT_EQ(g.head<12>().norm(), 0.0);
    EXPECT_GT(g.tail<12>().norm(), 0.0);
}

TEST(EnergyDerivatives, FrictionMatchesFiniteDifferences) {
    ContactFixture f;
    const ContactSet c = f.contacts();
    FrictionEnergy e(f.surface, {true, true});
    std::vector<double> lambda(c.size(), 2.0), mu(c.size(), 0.5);
    const VecX q_start = f.q;
    // Both regimes of the mollifier: slip below and above eps.
    for (double eps : {1e-1, 1e-4}) {
        e.lag(c, f.planes, f.q, lambda, mu, q_start, eps);
        ASSERT_EQ(e.pairs().size(), c.size());
        VecX q = f.q;
        std::mt19937 rng(3);
        std::normal_distribution<double> n(0.0, 1e-3);
        for (int i = 0; i < 24; ++i) q[i] += n(rng);
        check_derivatives(e, q, 1e-8, 1e-4);
    }
}

TEST(EnergyDerivatives, FrictionMollifierIsC1) {
    const double eps = 1e-3;
    EXPECT_NEAR(friction_f0(eps, eps), eps, 1e-15);
    EXPECT_NEAR(friction_f1(eps, eps), 1.0, 1e-15);
    EXPECT_NEAR(friction_f1(0.0, eps), 0.0, 1e-15);
    const double y = 0.3 * eps, hh = 1e-9;
    EXPECT_NEAR((friction_f0(y + hh, eps) - friction_f0(y - hh, eps)) / (2 * hh), friction_f1(y, eps), 1e-6);
}
