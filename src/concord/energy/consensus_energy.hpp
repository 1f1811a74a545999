// The consensus penalty of a worker's local solve in consensus ADMM (paper Eq. 5):
//   sum over shared bodies b of rho_b / 2 || q_b - z_b + u_b ||^2
// with z_b the consensus state and u_b the scaled dual of the body. A quadratic pull towards
// the anchor z_b - u_b; like the inertia it is already in the incremental potential's units.
#pragma once

#include <vector>

#include "concord/energy/energy.hpp"

namespace concord {

struct ConsensusTerm {
    int body;       ///< index in the state vector (q.segment<12>(12 body))
    double rho;     ///< penalty > 0
    Vec12 anchor;   ///< z_b - u_b
};

class ConsensusEnergy final : public Energy {
  public:
    void set_terms(std::vector<ConsensusTerm> terms) { terms_ = std::move(terms); }
    const std::vector<ConsensusTerm>& terms() const { return terms_; }

    std::string name() const override { return "consensus"; }
    double value(const VecX& q) const override;
    void add_gradient(const VecX& q, VecX& g) const override;
    void add_hessian(const VecX& q, Triplets& H, bool project_psd) const override;

  private:
    std::vector<ConsensusTerm> terms_;
};

}  // namespace concord
