#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "concord/elastic/fem_modes.hpp"
#include "concord/math/error.hpp"

using namespace concord;

namespace {

// n equal masses mass on a line (spacing 0.1 along x), springs k between neighbours in all
// three directions (K = K1 (x) I3), and to walls at both ends when `walls`.
FemParams chain(int n, double mass, double k, bool walls) {
    FemParams p;
    p.nodes = Vertices::Zero(n, 3);
    for (int i = 0; i < n; ++i) p.nodes(i, 0) = 0.1 * i;
    MatX K1 = MatX::Zero(n, n);
    for (int i = 0; i + 1 < n; ++i) {
        K1(i, i) += k;
        K1(i + 1, i + 1) += k;
        K1(i, i + 1) -= k;
        K1(i + 1, i) -= k;
    }
    if (walls) {
        K1(0, 0) += k;
        K1(n - 1, n - 1) += k;
    }
    MatX K = MatX::Zero(3 * n, 3 * n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) K.block<3, 3>(3 * i, 3 * j) = K1(i, j) * Mat3::Identity();
    p.stiffness = K.sparseView();
    p.mass = MatX(mass * MatX::Identity(3 * n, 3 * n)).sparseView();
    return p;
}

}  // namespace

TEST(FemModes, FixedChainEigenvaluesMatchAnalytic) {
    // Fixed-fixed chain: lambda_j = 2k/m (1 - cos(j pi / (n+1))), each once per direction.
    const int n = 8;
    const double m = 0.5, k = 200.0;
    FemParams p = chain(n, m, k, true);
    p.constrained = true;
    p.num_modes = 6;
    const ModalBasis b = fem_modes(p);
    for (int i = 0; i < 6; ++i) {
        const int j = 1 + i / 3;
        const double lambda = 2 * k / m * (1 - std::cos(j * std::numbers::pi / (n + 1)));
        EXPECT_NEAR(b.modal_stiffness(i, i) / lambda, 1.0, 1e-12) << i;
    }
    EXPECT_LT((b.modal_mass - MatX::Identity(6, 6)).cwiseAbs().maxCoeff(), 1e-12);
    // Mode values satisfy K phi = lambda M phi.
    const MatX K(p.stiffness), M(p.mass);
    for (int i = 0; i < 6; ++i)
        EXPECT_LT((K * b.mass.phi.col(i) - b.modal_stiffness(i, i) * M * b.mass.phi.col(i)).norm(), 1e-9 * k);
    EXPECT_TRUE(b.modal_damping.isZero(0.0));
    // Interpolated field is exact at the nodes.
    EXPECT_TRUE(b.sample(p.nodes).isApprox(b.mass.phi, 1e-14));
}

TEST(FemModes, FreeChainSkipsRigidModes) {
    // Free-free chain: lambda_j = 2k/m (1 - cos(j pi / n)), j = 0 (rigid, one per direction).
    const int n = 6;
    const double m = 2.0, k = 50.0;
    FemParams p = chain(n, m, k, false);
    p.num_modes = 3;
    const ModalBasis b = fem_modes(p);
    const double lambda1 = 2 * k / m * (1 - std::cos(std::numbers::pi / n));
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(b.modal_stiffness(i, i) / lambda1, 1.0, 1e-12);
    p.constrained = true;
    EXPECT_THROW((void)fem_modes(p), InputError);  // 3 rigid modes in a "constrained" model
    p.constrained = false;
    // All 3n - 3 non-rigid modes exist, but together they span the affine fields u = c + g x of
    // the collinear nodes (the frame's job), so the basis is rejected.
    p.num_modes = 3 * n - 3;
    EXPECT_THROW((void)fem_modes(p), InputError);
    p.num_modes = 3 * n;  // more than the 3n - 3 non-rigid modes
    EXPECT_THROW((void)fem_modes(p), InputError);
}

TEST(FemModes, RayleighDampingProjects) {
    // C = a M + b K projects to C_eta = a I + b diag(lambda) for mass-normalised modes.
    FemParams p = chain(7, 1.5, 80.0, true);
    p.constrained = true;
    p.num_modes = 4;
    const double a = 0.3, bb = 0.002;
    p.damping = a * p.mass + bb * p.stiffness;
    const ModalBasis b = fem_modes(p);
    const MatX expected = a * MatX::Identity(4, 4) + bb * b.modal_stiffness;
    EXPECT_LT((b.modal_damping - expected).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(FemModes, BadInputThrows) {
    FemParams good = chain(5, 1.0, 10.0, true);
    good.num_modes = 2;
    EXPECT_NO_THROW((void)fem_modes(good));
    FemParams p = good;
    p.mass.coeffRef(4, 4) = 0.0;  // singular M
    EXPECT_THROW((void)fem_modes(p), InputError);
    p = good;
    p.mass.coeffRef(4, 4) = -1.0;  // indefinite M
    EXPECT_THROW((void)fem_modes(p), InputError);
    p = good;
    p.stiffness.coeffRef(0, 3) += 1.0;  // unsymmetric K
    EXPECT_THROW((void)fem_modes(p), InputError);
    p = good;
    p.stiffness.coeffRef(0, 0) = -50.0;  // indefinite K
    EXPECT_THROW((void)fem_modes(p), InputError);
    p = good;
    p.stiffness.coeffRef(1, 1) = std::nan("");
    EXPECT_THROW((void)fem_modes(p), InputError);
    p = good;
    p.nodes = Vertices::Zero(4, 3);  // wrong size for 15 x 15 matrices
    EXPECT_THROW((void)fem_modes(p), InputError);
    p = good;
    p.num_modes = 16;
    EXPECT_THROW((void)fem_modes(p), InputError);
    p = good;
    p.num_modes = 0;
    EXPECT_THROW((void)fem_modes(p), InputError);
    p = good;
    p.damping = Eigen::SparseMatrix<double>(3, 3);
    EXPECT_THROW((void)fem_modes(p), InputError);
}
