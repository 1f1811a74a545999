// Elastic bodies: finite-difference checks of the reduced inertia, the modal elasticity and the
// contact energies through the elastic vertex map x = p + A (X + Phi eta), and the chord
// deviation bound the CCD relies on.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <random>

#include "concord/body/body_builder.hpp"
#include "concord/body/modal_part.hpp"
#include "concord/collision/broad_phase/broad_phase.hpp"
#include "concord/energy/barrier_energy.hpp"
#include "concord/energy/contact_set.hpp"
#include "concord/energy/friction_energy.hpp"
#include "concord/energy/modal_elasticity_energy.hpp"
#include "concord/energy/reduced_inertia_energy.hpp"
#include "concord/math/error.hpp"
#include "concord/math/finite_difference.hpp"
#include "energy_test_util.hpp"

using namespace concord;
using concord::test::dense_hessian;
using concord::test::gradient_of;
using concord::test::rel_err;

namespace {

// Two smooth non-affine modes of a body: a bending-like field along y and a bulge along x.
MatX test_modes(const Vec3& X) {
    MatX phi(3, 2);
    phi.col(0) = Vec3(0.0, 0.5 * X.x() * X.x(), 0.0);
    phi.col(1) = Vec3(X.x() * X.y() * X.y(), 0.0, 0.3 * X.z() * X.z());
    return phi;
}

// Mode values at the mesh vertices (the modal part of an elastic box) and M_z from a lumped
// grid of mass points through the box.
ModalPart make_modal_part(const AffineBody& body) {
    ModalPart part;
    part.num_modes = 2;
    const auto n = body.mesh().vertices.rows();
    auto phi = std::make_shared<MatX>(3 * n, 2);
    for (Eigen::Index v = 0; v < n; ++v)
        phi->middleRows(3 * v, 3) = test_modes(body.mesh().vertices.row(v).transpose());
    part.vertex_modes = phi;
    const int g = 4;
    Vertices pts(g * g * g, 3);
    MatX phis(3 * g * g * g, 2);
    int k = 0;
    for (int i = 0; i < g; ++i)
        for (int j = 0; j < g; ++j)
            for (int l = 0; l < g; ++l, ++k) {
                const Vec3 X(-0.5 + (i + 0.5) / g, -0.5 + (j + 0.5) / g, -0.5 + (l + 0.5) / g);
                pts.row(k) = X.transpose();
                phis.middleRows(3 * k, 3) = test_modes(X);
            }
    Eigen::SparseMatrix<double> M(3 * k, 3 * k);
    M.setIdentity();
    M *= 1000.0 / k;
    part.reduced_mass = reduced_mass_matrix(pts, phis, M);
    part.modal_stiffness = MatX::Identity(2, 2) * 50.0;
    part.modal_stiffness(0, 1) = part.modal_stiffness(1, 0) = 5.0;
    part.modal_damping = MatX::Identity(2, 2) * 0.7;
    part.eta_initial = VecX::Zero(2);
    part.mode_scale = VecX::Ones(2);
    return part;
}

AffineBody unit_box(const std::string& name) {
    BodySpec s;
    s.name = name;
    s.shape.kind = ShapeKind::Box;
    return build_body(s);
}

}  // namespace

TEST(ElasticEnergies, ReducedCoordinatesJacobianMatchesFiniteDifferences) {
    std::mt19937 rng(11);
    std::normal_distribution<double> n(0.0, 0.3);
    VecX s(14);
    for (int i = 0; i < 14; ++i) s[i] = n(rng);
    const MatX J = reduced_coordinates_jacobian(s.head<12>(), s.tail(2));
    const MatX J_fd = fd_jacobian(
        [](const VecX& x) { return reduced_coordinates(x.head<12>(), x.tail(2)); }, s, 1e-6);
    EXPECT_LT(rel_err(J, J_fd), 1e-8);
    // x = Psi(X, Phi) z(q, eta) is the elastic map p + A (X + Phi eta).
    const Vec3 X(0.2, -0.1, 0.4);
    const MatX phi = test_modes(X);
    const Vec3 direct = affine_apply(s.head<12>(), X + phi * s.tail(2));
    const Vec3 via_z = reduced_point_basis(X, phi) * reduced_coordinates(s.head<12>(), s.tail(2));
    EXPECT_LT((direct - via_z).norm(), 1e-14);
}

