#include "concord/energy/orthogonality_energy.hpp"

#include "concord/body/affine_body.hpp"
#include "concord/energy/deterministic_parallel.hpp"
#include "concord/math/psd_projection.hpp"

namespace concord {

double orthogonality_potential(const Mat3& A) {
    return (A * A.transpose() - Mat3::Identity()).squaredNorm();
}

Vec9 orthogonality_gradient(const Mat3& A) {
    // d/dA ||A A^T - I||^2 = 4 (A A^T - I) A
    const Mat3 G = 4.0 * (A * A.transpose() - Mat3::Identity()) * A;
    Vec9 g;
    g << G(0, 0), G(0, 1), G(0, 2), G(1, 0), G(1, 1), G(1, 2), G(2, 0), G(2, 1), G(2, 2);
    return g;
}

Mat9 orthogonality_hessian(const Mat3& A) {
    // Second variation: 4 < (dA A^T + A dA^T) A + (A A^T - I) dA, dA >. With vec(A) row-major
    // (index 3i + j), the coefficient of dA_ij dA_lk is S_il d_jk + d_il B_kj + A_ik A_lj,
    // S = A A^T - I, B = A^T A.
    const Mat3 S = A * A.transpose() - Mat3::Identity();
    const Mat3 B = A.transpose() * A;
    Mat9 H;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            for (int l = 0; l < 3; ++l)
                for (int k = 0; k < 3; ++k) {
                    double h = A(i, k) * A(l, j);
                    if (j == k) h += S(i, l);
                    if (i == l) h += B(k, j);
                    H(3 * i + j, 3 * l + k) = 4.0 * h;
                }
    return H;
}

double OrthogonalityEnergy::value(const VecX& q) const {
    double e = 0.0;
    for (std::size_t b = 0; b < weights_.size(); ++b) {
        if (weights_[b] == 0.0) continue;
        e += weights_[b] * orthogonality_potential(affine_matrix(q.segment<12>(12 * b)));
    }
    return e;
}

void OrthogonalityEnergy::add_gradient(const VecX& q, VecX& g) const {
    for (std::size_t b = 0; b < weights_.size(); ++b) {
        if (weights_[b] == 0.0) continue;
        g.segment<9>(12 * b + 3) +=
            weights_[b] * orthogonality_gradient(affine_matrix(q.segment<12>(12 * b)));
    }
}

void OrthogonalityEnergy::add_hessian(const VecX& q, HessianBlocks& H, bool project_psd) const {
    add_blocks_in_chunks(weights_.size(), H, [&](std::size_t b, HessianBlocks& out) {
        if (weights_[b] == 0.0) return;
        Mat9 h = weights_[b] * orthogonality_hessian(affine_matrix(q.segment<12>(12 * b)));
        if (project_psd) h = project_to_psd<9>(h);
        const int o = 12 * static_cast<int>(b) + 3;
        out.add(o, o, h);
    });
}

}  // namespace concord
