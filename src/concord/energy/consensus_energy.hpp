// The consensus penalty of a worker's local solve in consensus ADMM (paper Eq. 5):
//   sum over shared bodies b of rho_b / 2 || q_b - z_b + u_b ||^2_{W_b}
// with z_b the consensus state and u_b the scaled dual of the body. A quadratic pull towards
// the anchor z_b - u_b; like the inertia it is already in the incremental potential's units.
// q_b is the body's whole coordinate block: its 12 affine numbers (W = I there, the penalty
// rho_b being mass-aware already) and, for a reduced elastic body, its modal coordinates, with
// W = M_eta / m (the reduced modal mass relative to the body's mass), so that a mode is held
// as firmly as the frame moving by the same displacement.
#pragma once

#include <vector>

#include "concord/energy/energy.hpp"

namespace concord {

struct ConsensusTerm {
    int body;             ///< the body's affine part at q.segment<12>(12 body)
    double rho;           ///< penalty > 0
    VecX anchor;          ///< z_b - u_b: 12 numbers, then the modal coordinates' if any
    int modal_offset = -1;              ///< where the body's modal coordinates start in q
    const MatX* modal_metric = nullptr;  ///< W of the modal part (required with modes)
};

class ConsensusEnergy final : public Energy {
  public:
    /// Throws std::invalid_argument for a term with modes but no metric of matching size.
    void set_terms(std::vector<ConsensusTerm> terms);
    const std::vector<ConsensusTerm>& terms() const { return terms_; }

    std::string name() const override { return "consensus"; }
    double value(const VecX& q) const override;
    void add_gradient(const VecX& q, VecX& g) const override;
    void add_hessian(const VecX& q, HessianBlocks& H, bool project_psd) const override;

  private:
    std::vector<ConsensusTerm> terms_;
};

}  // namespace concord
