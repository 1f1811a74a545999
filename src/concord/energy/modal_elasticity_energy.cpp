#include "concord/energy/modal_elasticity_energy.hpp"

namespace concord {

void ModalElasticityEnergy::set_step(const VecX& q_start, double time_step) {
    h_ = time_step;
    eta_start_.resize(bodies_.size());
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
        const ElasticDofs& d = bodies_[i].dofs;
        eta_start_[i] = q_start.segment(d.modal_offset, d.num_modes);
    }
}

double ModalElasticityEnergy::value(const VecX& q) const {
    double e = 0.0;
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
        const ElasticDofs& d = bodies_[i].dofs;
        const VecX eta = q.segment(d.modal_offset, d.num_modes);
        const VecX deta = eta - eta_start_[i];
        e += 0.5 * h_ * h_ * eta.dot(bodies_[i].stiffness * eta) +
             0.5 * h_ * deta.dot(bodies_[i].damping * deta);
    }
    return e;
}

void ModalElasticityEnergy::add_gradient(const VecX& q, VecX& g) const {
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
        const ElasticDofs& d = bodies_[i].dofs;
        const VecX eta = q.segment(d.modal_offset, d.num_modes);
        g.segment(d.modal_offset, d.num_modes) +=
            h_ * h_ * (bodies_[i].stiffness * eta) + h_ * (bodies_[i].damping * (eta - eta_start_[i]));
    }
}

void ModalElasticityEnergy::add_hessian(const VecX&, HessianBlocks& H, bool) const {
    for (const ModalElasticityBody& b : bodies_) {
        const MatX B = h_ * h_ * b.stiffness + h_ * b.damping;
        H.add(b.dofs.modal_offset, b.dofs.modal_offset, B);
    }
}

}  // namespace concord
