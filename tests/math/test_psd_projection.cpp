#include <gtest/gtest.h>

#include <random>

#include "concord/math/psd_projection.hpp"

using namespace concord;

namespace {
template <int N>
Mat<N> random_symmetric(std::mt19937& rng, double scale = 1.0) {
    std::normal_distribution<double> n(0.0, scale);
    Mat<N> A;
    for (int i = 0; i < N; ++i)
        for (int j = 0; j <= i; ++j) A(i, j) = A(j, i) = n(rng);
    return A;
}
}  // namespace

TEST(PsdProjection, LeavesPsdMatrixUnchanged) {
    std::mt19937 rng(1);
    for (int trial = 0; trial < 50; ++trial) {
        const Mat<6> B = random_symmetric<6>(rng);
        const Mat<6> A = B * B.transpose();
        EXPECT_TRUE(project_to_psd<6>(A).isApprox(A, 1e-12));
    }
}

TEST(PsdProjection, ClampsNegativeEigenvaluesExactly) {
    // A = diag(3, -2, 1) in a rotated basis: the projection is diag(3, 0, 1) in the same basis.
    const Mat3 R = Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()).toRotationMatrix();
    const Mat3 A = R * Vec3(3, -2, 1).asDiagonal() * R.transpose();
    const Mat3 expected = R * Vec3(3, 0, 1).asDiagonal() * R.transpose();
    EXPECT_TRUE(project_to_psd<3>(A).isApprox(expected, 1e-12));
}

TEST(PsdProjection, ResultIsPsdSymmetricAndNearest) {
    std::mt19937 rng(2);
    for (int trial = 0; trial < 100; ++trial) {
        const Mat12 A = random_symmetric<12>(rng, 10.0);
        const Mat12 P = project_to_psd<12>(A);
        EXPECT_TRUE(P.isApprox(P.transpose(), 1e-12));
        EXPECT_TRUE(is_psd(P, 1e-10));
        // Nearest in Frobenius norm: no random PSD matrix is closer.
        for (int k = 0; k < 5; ++k) {
            const Mat12 B = random_symmetric<12>(rng);
            const Mat12 Q = P + 0.01 * B * B.transpose();
            EXPECT_LE((A - P).norm(), (A - Q).norm() + 1e-12);
        }
    }
}

TEST(PsdProjection, DynamicSizeMatchesFixedSize) {
    std::mt19937 rng(3);
    const Mat<9> A = random_symmetric<9>(rng);
    const MatX Ad = A;
    EXPECT_TRUE(project_to_psd(Ad).isApprox(MatX(project_to_psd<9>(A)), 1e-12));
    EXPECT_FALSE(is_psd(Ad) && A.eigenvalues().real().minCoeff() < -1e-6);
}
