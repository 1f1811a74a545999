#include "concord/solver/preconditioner.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

namespace concord {

namespace {

// SPD inverse of a symmetric block: its inverse when it is positive definite, otherwise the
// inverse of |B| = V |L| V^T (tiny eigenvalues floored), which keeps M SPD for MINRES and
// still scales each direction by the block's curvature magnitude.
MatX spd_block_inverse(const MatX& B) {
    Eigen::LLT<MatX> llt(B);
    if (llt.info() == Eigen::Success) return llt.solve(MatX::Identity(B.rows(), B.cols()));
    Eigen::SelfAdjointEigenSolver<MatX> eig(B);
    VecX lambda = eig.eigenvalues().cwiseAbs();
    const double largest = lambda.size() > 0 ? lambda.maxCoeff() : 0.0;
    const double floor = largest > 0 ? 1e-12 * largest : 1.0;
    for (Eigen::Index i = 0; i < lambda.size(); ++i) lambda[i] = 1.0 / std::max(lambda[i], floor);
    return eig.eigenvectors() * lambda.asDiagonal() * eig.eigenvectors().transpose();
}

}  // namespace

Preconditioner::Preconditioner(const SparseMatrix& A, PreconditionerType type, int block_size)
    : type_(type), block_size_(std::max(1, block_size)) {
    const Eigen::Index n = A.rows();
    switch (type_) {
        case PreconditionerType::None:
            break;
        case PreconditionerType::Jacobi: {
            inverse_diagonal_ = A.diagonal().cwiseAbs();
            for (Eigen::Index i = 0; i < n; ++i)
                inverse_diagonal_[i] = inverse_diagonal_[i] > 0 ? 1.0 / inverse_diagonal_[i] : 1.0;
            break;
        }
        case PreconditionerType::PerBody:
            build_blocks(A);
            break;
        case PreconditionerType::IncompleteCholesky: {
            ic_ = std::make_unique<IncompleteCholesky>();
            ic_->compute(A);
            if (ic_->info() != Eigen::Success) {
                ic_.reset();
                type_ = PreconditionerType::PerBody;
                build_blocks(A);
            }
            break;
        }
    }
}

Preconditioner::~Preconditioner() = default;

void Preconditioner::build_blocks(const SparseMatrix& A) {
    const int n = static_cast<int>(A.rows());
    const int bs = block_size_;
    const int num_blocks = (n + bs - 1) / bs;
    std::vector<MatX> blocks(static_cast<std::size_t>(num_blocks));
    for (int b = 0; b < num_blocks; ++b) {
        const int size = std::min(bs, n - b * bs);
        blocks[static_cast<std::size_t>(b)] = MatX::Zero(size, size);
    }
    for (int col = 0; col < A.outerSize(); ++col)
        for (SparseMatrix::InnerIterator it(A, col); it; ++it) {
            const int r = static_cast<int>(it.row()), c = static_cast<int>(it.col());
            if (r / bs == c / bs)
                blocks[static_cast<std::size_t>(r / bs)](r % bs, c % bs) = it.value();
        }
    inverse_blocks_.resize(blocks.size());
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        // Symmetrise: GMRES may hand over a nonsymmetric matrix.
        const MatX S = 0.5 * (blocks[b] + blocks[b].transpose());
        inverse_blocks_[b] = spd_block_inverse(S);
    }
}

void Preconditioner::apply(const VecX& r, VecX& z) const {
    switch (type_) {
        case PreconditionerType::None:
            z = r;
            return;
        case PreconditionerType::Jacobi:
            z = inverse_diagonal_.cwiseProduct(r);
            return;
        case PreconditionerType::PerBody: {
            z.resize(r.size());
            for (std::size_t k = 0; k < inverse_blocks_.size(); ++k) {
                const Eigen::Index o = static_cast<Eigen::Index>(k) * block_size_;
                const Eigen::Index s = inverse_blocks_[k].rows();
                z.segment(o, s).noalias() = inverse_blocks_[k] * r.segment(o, s);
            }
            return;
        }
        case PreconditionerType::IncompleteCholesky:
            z = ic_->solve(r);
            return;
    }
}

}  // namespace concord
