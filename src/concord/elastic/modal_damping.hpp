// Modal damping matrices C_eta for a basis with modal mass M_eta and modal stiffness K_eta.
#pragma once

#include "concord/math/types.hpp"

namespace concord {

/// Rayleigh damping C = alpha M + beta K projected on the modes: C_eta = alpha M_eta + beta K_eta
/// (exact, since the projection Phi^T (.) Phi is linear). alpha [1/s], beta [s], both >= 0.
[[nodiscard]] MatX rayleigh_modal_damping(const MatX& modal_mass, const MatX& modal_stiffness,
                                          double alpha, double beta);

/// Per-mode damping ratios: C_eta = diag(2 zeta_k sqrt(k_kk m_kk)), which for mass-normalised
/// modes is diag(2 zeta_k omega_k). Exact when M_eta and K_eta are diagonal (every generator in
/// this module produces that); for coupled M_eta/K_eta it is the usual diagonal approximation.
/// zeta has one entry per mode, each >= 0.
[[nodiscard]] MatX ratio_modal_damping(const MatX& modal_mass, const MatX& modal_stiffness,
                                       const VecX& zeta);

}  // namespace concord
