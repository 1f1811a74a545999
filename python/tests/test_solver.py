"""SolverParams with every enum as a property; solver statistics."""

import pickle

import numpy as np

import concord
from conftest import box_on_plane

ENUMS = {
    concord.ConvergenceMode: ["per_body_weighted", "global", "step_norm", "step_rate"],
    concord.LineSearchType: ["backtracking", "residual_norm", "strong_wolfe"],
    concord.PsdProjectionMode: ["always", "never", "if_fail_retry", "if_fail_always"],
    concord.FailurePolicy: ["continue", "retry_halving"],
    concord.Verbosity: ["silent", "info", "verbose"],
    concord.LinearSolverType: ["auto", "ldlt", "cg", "minres", "gmres"],
    concord.PreconditionerType: ["none", "jacobi", "per_body", "incomplete_cholesky"],
    concord.ConvergenceStatus: ["converged", "stopped", "diverged"],
    concord.StopReason: ["residual", "step_norm", "step_rate", "relative_step",
                         "max_iterations", "max_time", "no_improvement", "diverged",
                         "cumulative_step"],
    concord.MotionType: ["dynamic", "static", "kinematic"],
    concord.ContactKind: ["point_triangle", "edge_edge", "point_plane"],
}


def test_enums_have_the_scene_file_names():
    for enum, names in ENUMS.items():
        assert list(enum.__members__) == names


def test_solver_params_defaults_and_properties():
    p = concord.SolverParams()
    assert p.convergence_mode == concord.ConvergenceMode.per_body_weighted
    assert p.line_search == concord.LineSearchType.backtracking
    assert p.psd_projection == concord.PsdProjectionMode.always
    assert p.linear.type == concord.LinearSolverType.auto
    assert p.verbosity == concord.Verbosity.silent
    assert p.max_iterations == 100 and p.abs_tol == 1e-3
    p.linear.type = concord.LinearSolverType.cg  # nested options edit in place
    assert p.linear.type == concord.LinearSolverType.cg
    q = concord.SolverParams(line_search=concord.LineSearchType.strong_wolfe, max_iterations=9)
    assert q.line_search.name == "strong_wolfe" and q.max_iterations == 9
    assert q.to_dict()["line_search"] == "strong_wolfe"
    assert concord.SolverParams.from_dict(q.to_dict()) == q
    assert pickle.loads(pickle.dumps(q)) == q
    assert q != p


def test_world_solver_params_are_set_by_assignment():
    w = concord.World(box_on_plane())
    p = w.solver_params
    p.psd_projection = concord.PsdProjectionMode.if_fail_retry
    # "global" is a Python keyword: reach that value by name.
    p.convergence_mode = concord.ConvergenceMode.__members__["global"]
    w.solver_params = p
    assert w.solver_params == p
    assert w.solver_params.psd_projection == concord.PsdProjectionMode.if_fail_retry


def test_solver_stats_of_a_converged_step():
    w = concord.World(box_on_plane())
    stats = w.step()
    assert stats.status == concord.ConvergenceStatus.converged and stats.converged
    s = w.get_solver_stats()
    assert s.status == concord.ConvergenceStatus.converged
    assert s.stop_reason in (concord.StopReason.residual, concord.StopReason.step_norm)
    assert s.iterations == stats.newton_iterations > 0
    h = s.residual_history
    assert isinstance(h, np.ndarray) and len(h) >= 2
    assert h[-1] == s.final_residual
    assert len(s.islands) >= 1 and len(s.islands[0].solves[0].history) > 0
    assert stats.to_dict()["newton_iterations"] == stats.newton_iterations


def test_iteration_limit_stops_the_solve(root):
    # Crates in contact (a free fall is quadratic: one Newton step solves it exactly).
    w = concord.World(root / "scenes/box-stack.json")
    p = w.solver_params
    p.max_iterations, p.abs_tol, p.rel_tol = 1, 0.0, 0.0
    w.solver_params = p
    w.step(3)  # the crates start 2 mm apart: contact from the third step on
    st = w.get_solver_stats()
    assert st.status == concord.ConvergenceStatus.stopped
    assert st.stop_reason == concord.StopReason.max_iterations
    assert st.iterations == 1 and len(st.residual_history) == 2
    assert w.last_stats.status == concord.ConvergenceStatus.stopped
    assert not w.last_stats.converged


def test_step_until():
    w = concord.World(box_on_plane(height=0.7))
    assert w.step_until(0.1) == 10
    assert abs(w.time - 0.1) < 1e-12 and w.step_count == 10
    assert w.step_until(0.1) == 0
