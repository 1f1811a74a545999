#include "concord/solver/line_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace concord {

namespace {

/// Relative rounding noise of an incremental potential's value (measured: 5.7e-13 on a box at
/// rest; 200x margin).
constexpr double kEnergyNoise = 1e-10;

struct Search {
    NewtonProblem& problem;
    const SolverParams& params;
    const ResidualNorm& norm;
    bool weighted;
    const VecX& x;
    const VecX& dx;
    double alpha_max;
    double r0;  ///< monitored residual norm at x
    LineSearchResult result{};
    VecX trial{}, g{};

    double residual(const VecX& gradient) const {
        return weighted ? norm.weighted(gradient) : norm.l2(gradient);
    }
    double energy_at(double alpha) {
        trial = x + alpha * dx;
        ++result.trials;
        return problem.energy(trial);
    }
    /// Residual norm at `trial` (+inf when it is not admissible).
    double residual_at_trial() {
        if (!problem.trial_gradient(trial, g)) return std::numeric_limits<double>::infinity();
        const double r = residual(g);
        return std::isfinite(r) ? r : std::numeric_limits<double>::infinity();
    }
    bool room() const { return result.trials < params.max_line_search_trials; }
    void accept(double alpha, bool sufficient) {
        result.alpha = alpha;
        result.improved = alpha > 0.0;
        result.sufficient = sufficient && alpha > 0.0;
    }