TEST(ElasticEnergies, ReducedMassOfNoModesIsTheAffineMassOfThePoints) {
    // With m = 0, Psi^T M Psi is sum m_i J(X_i)^T J(X_i): total mass on p, first and second
    // moments on A.
    Vertices cube(8, 3);
    for (int i = 0; i < 8; ++i)
        cube.row(i) = (Vec3(i & 1, (i >> 1) & 1, (i >> 2) & 1) - Vec3(0.5, 0.5, 0.5)).transpose();
    Eigen::SparseMatrix<double> M8(24, 24);
    M8.setIdentity();
    MatX expected = MatX::Zero(12, 12);
    for (int i = 0; i < 8; ++i) {
        const auto J = affine_jacobian(cube.row(i).transpose());
        expected += J.transpose() * J;
    }
    EXPECT_LT((reduced_mass_matrix(cube, MatX(24, 0), M8) - expected).norm(), 1e-12);
    // Two points are too few to weigh every affine motion: refused.
    Vertices pts(2, 3);
    pts << 1, 0, 0, -1, 0, 0;
    Eigen::SparseMatrix<double> M(6, 6);
    M.setIdentity();
    EXPECT_THROW(reduced_mass_matrix(pts, MatX(6, 0), M), InputError);
}

TEST(ElasticEnergies, AffineModeIsRefused) {
    // A mode that is itself an affine field duplicates the frame: M_z is singular.
    const int g = 3;
    Vertices pts(g * g * g, 3);
    MatX phi(3 * g * g * g, 1);
    int k = 0;
    for (int i = 0; i < g; ++i)
        for (int j = 0; j < g; ++j)
            for (int l = 0; l < g; ++l, ++k) {
                const Vec3 X(i, j, l);
                pts.row(k) = X.transpose();
                phi.middleRows(3 * k, 3) = Vec3(X.y(), 0, 0);  // a shear: affine
            }
    Eigen::SparseMatrix<double> M(3 * k, 3 * k);
    M.setIdentity();
    EXPECT_THROW(reduced_mass_matrix(pts, phi, M), InputError);
}

TEST(ElasticEnergies, ReducedInertiaMatchesFiniteDifferences) {
    const AffineBody body = unit_box("e");
    const ModalPart part = make_modal_part(body);
    // Layout: an affine body 0 (12), the elastic body 1 (12), then body 1's 2 modes at 24.
    const ElasticDofs dofs{1, 24, 2};
    ReducedInertiaEnergy e({{dofs, part.reduced_mass}});
    std::mt19937 rng(5);
    std::normal_distribution<double> n(0.0, 0.2);
    for (int trial = 0; trial < 5; ++trial) {
        VecX q0(26), qt(26), q(26);
        for (int i = 0; i < 26; ++i) {
            q0[i] = n(rng);
            qt[i] = q0[i] + 0.3 * n(rng);
            q[i] = q0[i] + 0.3 * n(rng);
        }
        e.set_step(q0, qt);
        const VecX g = gradient_of(e, q);
        const VecX g_fd = fd_gradient([&](const VecX& x) { return e.value(x); }, q, 1e-6);
        EXPECT_LT(rel_err(g, g_fd), 1e-6);
        EXPECT_EQ(g.head<12>().norm(), 0.0);  // the affine body is not this energy's
        const MatX H = dense_hessian(e, q, false);
        const MatX H_fd = fd_jacobian([&](const VecX& x) { return gradient_of(e, x); }, q, 1e-6);
        EXPECT_LT(rel_err(H, H_fd), 1e-6);
        Eigen::SelfAdjointEigenSolver<MatX> eig(dense_hessian(e, q, true));
        EXPECT_GE(eig.eigenvalues().minCoeff(), -1e-9 * eig.eigenvalues().cwiseAbs().maxCoeff());
    }
}

