// Orthogonality (stiffness) potential of affine bodies (Lan et al. 2022, ABD):
//   E_orth(q) = sum_b kappa_b V_b || A_b A_b^T - I ||_F^2
// It vanishes exactly for rotations and penalises every non-rigid deformation; kappa_b is the
// body's stiffness (its material's Young's modulus, see docs/affine-bodies.md), V_b its volume.
#pragma once

#include "concord/energy/energy.hpp"

namespace concord {

/// Value, gradient (9, wrt A row-major) and Hessian (9x9) of ||A A^T - I||_F^2.
double orthogonality_potential(const Mat3& A);
Vec9 orthogonality_gradient(const Mat3& A);
Mat9 orthogonality_hessian(const Mat3& A);

class OrthogonalityEnergy final : public Energy {
public:
    /// weights[b] = kappa_b V_b (0 for bodies that are not dynamic).
    explicit OrthogonalityEnergy(std::vector<double> weights) : weights_(std::move(weights)) {}

    /// New weights for the same bodies (a distributed worker's shares changing).
    void set_weights(std::vector<double> weights) { weights_ = std::move(weights); }

    std::string name() const override { return "orthogonality"; }
    double value(const VecX& q) const override;
    void add_gradient(const VecX& q, VecX& g) const override;
    void add_hessian(const VecX& q, HessianBlocks& H, bool project_psd) const override;

private:
    std::vector<double> weights_;
};

}  // namespace concord
