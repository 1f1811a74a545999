// The consensus penalty rho of ADMM (paper Sec. 4.3): its initial value and its residual-driven
// per-body adaptation (Eq. 12), with the rescaling of the scaled dual that keeps the unscaled
// multiplier rho u unchanged when rho changes (Boyd et al. 2011, Sec. 3.4.1).
#pragma once

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
/// clamped to [clamp_lo rho0, clamp_hi rho0]. Without spec.adapt, rho is kept.
PenaltyUpdate adapt_penalty(const DistributedSpec& spec, double rho, double rho0, double r_norm,
                            double s_norm);

}  // namespace concord
