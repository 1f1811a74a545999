#include "concord/math/translation_invariant_psd.hpp"

#include <array>
#include <cmath>

#include "concord/math/psd_projection.hpp"

namespace concord {

namespace {

// Orthonormal basis of the relative motions of M points in 3D: the Helmert basis of the
// vectors of R^M summing to zero (column j: j ones, then -j, over sqrt(j (j + 1))), one copy
// per coordinate axis.
template <int M>
Eigen::Matrix<double, 3 * M, 3 * (M - 1)> relative_motion_basis() {
    Eigen::Matrix<double, 3 * M, 3 * (M - 1)> Q = Eigen::Matrix<double, 3 * M, 3 * (M - 1)>::Zero();
    for (int j = 1; j < M; ++j) {
        const double s = 1.0 / std::sqrt(static_cast<double>(j * (j + 1)));
        for (int c = 0; c < 3; ++c) {
            for (int i = 0; i < j; ++i) Q(3 * i + c, 3 * (j - 1) + c) = s;
            Q(3 * j + c, 3 * (j - 1) + c) = -j * s;
        }
    }
    return Q;
}

// The largest entry of the block-row sums of G (G applied to the three unit translations).
template <int M>
double translation_residual(const Mat<3 * M>& G) {
    double r = 0.0;
    for (int i = 0; i < M; ++i) {
        Mat3 s = Mat3::Zero();
        for (int j = 0; j < M; ++j) s += G.template block<3, 3>(3 * i, 3 * j);
        r = std::max(r, s.cwiseAbs().maxCoeff());
    }
    return r;
}

// Projection of the involved block G (M points): in relative coordinates when G vanishes along
// the translations, by a full eigen decomposition otherwise.
template <int M>
Mat<3 * M> project_involved(const Mat<3 * M>& G, PsdPath& path) {
    if constexpr (M == 1) {
        path = PsdPath::Full;
        return project_to_psd<3>(G);
    } else {
        if (translation_residual<M>(G) > kTranslationTolerance * G.cwiseAbs().maxCoeff()) {
            path = PsdPath::Full;
            return project_to_psd<3 * M>(G);
        }
        static const Eigen::Matrix<double, 3 * M, 3 * (M - 1)> Q = relative_motion_basis<M>();
        const Mat<3 * (M - 1)> reduced = Q.transpose() * G * Q;
        Eigen::SelfAdjointEigenSolver<Mat<3 * (M - 1)>> eig(reduced);
        const Vec<3 * (M - 1)> clamped = eig.eigenvalues().cwiseMax(0.0);
        const Eigen::Matrix<double, 3 * M, 3 * (M - 1)> V = Q * eig.eigenvectors();
        path = PsdPath::Reduced;
        return V * clamped.asDiagonal() * V.transpose();
    }
}

// Gathers the rows and columns of the M involved points, projects, scatters back.
template <int M, int K>
Mat<3 * K> project_points(const Mat<3 * K>& A, const std::array<int, K>& involved, PsdPath& path) {
    Mat<3 * M> G;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < M; ++j)
            G.template block<3, 3>(3 * i, 3 * j) =
                A.template block<3, 3>(3 * involved[i], 3 * involved[j]);
    const Mat<3 * M> P = project_involved<M>(G, path);
    Mat<3 * K> R = Mat<3 * K>::Zero();
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < M; ++j)
            R.template block<3, 3>(3 * involved[i], 3 * involved[j]) =
                P.template block<3, 3>(3 * i, 3 * j);
    return R;
}

}  // namespace

template <int K>
Mat<3 * K> project_translation_invariant_to_psd(const Mat<3 * K>& A, PsdPath* path) {
    PsdPath taken = PsdPath::Full;
    Mat<3 * K> R;
    if (!A.allFinite()) {
        R = project_to_psd<3 * K>(A);  // propagates the NaN as the full projection does
    } else {
        std::array<int, K> involved{};
        int m = 0;
        for (int k = 0; k < K; ++k) {
            const bool row = (A.template middleRows<3>(3 * k).array() != 0.0).any();
            const bool col = (A.template middleCols<3>(3 * k).array() != 0.0).any();
            if (row || col) involved[static_cast<std::size_t>(m++)] = k;
        }
        switch (m) {
            case 0:
                taken = PsdPath::Zero;
                R = A;
                break;
            case 1:
                R = project_points<1, K>(A, involved, taken);
                break;
            case 2:
                R = project_points<2, K>(A, involved, taken);
                break;
            case 3:
                if constexpr (K >= 3) R = project_points<3, K>(A, involved, taken);
                else R = project_to_psd<3 * K>(A);  // unreachable: m <= K
                break;
            default:
                if constexpr (K >= 4) R = project_points<4, K>(A, involved, taken);
                else R = project_to_psd<3 * K>(A);  // unreachable: m <= K
                break;
        }
    }
    if (path) *path = taken;
    return R;
}

template Mat<6> project_translation_invariant_to_psd<2>(const Mat<6>&, PsdPath*);
template Mat<9> project_translation_invariant_to_psd<3>(const Mat<9>&, PsdPath*);
template Mat<12> project_translation_invariant_to_psd<4>(const Mat<12>&, PsdPath*);

}  // namespace concord
