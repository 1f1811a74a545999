#include "concord/solver/residual_norm.hpp"

#include <cmath>
#include <stdexcept>

namespace concord {

ResidualNorm::ResidualNorm(const ResidualGroups& groups, const std::vector<bool>& free_dof)
    : free_(free_dof) {
    const int n = static_cast<int>(free_dof.size());
    begin_ = groups.begin.empty() ? std::vector<int>{0, n} : groups.begin;
    if (begin_.front() != 0 || begin_.back() != n)
        throw std::invalid_argument("ResidualGroups must cover every DoF exactly once");
    weight_ = groups.weight.size() == n ? groups.weight : VecX(VecX::Ones(n));
    for (int i = 0; i < n; ++i)
        if (!free_dof[static_cast<std::size_t>(i)]) weight_[i] = 0.0;
}

VecX ResidualNorm::per_group(const VecX& g) const {
    VecX rho(num_groups());
    for (int k = 0; k < num_groups(); ++k) {
        double s = 0.0;
        for (int i = begin_[static_cast<std::size_t>(k)];
             i < begin_[static_cast<std::size_t>(k) + 1]; ++i)
            if (free_[static_cast<std::size_t>(i)]) s += weight_[i] * g[i] * g[i];
        rho[k] = std::sqrt(s);
    }
    return rho;
}

double ResidualNorm::weighted(const VecX& g) const {
    double s = 0.0;
    for (Eigen::Index i = 0; i < g.size(); ++i)
        if (free_[static_cast<std::size_t>(i)]) s += weight_[i] * g[i] * g[i];
    return std::sqrt(s);
}

double ResidualNorm::l2(const VecX& g) const {
    double s = 0.0;
    for (Eigen::Index i = 0; i < g.size(); ++i)
        if (free_[static_cast<std::size_t>(i)]) s += g[i] * g[i];
    return std::sqrt(s);
}

}  // namespace concord
