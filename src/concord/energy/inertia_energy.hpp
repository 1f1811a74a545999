// Inertia: 1/2 (q - q~)^T M (q - q~) summed over dynamic bodies, q~ the predicted state
// q~ = q^t + h q_dot^t + h^2 M^-1 f_ext.
//
// The same quadratic form, with M scaled by a large weight and q~ the prescribed pose, is the
// energy that makes kinematic bodies follow their prescribed motion (see world/).
#pragma once

#include "concord/energy/energy.hpp"

namespace concord {

class InertiaEnergy final : public Energy {
public:
    /// `masses[b]` is body b's 12x12 affine mass matrix; `dynamic[b]` whether it is a DoF owner.
    InertiaEnergy(std::vector<Mat12> masses, std::vector<bool> dynamic,
                  std::string name = "inertia");

    void set_predicted(const VecX& q_tilde) { q_tilde_ = q_tilde; }
    /// New mass matrices for the same bodies (a distributed worker's shares changing).
    void set_masses(std::vector<Mat12> masses) { masses_ = std::move(masses); }
    const VecX& predicted() const { return q_tilde_; }

    std::string name() const override { return name_; }
    double value(const VecX& q) const override;
    void add_gradient(const VecX& q, VecX& g) const override;
    void add_hessian(const VecX& q, HessianBlocks& H, bool project_psd) const override;

private:
    std::vector<Mat12> masses_;
    std::vector<bool> dynamic_;
    VecX q_tilde_;
    std::string name_;
};

}  // namespace concord
