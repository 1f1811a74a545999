// Every enum of the solver options and scenes, with the value names scene files and
// frames.jsonl use (so `LineSearchType.strong_wolfe.name == "strong_wolfe"`).
#include <string>

#include "bindings.hpp"
#include "concord/scene/scene_names.hpp"
#include "concord/solver/solver_enum_names.hpp"
#include "concord/world/contact_report.hpp"

namespace concord::python {

namespace {

/// Binds E with one value per entry of EnumNames<E> (the single list of names, so Python
/// cannot miss a value the C++ side adds).
template <typename E>
void bind_named_enum(py::module_& m, const char* name, const char* doc) {
    py::enum_<E> e(m, name, doc);
    for (const auto& [value, value_name] : EnumNames<E>::table)
        e.value(std::string(value_name).c_str(), value);
}

}  // namespace

void bind_enums(py::module_& m) {
    bind_named_enum<ConvergenceMode>(
        m, "ConvergenceMode",
        "How the Newton residual is tested for convergence (SolverParams.convergence_mode): "
        "per_body_weighted (default), global, step_norm, step_rate.");
    bind_named_enum<LineSearchType>(
        m, "LineSearchType",
        "Line search of every Newton iteration (SolverParams.line_search): backtracking "
        "(default), residual_norm, strong_wolfe.");
    bind_named_enum<PsdProjectionMode>(
        m, "PsdProjectionMode",
        "When Hessian blocks are projected to PSD (SolverParams.psd_projection): always "
        "(default), never, if_fail_retry, if_fail_always.");
    bind_named_enum<FailurePolicy>(
        m, "FailurePolicy",
        "What a step does when its solve does not converge (SolverParams.on_failure): continue "
        "(default), retry_halving.");
    bind_named_enum<Verbosity>(m, "Verbosity",
                               "Solver log lines through spdlog (SolverParams.verbosity): "
                               "silent (default), info, verbose.");
    bind_named_enum<LinearSolverType>(
        m, "LinearSolverType",
        "The linear solver of each Newton iteration (SolverParams.linear.type): auto (default), "
        "ldlt, cg, minres, gmres.");
    bind_named_enum<PreconditionerType>(
        m, "PreconditionerType",
        "Preconditioner of the iterative linear solvers (SolverParams.linear.preconditioner): "
        "none, jacobi, per_body (default), incomplete_cholesky.");
    bind_named_enum<ConvergenceStatus>(
        m, "ConvergenceStatus",
        "How a solve or step ended: converged, stopped (a limit was reached first; the state "
        "is usable), diverged (the step was not taken).");
    bind_named_enum<StopReason>(m, "StopReason",
                                "Why a solve stopped: residual, step_norm, step_rate, "
                                "relative_step, max_iterations, max_time, no_improvement, "
                                "diverged, cumulative_step.");

    py::enum_<MotionType> motion(m, "MotionType",
                                 "How a body moves: dynamic (simulated), static (never moves), "
                                 "kinematic (prescribed motion).");
    for (MotionType t : {MotionType::Dynamic, MotionType::Static, MotionType::Kinematic})
        motion.value(std::string(motion_type_name(t)).c_str(), t);

    py::enum_<ShapeKind> shape(m, "ShapeKind", "The kind of a Shape (its scene-file key).");
    for (ShapeKind k : {ShapeKind::Box, ShapeKind::Sphere, ShapeKind::Cylinder, ShapeKind::Capsule,
                        ShapeKind::Torus, ShapeKind::Mesh, ShapeKind::Container, ShapeKind::Funnel,
                        ShapeKind::Compound})
        shape.value(std::string(shape_kind_name(k)).c_str(), k);

    py::enum_<ContactKind>(m, "ContactKind",
                           "The primitives of a contact pair: point_triangle (vertex of body_a, "
                           "face of body_b), edge_edge, point_plane (vertex of body_a, plane "
                           "body_b).")
        .value("point_triangle", ContactKind::PointTriangle)
        .value("edge_edge", ContactKind::EdgeEdge)
        .value("point_plane", ContactKind::PointPlane);
}

}  // namespace concord::python
