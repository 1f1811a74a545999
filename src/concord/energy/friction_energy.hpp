// Lagged smooth friction (IPC, Li et al. 2020, Sec. 5): for every contact of the lagged set,
//   D_k = mu_k lambda_k f0(|u_k|),  u_k = T_k^T Gamma_k (x - x^t)
// with lambda_k the lagged normal force magnitude, T_k the lagged tangent basis, Gamma_k the
// lagged closest-point weights (relative displacement of the two closest points) and f0 the C1
// mollified norm with eps = epsilon_v h. Like the barrier, D is in the h^2-scaled units of the
// incremental potential, so lambda_k = kappa |d b / d distance|.
#pragma once

#include "concord/energy/contact_set.hpp"
#include "concord/energy/energy.hpp"

namespace concord {

/// One lagged friction pair: up to four vertices with closest-point weights.
struct FrictionPair {
    std::array<int, 4> vertex{};
    std::array<double, 4> weight{};  ///< relative displacement = sum_k weight_k (x_k - x_k^t)
    int num_vertices = 4;
    Eigen::Matrix<double, 3, 2> tangent;  ///< orthonormal basis of the contact's tangent plane
    double normal_force = 0.0;            ///< lambda_k (h^2-scaled)
    double mu = 0.0;
};

/// f0, f1 = f0' and f1(y)/y of the IPC friction mollifier with threshold eps (eps_v h).
double friction_f0(double y, double eps);
double friction_f1(double y, double eps);

class FrictionEnergy final : public Energy {
public:
    FrictionEnergy(const ContactSurface& surface, std::vector<bool> body_movable)
        : surface_(surface), movable_(std::move(body_movable)) {}

    /// Lags the friction: pairs from `contacts` evaluated at q_lag, normal forces `lambda`
    /// (same order as BarrierEnergy::normal_forces), coefficients mu (same order), displacement
    /// measured from q_start (the state at the beginning of the time step).
    void lag(const ContactSet& contacts, const std::vector<HalfSpace>& planes, const VecX& q_lag,
             const std::vector<double>& lambda, const std::vector<double>& mu, const VecX& q_start,
             double eps);
    void clear() { pairs_.clear(); }
    const std::vector<FrictionPair>& pairs() const { return pairs_; }

    std::string name() const override { return "friction"; }
    double value(const VecX& q) const override;
    void add_gradient(const VecX& q, VecX& g) const override;
    void add_hessian(const VecX& q, HessianBlocks& H, bool project_psd) const override;

private:
    Vec2 tangential_displacement(const FrictionPair& p, const VecX& q) const;

    const ContactSurface& surface_;
    std::vector<bool> movable_;
    std::vector<FrictionPair> pairs_;
    VecX q_start_;
    double eps_ = 1e-5;
};

}  // namespace concord
