// Solver options (SolverParams, LinearSolverParams) and what steps and solves report
// (StepStats, SolverStats, IslandStats, NewtonStats, NewtonIteration).
#include <pybind11/numpy.h>
#include <pybind11/operators.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "concord/io/step_stats_json.hpp"
#include "concord/scene/solver_params_json.hpp"
#include "concord/solver/solver_enum_names.hpp"
#include "concord/world/step_stats.hpp"

namespace concord::python {

namespace {

py::array_t<double> to_array(const std::vector<double>& v) {
    py::array_t<double> a(static_cast<py::ssize_t>(v.size()));
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
}

/// Sets attributes from keyword arguments, so that SolverParams(max_iterations=5) works and a
/// misspelt keyword raises AttributeError instead of being ignored.
void set_from_kwargs(py::object self, const py::kwargs& kwargs) {
    for (const auto& [key, value] : kwargs) {
        const std::string k = key.cast<std::string>();
        if (!py::hasattr(self, k.c_str()) || k.rfind('_', 0) == 0)
            throw py::attribute_error(std::string(py::str(self.get_type().attr("__name__"))) +
                                      " has no option '" + k + "'");
        self.attr(k.c_str()) = value;
    }
}

/// The residual history of the island with the most Newton iterations (the first on ties),
/// its solves (friction lag rounds) one after the other: the solve StepStats summarise.
std::vector<double> main_residual_history(const SolverStats& s) {
    const IslandStats* best = nullptr;
    for (const auto& island : s.islands)
        if (!best || island.iterations > best->iterations) best = &island;
    std::vector<double> h;
    if (!best) return h;
    for (const auto& solve : best->solves)
        h.insert(h.end(), solve.residual_history.begin(), solve.residual_history.end());
    return h;
}

}  // namespace

void bind_solver(py::module_& m) {
    py::class_<LinearSolverParams>(m, "LinearSolverParams",
                                   "The linear solve inside every Newton iteration (scene key "
                                   "solver.linear_solver; docs/solver.md).")
        .def(py::init<>())
        .def(py::init([](const py::kwargs& kwargs) {
                 py::object self = py::cast(LinearSolverParams{});
                 set_from_kwargs(self, kwargs);
                 return self.cast<LinearSolverParams>();
             }),
             "LinearSolverParams(**options): defaults, then the given options.")
        .def_readwrite("type", &LinearSolverParams::type,
                       "LinearSolverType; auto = LDLT up to direct_max_dofs unknowns, CG above.")
        .def_readwrite("direct_max_dofs", &LinearSolverParams::direct_max_dofs,
                       "Threshold of LinearSolverType.auto (default 60000).")
        .def_readwrite("tolerance", &LinearSolverParams::tolerance,
                       "Relative residual at which iterative solvers stop (default 1e-8).")
        .def_readwrite("max_iterations", &LinearSolverParams::max_iterations,
                       "Iterations of the iterative solvers (default 1000).")
        .def_readwrite("preconditioner", &LinearSolverParams::preconditioner,
                       "PreconditionerType (default per_body); ignored by LDLT.")
        .def_readwrite("gmres_restart", &LinearSolverParams::gmres_restart,
                       "Krylov basis size m of GMRES(m) (scene key 'restart', default 30).")
        .def_readwrite("block_size", &LinearSolverParams::block_size,
                       "Block of the per-body preconditioner (C++ only, default 12).")
        .def(py::self == py::self)
        .def(py::pickle([](const LinearSolverParams& p) {
                            return py::make_tuple(p.type, p.direct_max_dofs, p.tolerance,
                                                  p.max_iterations, p.preconditioner,
                                                  p.gmres_restart, p.block_size);
                        },
                        [](const py::tuple& t) {
                            LinearSolverParams p;
                            p.type = t[0].cast<LinearSolverType>();
                            p.direct_max_dofs = t[1].cast<int>();
                            p.tolerance = t[2].cast<double>();
                            p.max_iterations = t[3].cast<int>();
                            p.preconditioner = t[4].cast<PreconditionerType>();
                            p.gmres_restart = t[5].cast<int>();
                            p.block_size = t[6].cast<int>();
                            return p;
                        }));

    py::class_<SolverParams>(
        m, "SolverParams",
        "Every option of the time-step solve, with the defaults of the scene's \"solver\" "
        "object (docs/solver.md, docs/scene-format.md). Values are checked when the parameters "
        "are given to a World (World.solver_params = p) or by validate().")
        .def(py::init<>())
        .def(py::init([](const py::kwargs& kwargs) {
                 py::object self = py::cast(SolverParams{});
                 set_from_kwargs(self, kwargs);
                 return self.cast<SolverParams>();
             }),
             "SolverParams(**options): defaults, then the given options, e.g. "
             "SolverParams(max_iterations=20, line_search=LineSearchType.strong_wolfe).")
        .def_static(
            "from_dict",
            [](const py::dict& d) { return parse_solver_params(to_json(d, "solver"), "solver"); },
            py::arg("solver"),
            "Reads a scene file's \"solver\" object (keys as in docs/scene-format.md). Raises "
            "InputError naming the key path for an unknown key or a bad value.")
        .def(
            "to_dict", [](const SolverParams& p) { return from_json(solver_params_to_json(p)); },
            "The scene file's \"solver\" object for these options (enums by name).")
        .def(
            "validate", [](const SolverParams& p) { validate_solver_params(p, "solver"); },
            "Raises InputError \"solver.KEY: ...\" for a value out of range.")
        .def_readwrite("max_iterations", &SolverParams::max_iterations,
                       "Nonlinear updates per Newton solve (default 100).")
        .def_readwrite("abs_tol", &SolverParams::abs_tol,
                       "Absolute residual tolerance, modes per_body_weighted and global (1e-3).")
        .def_readwrite("rel_tol", &SolverParams::rel_tol,
                       "Residual tolerance relative to the solve's first residual (1e-6).")
        .def_readwrite("rel_step_tol", &SolverParams::rel_step_tol,
                       "Stop when |dq| <= rel_step_tol |q| (default 10 machine epsilons).")
        .def_readwrite("max_time", &SolverParams::max_time,
                       "Wall-clock seconds per step and island; 0 = no limit.")
        .def_readwrite("stop_on_no_improvement", &SolverParams::stop_on_no_improvement,
                       "Stop when a line search cannot improve at all (default False).")
        .def_readwrite("convergence_mode", &SolverParams::convergence_mode,
                       "ConvergenceMode (default per_body_weighted).")
        .def_readwrite("step_tol", &SolverParams::step_tol,
                       "step_norm tolerance on |dq|_inf / (h l) (default 1e-2).")
        .def_readwrite("translation_rate_tol", &SolverParams::translation_rate_tol,
                       "step_rate tolerance on |dp|_inf / h in m/s (default 0.05).")
        .def_readwrite("affine_rate_tol", &SolverParams::affine_rate_tol,
                       "step_rate tolerance on |dA_ij| / h in 1/s (default 0.1).")
        .def_readwrite("explosion_control", &SolverParams::explosion_control,
                       "A non-finite or exploding residual counts as diverged (default True).")
        .def_readwrite("divergence_factor", &SolverParams::divergence_factor,
                       "Residual growth counted as divergence (C++ only, default 1e12).")
        .def_readwrite("line_search", &SolverParams::line_search,
                       "LineSearchType (default backtracking).")
        .def_readwrite("psd_projection", &SolverParams::psd_projection,
                       "PsdProjectionMode: when Hessian blocks are projected (default always).")
        .def_readwrite("linear", &SolverParams::linear,
                       "LinearSolverParams (scene key linear_solver); edit in place, e.g. "
                       "p.linear.type = LinearSolverType.cg.")
        .def_readwrite("armijo", &SolverParams::armijo,
                       "Sufficient-decrease constant (C++ only, default 1e-4).")
        .def_readwrite("wolfe_curvature", &SolverParams::wolfe_curvature,
                       "c2 of the strong Wolfe condition (C++ only, default 0.9).")
        .def_readwrite("backtrack_factor", &SolverParams::backtrack_factor,
                       "Step shrink per rejected trial (C++ only, default 0.5).")
        .def_readwrite("max_line_search_trials", &SolverParams::max_line_search_trials,
                       "Trials per line search (C++ only, default 60).")
        .def_readwrite("islands", &SolverParams::islands,
                       "Solve independent groups of bodies separately (default True).")
        .def_readwrite("on_failure", &SolverParams::on_failure,
                       "FailurePolicy (default continue).")
        .def_readwrite("max_halvings", &SolverParams::max_halvings,
                       "retry_halving: smallest step is time_step / 2^max_halvings (default 4).")
        .def_readwrite("verbosity", &SolverParams::verbosity, "Verbosity (default silent).")
        .def(py::self == py::self)
        .def("__repr__",
             [](const SolverParams& p) {
                 return "SolverParams(" + solver_params_to_json(p).dump() + ")";
             })
        .def(py::pickle(
            [](const SolverParams& p) {
                // The scene keys travel as their JSON text, the C++-only members one by one.
                return py::make_tuple(solver_params_to_json(p).dump(), p.divergence_factor,
                                      p.armijo, p.wolfe_curvature, p.backtrack_factor,
                                      p.max_line_search_trials, p.linear.block_size);
            },
            [](const py::tuple& t) {
                SolverParams p = parse_solver_params(
                    nlohmann::json::parse(t[0].cast<std::string>()), "solver");
                p.divergence_factor = t[1].cast<double>();
                p.armijo = t[2].cast<double>();
                p.wolfe_curvature = t[3].cast<double>();
                p.backtrack_factor = t[4].cast<double>();
                p.max_line_search_trials = t[5].cast<int>();
                p.linear.block_size = t[6].cast<int>();
                return p;
            }));

    py::class_<StepStats>(m, "StepStats",
                          "The summary of one World.step (the \"stats\" of a frames.jsonl line).")
        .def_readonly("status", &StepStats::status, "ConvergenceStatus, worst over islands.")
        .def_readonly("stop_reason", &StepStats::stop_reason, "StopReason of the worst solve.")
        .def_readonly("newton_iterations", &StepStats::newton_iterations,
                      "Per substep the largest island's count, summed.")
        .def_readonly("converged", &StepStats::converged, "status == converged.")
        .def_readonly("residual", &StepStats::residual, "Final convergence measure.")
        .def_readonly("contacts", &StepStats::contacts,
                      "Active barrier pairs (distance < dhat) at the end of the step.")
        .def_readonly("body_contacts", &StepStats::body_contacts,
                      "Per body, the active pairs it takes part in (list of int; a "
                      "point-plane pair counts for its body only).")
        .def_readonly("candidates", &StepStats::candidates, "Broad-phase candidates (peak).")
        .def_readonly("min_distance", &StepStats::min_distance,
                      "Smallest distance over all contact candidates, m (inf if none).")
        .def_readonly("barrier_stiffness", &StepStats::barrier_stiffness, "kappa.")
        .def_readonly("line_search_trials", &StepStats::line_search_trials)
        .def_readonly("ccd_limited_steps", &StepStats::ccd_limited_steps)
        .def_readonly("al_switches", &StepStats::al_switches)
        .def_readonly("linear_solver_iterations", &StepStats::linear_solver_iterations)
        .def_readonly("islands", &StepStats::islands)
        .def_readonly("substeps", &StepStats::substeps, "Implicit steps taken (retry-halving).")
        .def_readonly("retries", &StepStats::retries)
        .def_readonly("time_step", &StepStats::time_step, "Smallest substep time step, s.")
        .def_readonly("t_coll", &StepStats::t_coll, "Collision time, s.")
        .def_readonly("t_assembly", &StepStats::t_assembly, "s")
        .def_readonly("t_linear", &StepStats::t_linear, "s")
        .def_readonly("t_line_search", &StepStats::t_line_search, "s")
        .def_readonly("t_solve", &StepStats::t_solve, "s")
        .def_readonly("t_frame", &StepStats::t_frame, "Whole step (wall clock), s.")
        .def(
            "to_dict", [](const StepStats& s) { return from_json(step_stats_to_json(s)); },
            "The frames.jsonl \"stats\" object (min_distance None when infinite).")
        .def("__repr__", [](const StepStats& s) {
            return "StepStats(" + step_stats_to_json(s).dump() + ")";
        });

    py::class_<NewtonIteration>(m, "NewtonIteration", "One Newton iteration.")
        .def_readonly("residual", &NewtonIteration::residual, "Convergence measure at the iterate.")
        .def_readonly("direction_norm", &NewtonIteration::direction_norm, "|dq|_2.")
        .def_readonly("max_step", &NewtonIteration::max_step, "CCD cap on the step fraction.")
        .def_readonly("step", &NewtonIteration::step, "Accepted step fraction (0: none).")
        .def_readonly("line_search_trials", &NewtonIteration::line_search_trials)
        .def_readonly("linear_solver", &NewtonIteration::linear_solver,
                      "LinearSolverType actually used.")
        .def_readonly("linear_iterations", &NewtonIteration::linear_iterations)
        .def_readonly("linear_residual", &NewtonIteration::linear_residual)
        .def_readonly("psd_projected", &NewtonIteration::psd_projected)
        .def_readonly("psd_retry", &NewtonIteration::psd_retry)
        .def_readonly("fallback_direction", &NewtonIteration::fallback_direction);

    py::class_<NewtonStats>(m, "NewtonStats", "One Newton solve.")
        .def_readonly("status", &NewtonStats::status)
        .def_readonly("stop_reason", &NewtonStats::stop_reason)
        .def_readonly("iterations", &NewtonStats::iterations)
        .def_property_readonly(
            "residual_history",
            [](const NewtonStats& s) { return to_array(s.residual_history); },
            "numpy array: the convergence measure at every iterate, the start included.")
        .def_readonly("history", &NewtonStats::history, "list of NewtonIteration.")
        .def_property_readonly("final_residual", &NewtonStats::final_residual)
        .def_readonly("line_search_trials", &NewtonStats::line_search_trials)
        .def_readonly("ccd_limited", &NewtonStats::ccd_limited)
        .def_readonly("al_switches", &NewtonStats::al_switches)
        .def_readonly("linear_iterations", &NewtonStats::linear_iterations)
        .def_readonly("psd_retries", &NewtonStats::psd_retries)
        .def_readonly("fallback_directions", &NewtonStats::fallback_directions)
        .def_readonly("t_total", &NewtonStats::t_total);

    py::class_<IslandStats>(m, "IslandStats", "One island's part of a step.")
        .def_readonly("bodies", &IslandStats::bodies, "Its movable bodies (indices), sorted.")
        .def_readonly("status", &IslandStats::status)
        .def_readonly("stop_reason", &IslandStats::stop_reason)
        .def_readonly("solves", &IslandStats::solves,
                      "list of NewtonStats, one per friction lag round.")
        .def_readonly("iterations", &IslandStats::iterations)
        .def_readonly("contacts", &IslandStats::contacts)
        .def_readonly("min_distance", &IslandStats::min_distance);

    py::class_<SolverStats>(m, "SolverStats",
                            "Everything the solver did in the last World.step "
                            "(World.get_solver_stats()).")
        .def_readonly("status", &SolverStats::status, "ConvergenceStatus of the step.")
        .def_readonly("stop_reason", &SolverStats::stop_reason, "StopReason of the worst solve.")
        .def_readonly("nonlinear_iterations", &SolverStats::nonlinear_iterations,
                      "As StepStats.newton_iterations.")
        .def_property_readonly(
            "iterations", [](const SolverStats& s) { return s.nonlinear_iterations; },
            "Alias of nonlinear_iterations.")
        .def_readonly("final_residual", &SolverStats::final_residual)
        .def_property_readonly(
            "residual_history",
            [](const SolverStats& s) { return to_array(main_residual_history(s)); },
            "numpy array: residual history of the island with the most Newton iterations "
            "(its friction rounds concatenated) in the last substep attempted; see islands "
            "for every solve.")
        .def_readonly("line_search_trials", &SolverStats::line_search_trials)
        .def_readonly("ccd_limited_steps", &SolverStats::ccd_limited_steps)
        .def_readonly("al_switches", &SolverStats::al_switches)
        .def_readonly("linear_iterations", &SolverStats::linear_iterations)
        .def_readonly("max_linear_residual", &SolverStats::max_linear_residual)
        .def_readonly("psd_retries", &SolverStats::psd_retries)
        .def_readonly("fallback_directions", &SolverStats::fallback_directions)
        .def_readonly("substeps", &SolverStats::substeps)
        .def_readonly("retries", &SolverStats::retries)
        .def_readonly("smallest_time_step", &SolverStats::smallest_time_step)
        .def_readonly("islands_enabled", &SolverStats::islands_enabled)
        .def_readonly("island_fallback", &SolverStats::island_fallback)
        .def_readonly("islands", &SolverStats::islands,
                      "list of IslandStats of the last substep attempted.")
        .def_readonly("t_islands", &SolverStats::t_islands)
        .def_readonly("t_collision", &SolverStats::t_collision)
        .def_readonly("t_assembly", &SolverStats::t_assembly)
        .def_readonly("t_linear", &SolverStats::t_linear)
        .def_readonly("t_line_search", &SolverStats::t_line_search)
        .def_readonly("t_total", &SolverStats::t_total, "Wall time of the step, s.");
}

}  // namespace concord::python
