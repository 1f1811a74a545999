// Elastic potential and damping of the modal coordinates of reduced elastic bodies, in the
// incremental potential's h^2-scaled units:
//   h^2 * 1/2 eta^T K eta  +  h/2 (eta - eta^t)^T C (eta - eta^t)
// The second term is the implicit-Euler damping force -C (eta - eta^t)/h written as a
// potential (its gradient is h^2 times that force). Only the modes are damped: rigid motion of
// the frame dissipates nothing (docs/elastic.md).
#pragma once

#include "concord/energy/elastic_dofs.hpp"

namespace concord {

struct ModalElasticityBody {
    ElasticDofs dofs;
    MatX stiffness;  ///< K_eta (m x m)
    MatX damping;    ///< C_eta (m x m)
};

class ModalElasticityEnergy final : public Energy {
public:
    explicit ModalElasticityEnergy(std::vector<ModalElasticityBody> bodies)
        : bodies_(std::move(bodies)) {}

    /// The step's start state (eta^t) and time step h.
    void set_step(const VecX& q_start, double time_step);
    bool empty() const { return bodies_.empty(); }

    std::string name() const override { return "modal_elasticity"; }
    double value(const VecX& q) const override;
    void add_gradient(const VecX& q, VecX& g) const override;
    /// h^2 K + h C: constant, and PSD for PSD K and C (nothing to project).
    void add_hessian(const VecX& q, HessianBlocks& H, bool project_psd) const override;

private:
    std::vector<ModalElasticityBody> bodies_;
    std::vector<VecX> eta_start_;
    double h_ = 0.0;
};

}  // namespace concord
