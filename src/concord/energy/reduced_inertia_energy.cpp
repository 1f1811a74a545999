#include "concord/energy/reduced_inertia_energy.hpp"

#include "concord/body/modal_part.hpp"
#include "concord/math/psd_projection.hpp"

namespace concord {

ReducedInertiaEnergy::ReducedInertiaEnergy(std::vector<ReducedInertiaBody> bodies)
    : bodies_(std::move(bodies)), z_tilde_(bodies_.size()) {
    for (std::size_t i = 0; i < bodies_.size(); ++i)
        z_tilde_[i] = VecX::Zero(reduced_size(bodies_[i].dofs.num_modes));
}

void ReducedInertiaEnergy::set_step(const VecX& q_start, const VecX& q_tilde) {
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
        const ElasticDofs& d = bodies_[i].dofs;
        const VecX s = d.gather(q_start), t = d.gather(q_tilde);
        // q~ = q + h q' + h^2 a, and q' = (q^t - q^{t-1}) / h: the previous state is
        // q^{t-1} = q - (q~ - q) up to h^2 a, which sits on p only, where z is linear. The
        // points' own implicit-Euler prediction x~ = 2 x^t - x^{t-1} + h^2 a is then
        // z~ = 2 z(q^t) - z(q^{t-1}) + h^2 [a, 0...], which conserves linear momentum exactly.
        const VecX previous = s - (t - s);
        z_tilde_[i] = 2.0 * reduced_coordinates(s.head<12>(), s.tail(d.num_modes)) -
                      reduced_coordinates(previous.head<12>(), previous.tail(d.num_modes));
    }
}

double ReducedInertiaEnergy::value(const VecX& q) const {
    double e = 0.0;
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
        const ElasticDofs& d = bodies_[i].dofs;
        const VecX s = d.gather(q);
        const VecX r = reduced_coordinates(s.head<12>(), s.tail(d.num_modes)) - z_tilde_[i];
        e += 0.5 * r.dot(bodies_[i].reduced_mass * r);
    }
    return e;
}

void ReducedInertiaEnergy::add_gradient(const VecX& q, VecX& g) const {
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
        const ElasticDofs& d = bodies_[i].dofs;
        const VecX s = d.gather(q);
        const Vec12 qa = s.head<12>();
        const VecX eta = s.tail(d.num_modes);
        const VecX gz = bodies_[i].reduced_mass * (reduced_coordinates(qa, eta) - z_tilde_[i]);
        d.scatter_add(reduced_coordinates_jacobian(qa, eta).transpose() * gz, g);
    }
}

void ReducedInertiaEnergy::add_hessian(const VecX& q, HessianBlocks& H, bool project_psd) const {
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
        const ElasticDofs& d = bodies_[i].dofs;
        const VecX s = d.gather(q);
        const Vec12 qa = s.head<12>();
        const VecX eta = s.tail(d.num_modes);
        const MatX& Mz = bodies_[i].reduced_mass;
        const MatX J = reduced_coordinates_jacobian(qa, eta);
        MatX B = J.transpose() * Mz * J;
        // z's only second derivatives: d2 (eta_k A_ij) / dA_ij d eta_k = 1.
        const VecX gz = Mz * (reduced_coordinates(qa, eta) - z_tilde_[i]);
        for (int k = 0; k < d.num_modes; ++k)
            for (int a = 0; a < 9; ++a) {
                B(3 + a, 12 + k) += gz[12 + 9 * k + a];
                B(12 + k, 3 + a) += gz[12 + 9 * k + a];
            }
        if (project_psd) B = project_to_psd(B);
        d.add_hessian_block(B, H);
    }
}

}  // namespace concord
