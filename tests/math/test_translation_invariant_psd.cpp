// project_translation_invariant_to_psd against the exact eigen-clamped projection
// (project_to_psd) on synthetic Hessians of translation-invariant functions: random spectra,
// near-degenerate ones (tiny, repeated and sign-changing eigenvalues, scales from 1e-8 to 1e8),
// subsets of involved points, inputs that are not translation-invariant, and non-finite ones.
// The real barrier Hessians are checked in tests/barrier/test_barrier_psd_projection.cpp.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cstring>
#include <random>

#include "concord/math/psd_projection.hpp"
#include "concord/math/translation_invariant_psd.hpp"

using namespace concord;

namespace {

// Smallest eigenvalue of a symmetric matrix.
template <int N>
double min_eigenvalue(const Mat<N>& A) {
    return Eigen::SelfAdjointEigenSolver<Mat<N>>(A, Eigen::EigenvaluesOnly).eigenvalues()[0];
}

// A symmetric matrix over K points that vanishes along the translations and outside the points
// in `involved`: B^T S B with B the relative coordinates (x_i - x_mean) of the involved points
// and S a random symmetric matrix whose eigenvalues are `spectrum` (3 per point; those along
// the mean are dropped by B).
template <int K>
Mat<3 * K> invariant_matrix(const std::vector<int>& involved, const std::vector<double>& spectrum,
                            std::mt19937& rng) {
    const int m = static_cast<int>(involved.size());
    std::normal_distribution<double> n(0.0, 1.0);
    MatX R(3 * m, 3 * m);
    for (int i = 0; i < 3 * m; ++i)
        for (int j = 0; j < 3 * m; ++j) R(i, j) = n(rng);
    const MatX U = Eigen::HouseholderQR<MatX>(R).householderQ();
    VecX lambda(3 * m);
    for (int i = 0; i < 3 * m; ++i) lambda[i] = spectrum[static_cast<std::size_t>(i) % spectrum.size()];
    const MatX S = U * lambda.asDiagonal() * U.transpose();
    // Centring: x_i - mean over the involved points, per coordinate.
    MatX C = MatX::Identity(3 * m, 3 * m);
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j) C.block(3 * i, 3 * j, 3, 3) -= Mat3::Identity() / m;
    const MatX G = C * S * C;
    Mat<3 * K> A = Mat<3 * K>::Zero();
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j)
            A.template block<3, 3>(3 * involved[static_cast<std::size_t>(i)],
                                   3 * involved[static_cast<std::size_t>(j)]) =
                G.block(3 * i, 3 * j, 3, 3);
    return 0.5 * (A + A.transpose());
}

const std::vector<std::vector<double>>& spectra() {
    static const std::vector<std::vector<double>> s = {
        {3.0, -2.0, 1.0, -0.5, 0.25, 7.0},      // ordinary indefinite
        {1.0, 2.0, 3.0},                        // already PSD
        {-1.0, -2.0, -3.0},                     // negative semi-definite: projects to 0
        {1.0, -1e-12, 1e-12, 0.0},              // eigenvalues at round-off around 0
        {1e8, -1e-8, 1.0, -1e4},                // 16 orders of magnitude
        {2.0, 2.0, 2.0, -2.0, -2.0, -2.0},      // repeated eigenvalues of both signs
        {1e-8, -3e-8, 2e-8},                    // tiny matrix
    };
    return s;
}

template <int K>
void check_against_exact(std::mt19937& rng) {
    for (int trial = 0; trial < 200; ++trial) {
        std::vector<int> involved;
        for (int k = 0; k < K; ++k)
            if ((trial >> k) & 1 || trial % 3 == 0) involved.push_back(k);
        if (involved.size() < 2) involved = {0, K - 1};
        const auto& spectrum = spectra()[static_cast<std::size_t>(trial) % spectra().size()];
        const Mat<3 * K> A = invariant_matrix<K>(involved, spectrum, rng);
        PsdPath path;
        const Mat<3 * K> R = project_translation_invariant_to_psd<K>(A, &path);
        const Mat<3 * K> P = project_to_psd<3 * K>(A);
        SCOPED_TRACE(testing::Message() << "K " << K << ", trial " << trial << ", points "
                                        << involved.size());
        EXPECT_EQ(path, PsdPath::Reduced);
        const double scale = A.norm();
        // Equal to the exact projection to round-off: here A = P A P, so the bound of the
        // header is round-off alone (a few eps times the condition of the largest eigenvalue).
        EXPECT_LE((R - P).norm(), 1e-12 * scale);
        EXPECT_LE((R - R.transpose()).norm(), 1e-14 * scale);
        EXPECT_GE(min_eigenvalue<3 * K>(R), -1e-13 * scale);
        // Rows of points that are not involved stay exactly zero.
        for (int k = 0; k < K; ++k) {
            if (std::find(involved.begin(), involved.end(), k) == involved.end()) {
                EXPECT_TRUE((R.template middleRows<3>(3 * k).array() == 0.0).all());
            }
        }
        // And the result still vanishes along the translations.
        for (int c = 0; c < 3; ++c) {
            Vec<3 * K> t = Vec<3 * K>::Zero();
            for (int i : involved) t[3 * i + c] = 1.0;
            EXPECT_LE((R * t).norm(), 1e-13 * scale);
        }
    }
}

}  // namespace

