#include "concord/solver/line_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace concord {

namespace {

struct Search {
    NewtonProblem& problem;
    const SolverParams& params;
    const VecX& x;
    const VecX& dx;
    double alpha_max;
    LineSearchResult result;
    VecX trial;

    double energy_at(double alpha) {
        trial = x + alpha * dx;
        ++result.trials;
        return problem.energy(trial);
    }
    bool room() const { return result.trials < params.max_line_search_trials; }
    void accept(double alpha, bool sufficient) {
        result.alpha = alpha;
        result.improved = alpha > 0.0;
        result.sufficient = sufficient && alpha > 0.0;
    }
};

// Armijo backtracking on the energy.
void backtracking(Search& s, double e0, double slope) {
    double alpha = s.alpha_max, best_alpha = 0.0, best_e = e0;
    while (s.room() && alpha > 0.0) {
        const double e = s.energy_at(alpha);
        if (std::isfinite(e) && e <= e0 + s.params.armijo * alpha * slope) {
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

// Backtracking on the residual norm: ||r(alpha)|| <= (1 - c alpha) ||r(0)||.
void residual_backtracking(Search& s, const ResidualNorm& norm, bool weighted, double r0) {
    auto measure = [&](const VecX& g) { return weighted ? norm.weighted(g) : norm.l2(g); };
    VecX g;
    double alpha = s.alpha_max, best_alpha = 0.0, best_r = r0;
    while (s.room() && alpha > 0.0) {
        s.trial = s.x + alpha * s.dx;
        ++s.result.trials;
        if (s.problem.trial_gradient(s.trial, g)) {
            const double r = measure(g);
            if (std::isfinite(r) && r <= (1.0 - s.params.armijo * alpha) * r0) {
                s.accept(alpha, true);
                return;
            }
            if (std::isfinite(r) && r < best_r) {
                best_r = r;
                best_alpha = alpha;
            }
        }
        alpha *= s.params.backtrack_factor;
    }
    s.accept(best_alpha, false);
}

// Strong Wolfe (Nocedal and Wright, Algorithms 3.5 and 3.6) with the bracket's upper end at
// alpha_max: the search may not extrapolate past the CCD cap, so a step at the cap that still
// descends is accepted on the Armijo condition alone.
void strong_wolfe(Search& s, double e0, double slope) {
    const double c1 = s.params.armijo, c2 = s.params.wolfe_curvature;
    VecX g;
    auto derivative = [&](double& d) {  // at s.trial
        if (!s.problem.trial_gradient(s.trial, g)) return false;
        d = g.dot(s.dx);
        return std::isfinite(d);
    };
    auto armijo = [&](double alpha, double e) {
        return std::isfinite(e) && e <= e0 + c1 * alpha * slope;
    };
    const double e_max = s.energy_at(s.alpha_max);
    double lo = 0.0, e_lo = e0, d_lo = slope, hi = s.alpha_max, e_hi = e_max;
    double armijo_at_cap = 0.0;  // alpha_max when it satisfies Armijo: the fallback
    if (armijo(s.alpha_max, e_max)) {
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
        // Overshot the minimum along the line: it lies in (0, alpha_max); keep the bracket
        // with lo = 0, hi = alpha_max.
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
        const double e = s.energy_at(alpha);
        if (!armijo(alpha, e) || e >= e_lo) {
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
    Search s{problem, params, x, dx, alpha_max, {}, {}};
    if (!(alpha_max > 0.0)) return s.result;
    const double slope = std::min(g.dot(dx), 0.0);
    switch (params.line_search) {
        case LineSearchType::Backtracking: backtracking(s, problem.energy(x), slope); break;
        case LineSearchType::StrongWolfe: strong_wolfe(s, problem.energy(x), slope); break;
        case LineSearchType::ResidualNorm:
            residual_backtracking(s, norm, weighted_residual,
                                  weighted_residual ? norm.weighted(g) : norm.l2(g));
            break;
    }
    if (s.result.improved) x_new = x + s.result.alpha * dx;
    return s.result;
}

}  // namespace concord
