// Mass normalisation and sign convention of mode sets sampled at points.
#pragma once

#include <Eigen/Sparse>
#include <string>

#include "concord/math/types.hpp"

namespace concord {

/// Returns phi G^{-1/2} with G = phi^T M phi the FULL reduced mass matrix (symmetric, Loewdin
/// orthonormalisation): the result has phi^T M phi = I and, among all M-orthonormal bases of the
/// same span, is the closest to the input (so already-orthogonal modes are only rescaled).
/// Throws InputError ("<context>: ...") when G is not positive definite (dependent or massless
/// modes: smallest eigenvalue <= 1e-12 of the largest).
[[nodiscard]] MatX mass_normalise(const MatX& phi, const Eigen::SparseMatrix<double>& mass,
                                  const std::string& context);

/// Flips each column so that its entry of largest magnitude (the first one on ties) is
/// positive: a deterministic sign for SVD / eigen-solver output.
void fix_mode_signs(MatX& phi);

}  // namespace concord
