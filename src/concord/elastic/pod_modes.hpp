// Proper orthogonal decomposition: modes from exemplar displacement snapshots.
#pragma once

#include "concord/elastic/modal_basis.hpp"
#include "concord/math/types.hpp"

namespace concord {

/// Inputs of pod_modes. Snapshots are body-local displacements u (deformed minus rest
/// positions) of the sample points, one snapshot per column, point i at rows 3i..3i+2.
struct PodParams {
    Vertices points;     ///< n x 3 sample points (also the interpolation nodes)
    VecX point_masses;   ///< n lumped masses, each > 0
    MatX snapshots;      ///< 3n x s, s >= 1
    /// Modes kept; 0 = the fewest whose squared singular values reach energy_fraction of the
    /// total (after affine motion is removed).
    int num_modes = 0;
    double energy_fraction = 0.999;  ///< in (0, 1], used when num_modes == 0
    /// Modal stiffness, exactly one of these two (the modes are mass-normalised, so K_eta =
    /// diag(stiffness) = diag(omega^2)): per-mode stiffness k_k [1/s^2 for mass-normalised
    /// coordinates], or per-mode angular frequency omega_k [rad/s]. One entry per kept mode
    /// (with num_modes == 0: at least as many as kept, the first ones are used).
    VecX stiffness;
    VecX frequencies;
    int neighbours = 10;  ///< k of the node interpolation for points off the samples
};

/// POD basis:
///  1. remove rigid AND affine motion from every snapshot: u <- u - Q Q^T M u with Q an
///     M-orthonormal basis of the 12 affine fields c + G X at the points (affine_projection);
///  2. thin SVD of M^{1/2} U = W S V^T (M lumped, diagonal); the numerical rank counts singular
///     values above 1e-10 of max(largest, norm of the M^{1/2}-weighted raw snapshots);
///  3. Phi = M^{-1/2} W[:, :m], then mass-normalised with the full reduced mass matrix
///     (mass_normalise: Phi <- Phi (Phi^T M Phi)^{-1/2}, so Phi^T M Phi = I to rounding),
///     signs fixed (largest entry positive);
///  4. K_eta from the user's stiffness or frequencies, C_eta = 0 (add damping with
///     modal_damping.hpp).
/// The field interpolates the sample values (NodeInterpolation). Modes are named "pod_k".
/// Errors (InputError): sizes, non-finite values, masses <= 0, snapshots with no non-affine
/// content, num_modes above the rank, missing/ambiguous/negative stiffness.
/// singular_values, if given, receives all singular values of step 2 (descending).
[[nodiscard]] ModalBasis pod_modes(const PodParams& params, VecX* singular_values = nullptr);

}  // namespace concord
