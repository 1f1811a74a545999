// Modes of a user finite-element (or any matrix) model: K phi = lambda M phi.
#pragma once

#include <Eigen/Sparse>

#include "concord/elastic/modal_basis.hpp"
#include "concord/math/types.hpp"

namespace concord {

/// A linear model over n nodes with 3 displacement DoFs each (node i at rows 3i..3i+2).
/// Dense matrices can be passed as M.sparseView().
struct FemParams {
    Vertices nodes;                         ///< n x 3 body-local node positions
    Eigen::SparseMatrix<double> mass;       ///< 3n x 3n, symmetric positive definite
    Eigen::SparseMatrix<double> stiffness;  ///< 3n x 3n, symmetric positive semidefinite
    Eigen::SparseMatrix<double> damping;    ///< optional: 0 x 0 for none, else 3n x 3n symmetric PSD
    int num_modes = 1;                      ///< m >= 1, lowest non-rigid modes kept
    /// true: the model is constrained (supports in K), so no eigenvalue may be rigid; a near-zero
    /// one is then an error instead of being skipped.
    bool constrained = false;
    /// An eigenvalue lambda <= rigid_tolerance * lambda_max is a rigid-body (zero-energy) mode and
    /// skipped (lambda_max the largest eigenvalue; rounding in a free model's rigid eigenvalues
    /// is ~1e-16 lambda_max, the lowest elastic ones are rarely below 1e-8 lambda_max).
    double rigid_tolerance = 1e-8;
    int neighbours = 10;  ///< k of the node interpolation to render/contact points
};

/// Dense generalised symmetric eigen solve (Eigen's GeneralizedSelfAdjointEigenSolver; cost
/// O((3n)^3); at most 3n = 6000 DoFs, larger models are rejected). Keeps the m lowest non-rigid
/// modes, mass-normalised with the full M (Phi^T M Phi = I to rounding), signs fixed (largest
/// entry positive); K_eta = diag(lambda), C_eta = Phi^T C Phi (symmetrised; zero without C). The
/// mass quadrature is the nodes with the user's M. Modes are named "fem_k". Errors (InputError):
/// sizes, non-finite entries, unsymmetric matrices, M not positive definite, K with a negative
/// eigenvalue (below -rigid_tolerance * lambda_max), m larger than the number of non-rigid
/// modes, a rigid mode in a constrained model, modes spanning an affine field.
[[nodiscard]] ModalBasis fem_modes(const FemParams& params);

}  // namespace concord
