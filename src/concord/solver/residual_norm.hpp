// Norms of the residual (the gradient of the minimised function) over the unknowns.
#pragma once

#include <vector>

#include "concord/solver/newton_problem.hpp"

namespace concord {

class ResidualNorm {
  public:
    /// Only DoFs with free_dof[i] count. Groups without free DoFs have norm 0.
    ResidualNorm(const ResidualGroups& groups, const std::vector<bool>& free_dof);

    /// Weighted norm of every group.
    VecX per_group(const VecX& g) const;
    /// sqrt(sum of squared group norms): the weighted l2 norm of the whole residual.
    double weighted(const VecX& g) const;
    /// Unweighted l2 norm over the free DoFs.
    double l2(const VecX& g) const;
    int num_groups() const { return static_cast<int>(begin_.size()) - 1; }

  private:
    std::vector<int> begin_;
    VecX weight_;  ///< 0 on fixed DoFs
    std::vector<bool> free_;
};

}  // namespace concord