TEST(ElasticEnergies, ReducedInertiaIsZeroOnThePrediction) {
    // At q = q~ in the z sense, i.e. when the body moves exactly as predicted, the energy and
    // its gradient vanish: for a pure translation with modes at rest, q~ itself.
    const AffineBody body = unit_box("e");
    const ModalPart part = make_modal_part(body);
    ReducedInertiaEnergy e({{ElasticDofs{0, 12, 2}, part.reduced_mass}});
    VecX q0(14), qt(14);
    q0 << affine_state(Vec3(0, 1, 0), Mat3::Identity()), 0.1, -0.2;
    qt = q0;
    qt.head<3>() += Vec3(0.01, -0.02, 0.03);
    e.set_step(q0, qt);
    EXPECT_NEAR(e.value(qt), 0.0, 1e-20);
    EXPECT_LT(gradient_of(e, qt).norm(), 1e-12);
}

TEST(ElasticEnergies, ModalElasticityMatchesFiniteDifferences) {
    const AffineBody body = unit_box("e");
    const ModalPart part = make_modal_part(body);
    ModalElasticityEnergy e({{ElasticDofs{0, 12, 2}, part.modal_stiffness, part.modal_damping}});
    VecX q0 = VecX::Zero(14), q = VecX::Zero(14);
    q0.tail(2) << 0.1, 0.2;
    q.tail(2) << -0.3, 0.5;
    e.set_step(q0, 0.01);
    const VecX g = gradient_of(e, q);
    const VecX g_fd = fd_gradient([&](const VecX& x) { return e.value(x); }, q, 1e-6);
    EXPECT_LT(rel_err(g, g_fd), 1e-8);
    const MatX H = dense_hessian(e, q, false);
    const MatX H_fd = fd_jacobian([&](const VecX& x) { return gradient_of(e, x); }, q, 1e-6);
    EXPECT_LT(rel_err(H, H_fd), 1e-8);
    // h^2 * 1/2 eta^T K eta + h/2 deta^T C deta
    const VecX eta = q.tail(2), d = eta - q0.tail(2);
    EXPECT_NEAR(e.value(q),
                0.5e-4 * eta.dot(part.modal_stiffness * eta) + 0.005 * d.dot(part.modal_damping * d),
                1e-15);
}

namespace {

// Two boxes, the upper one elastic, close enough for point-triangle, edge-edge and
// point-plane contacts.
struct ElasticContactFixture {
    std::vector<AffineBody> bodies;
    ContactSurface surface;
    std::vector<HalfSpace> planes{HalfSpace{Vec3(0, -0.6, 0), Vec3::UnitY()}};
    VecX q;
    double dhat = 0.05;

    ElasticContactFixture() {
        bodies.push_back(unit_box("a"));
        bodies.push_back(unit_box("b"));
        bodies[1].modal = make_modal_part(bodies[1]);
        surface = build_contact_surface(bodies);
        assign_surface_modes(surface, {&bodies[0], &bodies[1]}, {-1, 24});
        q.resize(26);
        const Mat3 R = Eigen::AngleAxisd(0.3, Vec3::UnitY()).toRotationMatrix() *
                       Eigen::AngleAxisd(0.01, Vec3::UnitX()).toRotationMatrix();
        // Small modal deformation; b's lowest vertices stay about 0.02 above a.
        q << affine_state(Vec3(0, -0.085, 0), Mat3::Identity()),
            affine_state(Vec3(0.1, 0.935, 0), R), 0.01, -0.005;
    }

    ContactSet contacts() const { return test::contacts_at(surface, q, planes, dhat); }
};

}  // namespace

TEST(ElasticEnergies, SurfacePositionsFollowTheElasticMap) {
    ElasticContactFixture f;
    const Vertices x = f.surface.positions(f.q);
    const int v = f.surface.body_vertex_begin[1] + 3;
    const Vec3 X = f.surface.rest.row(v).transpose();
    const Vec3 expected = affine_apply(f.q.segment<12>(12), X + test_modes(X) * f.q.tail(2));
    EXPECT_LT((Vec3(x.row(v).transpose()) - expected).norm(), 1e-14);
    EXPECT_LT((f.surface.position(f.q, v) - expected).norm(), 1e-14);
}

