// Inertia of reduced elastic bodies: 1/2 |z(q) - z~|^2_{M_z}, the exact kinetic term of
// implicit Euler for points moving as x(X) = p + A (X + Phi(X) eta) (body/modal_part.hpp):
// in the reduced coordinates z = [p, A, eta_1 A, ..., eta_m A] the motion is linear and M_z
// constant, so frame-mode coupling is complete. z~ = 2 z(q^t) - z(q^{t-1}) + h^2 [a, 0...]: the
// implicit-Euler prediction of every point, x~ = x^t + (x^t - x^{t-1}) + h^2 a.
#pragma once

#include "concord/energy/elastic_dofs.hpp"

namespace concord {

struct ReducedInertiaBody {
    ElasticDofs dofs;
    MatX reduced_mass;  ///< M_z, (12 + 9m) square
};

class ReducedInertiaEnergy final : public Energy {
public:
    explicit ReducedInertiaEnergy(std::vector<ReducedInertiaBody> bodies);

    /// Predicts z~ from the step's start q and the predicted state q~ = q + h q' + h^2 a
    /// (a on p only), q' = (q^t - q^{t-1}) / h.
    void set_step(const VecX& q_start, const VecX& q_tilde);
    bool empty() const { return bodies_.empty(); }

    std::string name() const override { return "reduced_inertia"; }
    double value(const VecX& q) const override;
    void add_gradient(const VecX& q, VecX& g) const override;
    /// J^T M_z J plus the bilinear term d2 z / dA d eta contracted with M_z (z - z~); the body
    /// block is PSD-projected when project_psd (the bilinear term can make it indefinite).
    void add_hessian(const VecX& q, HessianBlocks& H, bool project_psd) const override;

private:
    std::vector<ReducedInertiaBody> bodies_;
    std::vector<VecX> z_tilde_;
};

}  // namespace concord
