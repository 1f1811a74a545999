#include "concord/solver/solver_params.hpp"

#include <cmath>
#include <sstream>

#include "concord/math/error.hpp"

namespace concord {

namespace {

struct Checker {
    const std::string& prefix;
    [[noreturn]] void fail(const char* key, const std::string& what, double value) const {
        std::ostringstream os;
        os << prefix << "." << key << ": " << what << ", got " << value;
        throw InputError(os.str());
    }
    void non_negative(const char* key, double v) const {
        if (!(v >= 0.0) || !std::isfinite(v)) fail(key, "expected a non-negative number", v);
    }
    void positive(const char* key, double v) const {
        if (!(v > 0.0) || !std::isfinite(v)) fail(key, "expected a positive number", v);
    }
    void at_least(const char* key, int v, int min) const {
        if (v < min) fail(key, "expected an integer >= " + std::to_string(min), v);
    }
    void fraction(const char* key, double v) const {
        if (!(v > 0.0 && v < 1.0)) fail(key, "expected a number in (0, 1)", v);
    }
};

}  // namespace

void validate_solver_params(const SolverParams& p, const std::string& prefix) {
    const Checker c{prefix};
    c.at_least("max_iterations", p.max_iterations, 0);
    c.at_least("min_iterations", p.min_iterations, 0);
    c.non_negative("abs_tol", p.abs_tol);
    c.non_negative("rel_tol", p.rel_tol);
    c.non_negative("rel_step_tol", p.rel_step_tol);
    c.non_negative("max_time", p.max_time);
    c.positive("step_tol", p.step_tol);
    c.positive("translation_rate_tol", p.translation_rate_tol);
    c.positive("affine_rate_tol", p.affine_rate_tol);
    if (!(p.divergence_factor > 1.0))
        c.fail("divergence_factor", "expected a number > 1", p.divergence_factor);
    c.fraction("armijo", p.armijo);
    c.fraction("wolfe_curvature", p.wolfe_curvature);
    if (!(p.wolfe_curvature > p.armijo))
        c.fail("wolfe_curvature", "expected a number above armijo", p.wolfe_curvature);
    c.fraction("backtrack_factor", p.backtrack_factor);
    c.at_least("max_line_search_trials", p.max_line_search_trials, 1);
    c.at_least("max_halvings", p.max_halvings, 0);
    if (p.max_halvings > 30) c.fail("max_halvings", "expected an integer <= 30", p.max_halvings);
    c.positive("linear_solver.tolerance", p.linear.tolerance);
    c.at_least("linear_solver.max_iterations", p.linear.max_iterations, 1);
    c.at_least("linear_solver.restart", p.linear.gmres_restart, 1);
    c.at_least("linear_solver.direct_max_dofs", p.linear.direct_max_dofs, 0);
    c.at_least("linear_solver.block_size", p.linear.block_size, 1);
}

}  // namespace concord