TEST(ElasticEnergies, BarrierGradientThroughModesMatchesFiniteDifferences) {
    ElasticContactFixture f;
    const ContactSet c = f.contacts();
    ASSERT_GT(c.point_triangle.size() + c.edge_edge.size(), 0u);
    BarrierEnergy e(f.surface, f.planes, {true, true}, f.dhat);
    e.set_contacts(&c);
    e.set_stiffness(10.0);
    const VecX g = gradient_of(e, f.q);
    const VecX g_fd = fd_gradient([&](const VecX& x) { return e.value(x); }, f.q, 1e-7);
    EXPECT_LT(rel_err(g, g_fd), 1e-5);
    EXPECT_GT(g.tail(2).norm(), 0.0);  // the contact pushes on the modes
    // Gauss-Newton Hessian: PSD after projection, and the exact Hessian where the dropped
    // term vanishes, i.e. on the affine body's own block.
    Eigen::SelfAdjointEigenSolver<MatX> eig(dense_hessian(e, f.q, true));
    EXPECT_GE(eig.eigenvalues().minCoeff(), -1e-8 * eig.eigenvalues().cwiseAbs().maxCoeff());
    const MatX H = dense_hessian(e, f.q, false);
    const MatX H_fd = fd_jacobian([&](const VecX& x) { return gradient_of(e, x); }, f.q, 1e-7);
    EXPECT_LT(rel_err(H.topLeftCorner<12, 12>(), H_fd.topLeftCorner<12, 12>()), 1e-4);
}

TEST(ElasticEnergies, FrictionGradientThroughModesMatchesFiniteDifferences) {
    ElasticContactFixture f;
    const ContactSet c = f.contacts();
    FrictionEnergy e(f.surface, {true, true});
    std::vector<double> lambda(c.size(), 2.0), mu(c.size(), 0.5);
    e.lag(c, f.planes, f.q, lambda, mu, f.q, 1e-3);
    VecX q = f.q;
    std::mt19937 rng(3);
    std::normal_distribution<double> n(0.0, 1e-3);
    for (int i = 0; i < 26; ++i) q[i] += n(rng);
    const VecX g = gradient_of(e, q);
    const VecX g_fd = fd_gradient([&](const VecX& x) { return e.value(x); }, q, 1e-8);
    EXPECT_LT(rel_err(g, g_fd), 1e-4);
    EXPECT_GT(g.tail(2).norm(), 0.0);
}

TEST(ElasticEnergies, ChordDeviationBoundsTheCurvedVertexPath) {
    // Property test: along q(t) = q0 + t (q1 - q0), every elastic vertex stays within the
    // bound of the chord between its end positions.
    ElasticContactFixture f;
    std::mt19937 rng(9);
    std::normal_distribution<double> n(0.0, 0.3);
    int tight = 0;
    for (int trial = 0; trial < 50; ++trial) {
        VecX q0 = f.q, q1 = f.q;
        for (int i = 12; i < 26; ++i) {
            q0[i] += n(rng);
            q1[i] += n(rng);
        }
        const VecX dev = f.surface.chord_deviation(q0, q1);
        const Vertices x0 = f.surface.positions(q0), x1 = f.surface.positions(q1);
        for (int s = 0; s <= 20; ++s) {
            const double t = s / 20.0;
            const Vertices xt = f.surface.positions(q0 + t * (q1 - q0));
            for (int v = 0; v < f.surface.num_vertices(); ++v) {
                const double off =
                    (xt.row(v) - ((1 - t) * x0.row(v) + t * x1.row(v))).norm();
                ASSERT_LE(off, dev[v] * (1 + 1e-12) + 1e-14) << "vertex " << v << " t " << t;
                if (s == 10 && off > 0.98 * dev[v] && dev[v] > 0) ++tight;
            }
        }
        // Affine vertices never stray.
        EXPECT_EQ(dev.head(f.surface.body_vertex_begin[1]).norm(), 0.0);
    }
    EXPECT_GT(tight, 0);  // the bound is attained at t = 1/2 (it is not a loose constant)
}
