// Central finite differences, used by tests to check analytic gradients and Hessians.
#pragma once

#include <functional>

#include "concord/math/types.hpp"

namespace concord {

/// Central-difference gradient of f at x with step h.
inline VecX fd_gradient(const std::function<double(const VecX&)>& f, const VecX& x, double h) {
    VecX g(x.size());
    VecX xp = x;
    for (Eigen::Index i = 0; i < x.size(); ++i) {
        xp[i] = x[i] + h;
        const double fp = f(xp);
        xp[i] = x[i] - h;
        const double fm = f(xp);
        xp[i] = x[i];
        g[i] = (fp - fm) / (2.0 * h);
    }
    return g;
}

/// Central-difference Jacobian of a vector function g at x (e.g. the Hessian from a gradient).
inline MatX fd_jacobian(const std::function<VecX(const VecX&)>& g, const VecX& x, double h) {
    const VecX g0 = g(x);
    MatX J(g0.size(), x.size());
    VecX xp = x;
    for (Eigen::Index i = 0; i < x.size(); ++i) {
        xp[i] = x[i] + h;
        const VecX gp = g(xp);
        xp[i] = x[i] - h;
        const VecX gm = g(xp);
        xp[i] = x[i];
        J.col(i) = (gp - gm) / (2.0 * h);
    }
    return J;
}

}  // namespace concord