TEST(TranslationInvariantPsd, MatchesExactProjectionOnInvariantMatrices) {
    std::mt19937 rng(11);
    check_against_exact<2>(rng);
    check_against_exact<3>(rng);
    check_against_exact<4>(rng);
}

TEST(TranslationInvariantPsd, PointPointCaseInClosedForm) {
    // b(|p - q|^2) near contact: H = [K -K; -K K], K = 4 b'' u u^T + 2 b' I. Its eigenvalues are
    // 2 (4 b'' d + 2 b') along u and 2 (2 b') (twice) across u, so the projection keeps
    // max(0, 2 (4 b'' d + 2 b')) u u^T / d, stacked as [1 -1; -1 1].
    const Vec3 u(0.3, -0.4, 1.2);
    const double d = u.squaredNorm(), b1 = -5.0, b2 = 40.0;
    const Mat3 Kb = 4.0 * b2 * u * u.transpose() + 2.0 * b1 * Mat3::Identity();
    Mat6 H;
    H << Kb, -Kb, -Kb, Kb;
    const double along = 2.0 * (4.0 * b2 * d + 2.0 * b1);
    ASSERT_GT(along, 0.0);
    const Mat3 keep = 0.5 * along * u * u.transpose() / d;
    Mat6 expected;
    expected << keep, -keep, -keep, keep;
    PsdPath path;
    const Mat6 R = project_translation_invariant_to_psd<2>(H, &path);
    EXPECT_EQ(path, PsdPath::Reduced);
    EXPECT_LE((R - expected).norm(), 1e-13 * H.norm());
}

TEST(TranslationInvariantPsd, NotInvariantFallsBackToTheExactProjection) {
    std::mt19937 rng(5);
    std::normal_distribution<double> n(0.0, 1.0);
    for (int trial = 0; trial < 50; ++trial) {
        Mat12 A;
        for (int i = 0; i < 12; ++i)
            for (int j = 0; j <= i; ++j) A(i, j) = A(j, i) = n(rng);
        PsdPath path;
        const Mat12 R = project_translation_invariant_to_psd<4>(A, &path);
        EXPECT_EQ(path, PsdPath::Full);
        // All four points are involved, so the full path is project_to_psd itself, bit for bit.
        const Mat12 P = project_to_psd<12>(A);
        EXPECT_EQ(std::memcmp(R.data(), P.data(), sizeof(double) * 144), 0);
    }
    // One involved point (e.g. a lone vertex block) is never translation-invariant.
    Mat6 B = Mat6::Zero();
    B.topLeftCorner<3, 3>() = Vec3(1.0, -2.0, 3.0).asDiagonal();
    PsdPath path;
    const Mat6 R = project_translation_invariant_to_psd<2>(B, &path);
    EXPECT_EQ(path, PsdPath::Full);
    const Mat3 expected = Vec3(1.0, 0.0, 3.0).asDiagonal();
    EXPECT_TRUE(Mat3(R.block(0, 0, 3, 3)).isApprox(expected, 1e-15));
    EXPECT_TRUE((R.bottomRows<3>().array() == 0.0).all());
}

TEST(TranslationInvariantPsd, SlightlyNotInvariantStaysWithinTheStatedBound) {
    // A translation residual below the tolerance takes the reduced path; the distance to the
    // exact projection is then at most ||A - P A P||_F (P: projector onto relative motions).
    std::mt19937 rng(9);
    std::normal_distribution<double> n(0.0, 1.0);
    Mat12 Pi = Mat12::Identity();
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) Pi.block<3, 3>(3 * i, 3 * j) -= Mat3::Identity() / 4.0;
    for (int trial = 0; trial < 100; ++trial) {
        const Mat12 A0 = invariant_matrix<4>({0, 1, 2, 3}, spectra()[0], rng);
        Mat12 E;
        for (int i = 0; i < 12; ++i)
            for (int j = 0; j <= i; ++j) E(i, j) = E(j, i) = n(rng);
        const double size = (trial % 2 ? 1e-11 : 1e-13) * A0.cwiseAbs().maxCoeff();
        const Mat12 A = A0 + size * E;
        PsdPath path;
        const Mat12 R = project_translation_invariant_to_psd<4>(A, &path);
        ASSERT_EQ(path, PsdPath::Reduced);
        const double bound = (A - Pi * A * Pi).norm();
        EXPECT_LE((R - project_to_psd<12>(A)).norm(), bound + 1e-13 * A.norm());
        EXPECT_GE(min_eigenvalue<12>(R), -1e-13 * A.norm());
    }
}

TEST(TranslationInvariantPsd, ZeroAndNonFiniteInputs) {
    PsdPath path;
    EXPECT_TRUE(project_translation_invariant_to_psd<4>(Mat12::Zero(), &path).isZero(0.0));
    EXPECT_EQ(path, PsdPath::Zero);
    Mat9 A = Mat9::Identity();
    A(4, 4) = std::numeric_limits<double>::quiet_NaN();
    EXPECT_FALSE(project_translation_invariant_to_psd<3>(A, &path).allFinite());
}
