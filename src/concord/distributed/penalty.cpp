#include "concord/distributed/penalty.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace concord {

double initial_penalty(const DistributedSpec& spec, double mass, double hessian_lambda_max) {
    switch (spec.penalty) {
        case PenaltyRule::Mass:
            return spec.beta * mass;
        case PenaltyRule::Fixed:
            return spec.beta;
        case PenaltyRule::Stiffness:
            return spec.beta * hessian_lambda_max;
    }
    return spec.beta * mass;
}

PenaltyUpdate adapt_penalty(const DistributedSpec& spec, double rho, double rho0, double r_norm,
                            double s_norm, double agreed) {
    if (!spec.adapt) return {rho, 1.0};
    if (spec.adapt_rule == AdaptRule::Normalized && r_norm < agreed && s_norm < agreed)
        return {rho, 1.0};
    // The dual residual the rule balances: Eq. 10's |dz| itself (paper), or scaled by rho
    // relative to its start (Boyd's s = rho dz, per body), so that lowering rho lowers it.
    const double s = spec.adapt_rule == AdaptRule::Normalized ? (rho / rho0) * s_norm : s_norm;
    double next = rho;
    if (r_norm > spec.mu * s) {
        next = rho * spec.tau;
    } else if (s > spec.mu * r_norm) {
        next = rho / spec.tau;
    }
    next = std::clamp(next, spec.clamp[0] * rho0, spec.clamp[1] * rho0);
    const double scale = spec.rescale_dual && next != rho ? rho / next : 1.0;
    return {next, scale};
}

namespace {

// One hybrid spectral curvature estimate (Xu et al. 2017, Eq. 19-20) from the change dx of a
// variable and dg of the gradient it produces; nullopt when the two are not correlated enough
// for the estimate to mean anything.
std::optional<double> spectral_curvature(const VecX& dx, const VecX& dg) {
    constexpr double kMinCorrelation = 0.2;
    const double xg = dx.dot(dg), xx = dx.squaredNorm(), gg = dg.squaredNorm();
    if (!(xg > 0.0) || !(xx > 0.0) || !(gg > 0.0)) return std::nullopt;
    if (xg / std::sqrt(xx * gg) <= kMinCorrelation) return std::nullopt;
    const double steepest = gg / xg, minimum_gradient = xg / xx;
    return 2.0 * minimum_gradient > steepest ? minimum_gradient : steepest - 0.5 * minimum_gradient;
}

}  // namespace

PenaltyUpdate spectral_penalty(const DistributedSpec& spec, double rho, double rho0,
                               const SpectralHistory& h) {
    if (!spec.adapt) return {rho, 1.0};
    const std::optional<double> alpha = spectral_curvature(h.dq, h.dgrad);
    const std::optional<double> beta = spectral_curvature(h.dz, h.dlambda);
    double next = rho;
    if (alpha && beta) {
        next = std::sqrt(*alpha * *beta);
    } else if (alpha) {
        next = *alpha;
    } else if (beta) {
        next = *beta;
    }
    next = std::clamp(next, spec.clamp[0] * rho0, spec.clamp[1] * rho0);
    const double scale = spec.rescale_dual && next != rho ? rho / next : 1.0;
    return {next, scale};
}

}  // namespace concord
