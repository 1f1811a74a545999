// The consensus penalty rho of ADMM (paper Sec. 4.3): its initial value and its residual-driven
// per-body adaptation (Eq. 12), with the rescaling of the scaled dual that keeps the unscaled
// multiplier rho u unchanged when rho changes (Boyd et al. 2011, Sec. 3.4.1).
#pragma once

#include "concord/math/types.hpp"
#include "concord/scene/distributed_spec.hpp"

namespace concord {

/// rho^0 of a shared body: beta m_b (Mass), beta (Fixed) or beta lambda_max of its Hessian
/// block (Stiffness).
double initial_penalty(const DistributedSpec& spec, double mass, double hessian_lambda_max);

struct PenaltyUpdate {
    double rho;      ///< rho^{k+1}
    double u_scale;  ///< multiply the scaled dual u by this (1 unless rho changed and rescaling)
};

/// Eq. 12: rho tau when ||r_b|| > mu ||s_b||, rho / tau when ||s_b|| > mu ||r_b||, else rho;
/// clamped to [clamp_lo rho0, clamp_hi rho0]. Without spec.adapt, rho is kept. `s_norm` is
/// |z^{k+1} - z^k| of the body; AdaptRule::Normalized balances (rho / rho0) s_norm instead
/// (Boyd et al. 2011, Sec. 3.4.1), AdaptRule::Paper s_norm itself. With AdaptRule::Normalized a
/// body whose r_norm and s_norm are both below `agreed` (the stopping test's threshold, in the
/// same units) keeps its rho: its replicas already agree, and a change of rho there (with the
/// rescaled u) only moves z again. The paper's rule stays literal.
PenaltyUpdate adapt_penalty(const DistributedSpec& spec, double rho, double rho0, double r_norm,
                            double s_norm, double agreed = 0.0);

/// The changes of one replica's iterates between two iterations of the spectral rule
/// (AdaptRule::Spectral, Xu et al. 2017, in this solver's signs): the local objective's
/// gradient at the local solution, grad F_i(q) = -(rho u_prev + rho (q - z_prev)), against q;
/// and the negated multiplier -rho u against the consensus z.
struct SpectralHistory {
    VecX dq, dgrad;    ///< change of q and of grad F_i(q) (the body's coordinate block)
    VecX dz, dlambda;  ///< change of z and of -rho u
};

/// rho of the spectral rule: alpha and beta are hybrid Barzilai-Borwein curvatures of the
/// local objective (dgrad against dq) and of the consensus (dlambda against dz); rho becomes
/// sqrt(alpha beta) when both are trustworthy (correlation above 0.2), the one that is when
/// only one is, and stays otherwise; clamped to [clamp_lo rho0, clamp_hi rho0]. u_scale
/// rescales u as adapt_penalty does. Without spec.adapt, rho is kept.
PenaltyUpdate spectral_penalty(const DistributedSpec& spec, double rho, double rho0,
                               const SpectralHistory& h);

}  // namespace concord
