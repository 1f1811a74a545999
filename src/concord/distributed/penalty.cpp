#include "concord/distributed/penalty.hpp"

#include <algorithm>

namespace concord {

double initial_penalty(const DistributedSpec& spec, double mass, double hessian_lambda_max) {
    switch (spec.penalty) {
        case PenaltyRule::Mass: return spec.beta * mass;
        case PenaltyRule::Fixed: return spec.beta;
        case PenaltyRule::Stiffness: return spec.beta * hessian_lambda_max;
    }
    return spec.beta * mass;
}

PenaltyUpdate adapt_penalty(const DistributedSpec& spec, double rho, double rho0, double r_norm,
                            double s_norm) {
    if (!spec.adapt) return {rho, 1.0};
    double next = rho;
    if (r_norm > spec.mu * s_norm) {
        next = rho * spec.tau;
    } else if (s_norm > spec.mu * r_norm) {
        next = rho / spec.tau;
    }
    next = std::clamp(next, spec.clamp[0] * rho0, spec.clamp[1] * rho0);
    const double scale = spec.rescale_dual && next != rho ? rho / next : 1.0;
    return {next, scale};
}

}  // namespace concord
