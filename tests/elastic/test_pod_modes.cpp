#include <gtest/gtest.h>

#include <cmath>

#include "concord/elastic/affine_projection.hpp"
#include "concord/elastic/pod_modes.hpp"
#include "concord/math/error.hpp"

using namespace concord;

namespace {

// A 5 x 4 x 3 grid of points in a 1 x 0.6 x 0.4 box with unequal masses.
PodParams grid_params() {
    PodParams p;
    const int nx = 5, ny = 4, nz = 3, n = nx * ny * nz;
    p.points.resize(n, 3);
    p.point_masses.resize(n);
    int i = 0;
    for (int a = 0; a < nx; ++a)
        for (int b = 0; b < ny; ++b)
            for (int c = 0; c < nz; ++c, ++i) {
                p.points.row(i) << 0.25 * a, 0.2 * b, 0.2 * c;
                p.point_masses(i) = 0.5 + 0.1 * ((a + 2 * b + 3 * c) % 5);
            }
    return p;
}

// A non-affine displacement field and an affine one at the points.
VecX bending_field(const Vertices& P) {
    VecX u(3 * P.rows());
    for (Eigen::Index i = 0; i < P.rows(); ++i) u.segment<3>(3 * i) << -P(i, 1) * P(i, 0), 0.5 * P(i, 0) * P(i, 0), 0.0;
    return u;
}
VecX twist_field(const Vertices& P) {
    VecX u(3 * P.rows());
    for (Eigen::Index i = 0; i < P.rows(); ++i) u.segment<3>(3 * i) << 0.0, -P(i, 2) * P(i, 0), P(i, 1) * P(i, 0);
    return u;
}
VecX affine_field(const Vertices& P, double s) {
    Mat3 G;
    G << 0.1, -0.3, 0.2, 0.3, 0.05, -0.1, -0.2, 0.1, -0.07;
    VecX u(3 * P.rows());
    for (Eigen::Index i = 0; i < P.rows(); ++i) u.segment<3>(3 * i) = s * (Vec3(0.1, -0.2, 0.3) + G * P.row(i).transpose());
    return u;
}

}  // namespace

TEST(PodModes, RankOneExemplarReproducedExactly) {
    PodParams p = grid_params();
    const VecX u = bending_field(p.points);
    p.snapshots.resize(u.size(), 3);
    p.snapshots.col(0) = 0.3 * u + affine_field(p.points, 1.0);
    p.snapshots.col(1) = -1.2 * u + affine_field(p.points, -2.0);
    p.snapshots.col(2) = 0.7 * u;
    p.stiffness = VecX::Constant(1, 400.0);
    VecX sigma;
    const ModalBasis b = pod_modes(p, &sigma);  // energy fraction picks m = 1
    ASSERT_EQ(b.num_modes, 1);
    EXPECT_LT(sigma(1), 1e-12 * sigma(0));
    EXPECT_NEAR(b.modal_mass(0, 0), 1.0, 1e-12);
    EXPECT_EQ(b.modal_stiffness(0, 0), 400.0);
    // Every snapshot minus its affine part is Phi eta exactly (eta = Phi^T M s).
    const MatX E = remove_affine_motion(p.points, b.mass.mass, p.snapshots);
    const MatX eta = b.mass.phi.transpose() * (b.mass.mass * E);
    EXPECT_LT((b.mass.phi * eta - E).cwiseAbs().maxCoeff(), 1e-12 * E.cwiseAbs().maxCoeff());
    // The mode itself is M-orthogonal to the affine fields.
    const MatX Q = mass_orthonormal_affine_fields(p.points, b.mass.mass);
    EXPECT_LT((Q.transpose() * (b.mass.mass * b.mass.phi)).cwiseAbs().maxCoeff(), 1e-12);
    // The field interpolates the samples exactly at the sample points.
    EXPECT_TRUE(b.sample(p.points).isApprox(b.mass.phi, 1e-14));
}

TEST(PodModes, AffineSnapshotsProjectToNothing) {
    PodParams p = grid_params();
    p.snapshots.resize(3 * p.points.rows(), 2);
    p.snapshots.col(0) = affine_field(p.points, 1.0);
    p.snapshots.col(1) = affine_field(p.points, -3.0) + VecX::Constant(p.snapshots.rows(), 0.2);
    const MatX E = remove_affine_motion(p.points, lumped_mass_matrix(p.point_masses), p.snapshots);
    EXPECT_LT(E.cwiseAbs().maxCoeff(), 1e-14);
    p.stiffness = VecX::Constant(1, 1.0);
    EXPECT_THROW((void)pod_modes(p), InputError);
}

TEST(PodModes, MassNormalisedWithFullReducedMass) {
    PodParams p = grid_params();
    const VecX u = bending_field(p.points), v = twist_field(p.points);
    p.snapshots.resize(u.size(), 4);
    p.snapshots.col(0) = u;
    p.snapshots.col(1) = v + 0.3 * u;
    p.snapshots.col(2) = u.cwiseProduct(u) * 0.5;  // a third, nonlinear shape
    p.snapshots.col(3) = v - affine_field(p.points, 0.5);
    p.num_modes = 3;
    p.frequencies = Eigen::Vector3d(10.0, 20.0, 30.0);
    const ModalBasis b = pod_modes(p);
    const MatX G = b.mass.phi.transpose() * (b.mass.mass * b.mass.phi);
    EXPECT_LT((G - MatX::Identity(3, 3)).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_LT((b.modal_mass - MatX::Identity(3, 3)).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_NEAR(b.modal_stiffness(1, 1), 400.0, 1e-12);
    EXPECT_EQ(b.mode_names[2], "pod_3");
    // Deterministic signs: the largest entry of each mode is positive.
    for (int k = 0; k < 3; ++k) {
        Eigen::Index imax;
        b.mass.phi.col(k).cwiseAbs().maxCoeff(&imax);
        EXPECT_GT(b.mass.phi(imax, k), 0.0);
    }
}

TEST(PodModes, BadInputThrows) {
    PodParams p = grid_params();
    const VecX u = bending_field(p.points);
    p.snapshots = u;
    p.stiffness = VecX::Constant(1, 1.0);
    EXPECT_NO_THROW((void)pod_modes(p));
    PodParams q = p;
    q.num_modes = 2;  // rank 1
    q.stiffness = VecX::Constant(2, 1.0);
    EXPECT_THROW((void)pod_modes(q), InputError);
    q = p;
    q.snapshots(4, 0) = std::nan("");
    EXPECT_THROW((void)pod_modes(q), InputError);
    q = p;
    q.point_masses(3) = 0.0;
    EXPECT_THROW((void)pod_modes(q), InputError);
    q = p;
    q.snapshots = MatX::Ones(7, 1);
    EXPECT_THROW((void)pod_modes(q), InputError);
    q = p;
    q.frequencies = VecX::Constant(1, 2.0);  // both given
    EXPECT_THROW((void)pod_modes(q), InputError);
    q = p;
    q.stiffness = VecX();  // neither
    EXPECT_THROW((void)pod_modes(q), InputError);
    q = p;
    q.stiffness = VecX::Constant(1, -1.0);
    EXPECT_THROW((void)pod_modes(q), InputError);
}
