// Anderson acceleration of the consensus iteration (Zhang, Peng et al. 2019, "Accelerating ADMM
// for efficient simulation and optimization"; Walker and Ni 2011 for type-II Anderson).
//
// ADMM is a fixed-point iteration w <- G(w) on the consensus variables; here w holds, per
// shared body, its consensus z and every holder's multiplier lambda = rho u (in worker order).
// With a window of m iterates, Anderson replaces G(w_k) by
//     w_{k+1} = G(w_k) - dG gamma,   gamma = argmin |f_k - dF gamma|,
// where f = G(w) - w and dF, dG hold the last m differences of f and G(w). The blocks of w live
// on different workers (each shared body on every holder, identically), so the least-squares
// normal equations are sums over bodies: each worker adds those of the bodies it counts, the
// controller sums them and solves for gamma, and every holder applies the same gamma to its
// copy of each body (so z stays identical on all holders).
//
// Safeguard: acceleration is kept only while the combined residual (r + s of Eq. 9-10, over
// h l) does not grow; when it grows, the plain iterate is taken and every history restarts.
#pragma once

#include <deque>
#include <limits>

#include "concord/math/types.hpp"

namespace concord {

/// One block's iterates (a shared body on one holder).
class AndersonHistory {
  public:
    AndersonHistory() = default;
    explicit AndersonHistory(int window) : window_(window) {}

    /// Records this iteration's plain iterate g = G(w) and residual f = G(w) - w (already
    /// scaled as the least-squares measures it).
    void push(const VecX& g, const VecX& f);
    /// Differences available (at most the window): the size of gamma.
    int columns() const { return static_cast<int>(g_.size()) - 1; }
    /// Adds this block's dF^T dF (columns x columns) and dF^T f_k (columns) to gram and rhs.
    void add_normal_equations(MatX& gram, VecX& rhs) const;
    /// The plain iterate of the last push.
    const VecX& plain() const { return g_.back(); }
    /// g_k - dG gamma.
    VecX extrapolate(const VecX& gamma) const;
    void clear();

  private:
    int window_ = 0;
    std::deque<VecX> g_, f_;  ///< oldest first, at most window + 1 of each
};

/// gamma from the summed normal equations (Tikhonov-regularised relative to the diagonal);
/// empty when there is nothing to solve or the system is degenerate (take the plain iterate).
VecX anderson_coefficients(const MatX& gram, const VecX& rhs);

/// The safeguard, on the controller.
class AndersonSafeguard {
  public:
    /// True when acceleration may be applied after an iteration whose combined residual is
    /// `residual`; false when it grew since the last iteration (then every history must
    /// restart) or is not finite. Each iteration is compared with the one before it.
    bool accept(double residual);
    void reset() { last_ = std::numeric_limits<double>::infinity(); }

  private:
    double last_ = std::numeric_limits<double>::infinity();
};

}  // namespace concord
