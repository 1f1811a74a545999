// Comparing analytic gradients and Hessians with central finite differences.
//
// Errors are relative: max |fd − analytic| / max(max |analytic|, floor), with `floor` the
// magnitude below which entries count as zero. Callers pick the step h and the tolerance from
// the error model of central differences, |error| ≈ h² |f'''| / 6 + ε |f| / h, and say why in
// a comment next to the numbers.
#pragma once

#include <algorithm>
#include <functional>
#include <limits>

#include "concord/math/finite_difference.hpp"
#include "concord/math/types.hpp"

namespace concord::test {

inline double relative_error(const MatX& fd, const MatX& analytic, double floor) {
    if (!analytic.allFinite() || !fd.allFinite()) return std::numeric_limits<double>::infinity();
    return (fd - analytic).lpNorm<Eigen::Infinity>() /
           std::max(analytic.lpNorm<Eigen::Infinity>(), floor);
}

/// A function of N stacked coordinates with its analytic gradient and Hessian.
template <int N>
struct Differentiable {
    std::function<double(const Vec<N>&)> value;
    std::function<Vec<N>(const Vec<N>&)> gradient;
    std::function<Mat<N>(const Vec<N>&)> hessian;
};

/// Relative error of the analytic gradient against central differences of the value.
template <int N>
double gradient_fd_error(const Differentiable<N>& fn, const Vec<N>& x, double h, double floor) {
    const VecX fd = fd_gradient([&](const VecX& y) { return fn.value(Vec<N>(y)); }, VecX(x), h);
    return relative_error(fd, VecX(fn.gradient(x)), floor);
}

/// Relative error of the analytic Hessian against central differences of the analytic gradient.
template <int N>
double hessian_fd_error(const Differentiable<N>& fn, const Vec<N>& x, double h, double floor) {
    const MatX fd =
        fd_jacobian([&](const VecX& y) { return VecX(fn.gradient(Vec<N>(y))); }, VecX(x), h);
    return relative_error(fd, MatX(fn.hessian(x)), floor);
}

/// Relative asymmetry of a Hessian (exactly symmetric formulas should give 0 up to round-off).
template <int N>
double asymmetry(const Mat<N>& H) {
    return (H - H.transpose()).template lpNorm<Eigen::Infinity>() /
           std::max(H.template lpNorm<Eigen::Infinity>(), 1e-300);
}

/// The worst errors over a set of configurations.
struct WorstErrors {
    double gradient = 0.0;
    double hessian = 0.0;
    double asymmetry = 0.0;
    int samples = 0;
};

template <int N>
void accumulate(WorstErrors& worst, const Differentiable<N>& fn, const Vec<N>& x, double h_grad,
                double h_hess, double floor_grad, double floor_hess) {
    worst.gradient = std::max(worst.gradient, gradient_fd_error(fn, x, h_grad, floor_grad));
    worst.hessian = std::max(worst.hessian, hessian_fd_error(fn, x, h_hess, floor_hess));
    worst.asymmetry = std::max(worst.asymmetry, asymmetry<N>(fn.hessian(x)));
    ++worst.samples;
}

}  // namespace concord::test