    /// Armijo condition e <= e0 + c alpha slope at `trial`. When the energy cannot tell
    /// progress from noise, the trial counts when the energy did not grow beyond that noise and
    /// the residual norm fell. That is the case when the predicted decrease is below the
    /// resolution of e0 (the bound rounds to e0, typical once the iterate is at the energy's
    /// floating-point floor), and when the whole direction's predicted change is within the
    /// energy's rounding noise: the energy sums terms (inertia, gravity, contact) that cancel
    /// to a small total (a box at rest on a stiff contact: e0 = 2.8e-5, a whole step predicted
    /// to lower it by 1e-17 and trials 1.6e-17 above it), far above e0's resolution.
    bool armijo(double e, double e0, double alpha, double slope) {
        if (!std::isfinite(e)) return false;
        const double noise = kEnergyNoise * std::abs(e0);
        if (-slope * alpha_max <= noise) return e <= e0 + noise && residual_at_trial() < r0;
        const double bound = e0 + params.armijo * alpha * slope;
        if (bound < e0) return e <= bound;
        return e <= e0 && residual_at_trial() < r0;
    }
};

// Armijo backtracking on the energy.
void backtracking(Search& s, double e0, double slope) {
    double alpha = s.alpha_max, best_alpha = 0.0, best_e = e0;
    while (s.room() && alpha > 0.0) {
        const double e = s.energy_at(alpha);
        if (s.armijo(e, e0, alpha, slope)) {
            s.accept(alpha, true);
            return;
        }
        if (std::isfinite(e) && e < best_e) {
            best_e = e;
            best_alpha = alpha;
        }
        alpha *= s.params.backtrack_factor;
    }
    s.accept(best_alpha, false);
}

// Backtracking on the residual norm: ||r(alpha)|| <= (1 - c alpha) ||r(0)|| (strictly below
// ||r(0)|| when that factor rounds to 1).
void residual_backtracking(Search& s) {
    double alpha = s.alpha_max, best_alpha = 0.0, best_r = s.r0;
    while (s.room() && alpha > 0.0) {
        s.trial = s.x + alpha * s.dx;
        ++s.result.trials;
        const double r = s.residual_at_trial();
        const double bound = (1.0 - s.params.armijo * alpha) * s.r0;
        if (bound < s.r0 ? r <= bound : r < s.r0) {
            s.accept(alpha, true);
            return;
        }
        if (r < best_r) {
            best_r = r;
            best_alpha = alpha;
        }
        alpha *= s.params.backtrack_factor;
    }
    s.accept(best_alpha, false);
}

// Strong Wolfe (Nocedal and Wright, Algorithms 3.5 and 3.6) with the bracket's upper end at
// alpha_max: the search may not extrapolate past the CCD cap, so a step at the cap that still
// descends is accepted on the Armijo condition alone.
void strong_wolfe(Search& s, double e0, double slope) {
    const double c2 = s.params.wolfe_curvature;
    auto derivative = [&](double& d) {  // at s.trial
        if (!s.problem.trial_gradient(s.trial, s.g)) return false;
        d = s.g.dot(s.dx);
        return std::isfinite(d);
    };
    const double e_max = s.energy_at(s.alpha_max);
    double lo = 0.0, e_lo = e0, d_lo = slope, hi = s.alpha_max, e_hi = e_max;
    double armijo_at_cap = 0.0;  // alpha_max when it satisfies Armijo: the fallback
    if (s.armijo(e_max, e0, s.alpha_max, slope)) {
        armijo_at_cap = s.alpha_max;
        double d = 0.0;
        if (!derivative(d)) {
            s.accept(s.alpha_max, false);
            return;
        }
        if (std::abs(d) <= -c2 * slope || d < 0.0) {  // strong Wolfe, or capped while descending
            s.accept(s.alpha_max, true);
            return;
        }
        // Overshot the minimum along the line: it lies in (0, alpha_max); keep the bracket.
    }
    // Zoom: lo satisfies Armijo and has the lowest energy seen; the minimiser is in (lo, hi).
    while (s.room()) {
        const double width = hi - lo;
        double alpha = lo + 0.5 * width;
        if (std::isfinite(e_hi)) {  // minimiser of the quadratic through e_lo, d_lo, e_hi
            const double curvature = e_hi - e_lo - d_lo * width;
            if (curvature > 0.0) alpha = lo - d_lo * width * width / (2.0 * curvature);
        }
        // The bracket may be reversed (hi < lo) after an update; stay inside its middle 80%.
        const double a = std::min(lo, hi), b = std::max(lo, hi), margin = 0.1 * (b - a);
        alpha = std::clamp(alpha, a + margin, b - margin);
        if (!(b - a > 0.0)) break;
        const double e = s.energy_at(alpha);
        if (!s.armijo(e, e0, alpha, slope) || e > e_lo || (e == e_lo && lo > 0.0)) {
            hi = alpha;
            e_hi = e;
            continue;
        }
        double d = 0.0;
        if (!derivative(d)) {
            hi = alpha;
            e_hi = std::numeric_limits<double>::infinity();
            continue;
        }
        if (std::abs(d) <= -c2 * slope) {
            s.accept(alpha, true);
            return;
        }
        if (d * (hi - lo) >= 0.0) {
            hi = lo;
            e_hi = e_lo;
        }
        lo = alpha;
        e_lo = e;
        d_lo = d;
    }
    // Out of trials: lo (if any) satisfies Armijo, as does the cap when it was recorded.
    if (lo > 0.0) {
        s.accept(lo, true);
    } else {
        s.accept(armijo_at_cap, armijo_at_cap > 0.0);
    }
}

}  // namespace

LineSearchResult line_search(NewtonProblem& problem, const SolverParams& params,
                             const ResidualNorm& norm, bool weighted_residual, const VecX& x,
                             const VecX& dx, const VecX& g, double alpha_max, VecX& x_new) {
    Search s{problem, params, norm,      weighted_residual,
             x,       dx,     alpha_max, weighted_residual ? norm.weighted(g) : norm.l2(g)};
    if (!(alpha_max > 0.0)) return s.result;
    const double slope = std::min(g.dot(dx), 0.0);
    switch (params.line_search) {
        case LineSearchType::Backtracking:
            backtracking(s, problem.energy(x), slope);
            break;
        case LineSearchType::StrongWolfe:
            strong_wolfe(s, problem.energy(x), slope);
            break;
        case LineSearchType::ResidualNorm:
            residual_backtracking(s);
            break;
    }
    if (s.result.improved) x_new = x + s.result.alpha * dx;
    return s.result;
}

}  // namespace concord
