// A basis from user-given mode values at points (no generator).
#pragma once

#include <string>
#include <vector>

#include "concord/elastic/modal_basis.hpp"
#include "concord/math/types.hpp"

namespace concord {

/// Inputs of sampled_modes. The modes are used as given (not re-normalised): the stiffness and
/// damping refer to the user's scaling of the modes, and modal_mass = Phi^T M Phi is computed in
/// full (not necessarily the identity or diagonal).
struct SampledParams {
    Vertices points;   ///< n x 3 body-local points (also the interpolation nodes)
    MatX mode_values;  ///< 3n x m, point i at rows 3i..3i+2
    /// Per-point lumped masses (n entries, > 0); when empty, total_mass is split equally.
    VecX point_masses;
    double total_mass = 0.0;
    /// m x m symmetric PSD modal stiffness, or an m x 1 column of its diagonal.
    MatX stiffness;
    /// Optional modal damping: empty for none, m x m symmetric PSD, or an m x 1 diagonal.
    MatX damping;
    /// Optional names (m entries); default "mode_k".
    std::vector<std::string> mode_names;
    int neighbours = 10;  ///< k of the node interpolation
};

/// Errors (InputError): sizes, non-finite values, masses <= 0 (or no total_mass), modes that are
/// linearly dependent or affine at the points, stiffness/damping not symmetric PSD.
[[nodiscard]] ModalBasis sampled_modes(const SampledParams& params);

}  // namespace concord
