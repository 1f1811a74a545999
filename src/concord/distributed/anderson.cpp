#include "concord/distributed/anderson.hpp"

#include <Eigen/Cholesky>
#include <cmath>

namespace concord {

void AndersonHistory::push(const VecX& g, const VecX& f) {
    g_.push_back(g);
    f_.push_back(f);
    while (static_cast<int>(g_.size()) > window_ + 1) {
        g_.pop_front();
        f_.pop_front();
    }
}

void AndersonHistory::add_normal_equations(MatX& gram, VecX& rhs) const {
    const int m = columns();
    if (m <= 0) return;
    MatX dF(f_.back().size(), m);
    for (int j = 0; j < m; ++j) dF.col(j) = f_[j + 1] - f_[j];
    gram.topLeftCorner(m, m).noalias() += dF.transpose() * dF;
    rhs.head(m).noalias() += dF.transpose() * f_.back();
}

VecX AndersonHistory::extrapolate(const VecX& gamma) const {
    VecX w = g_.back();
    const int m = std::min<int>(columns(), static_cast<int>(gamma.size()));
    for (int j = 0; j < m; ++j) w -= gamma[j] * (g_[j + 1] - g_[j]);
    return w;
}

void AndersonHistory::clear() {
    g_.clear();
    f_.clear();
}

VecX anderson_coefficients(const MatX& gram, const VecX& rhs) {
    const Eigen::Index m = rhs.size();
    if (m == 0 || gram.rows() != m || gram.cols() != m) return {};
    const double scale = gram.diagonal().maxCoeff();
    if (!(scale > 0) || !std::isfinite(scale)) return {};
    MatX a = gram;
    a.diagonal().array() += 1e-10 * scale;
    const Eigen::LDLT<MatX> ldlt(a);
    if (ldlt.info() != Eigen::Success || !ldlt.isPositive()) return {};
    VecX gamma = ldlt.solve(rhs);
    if (!gamma.allFinite()) return {};
    return gamma;
}

bool AndersonSafeguard::accept(double residual) {
    if (!std::isfinite(residual)) {
        reset();
        return false;
    }
    const bool grew = residual > last_;
    last_ = residual;  // the next iteration is compared with this one
    return !grew;
}

}  // namespace concord
