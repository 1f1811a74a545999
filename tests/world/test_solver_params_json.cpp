// The scene's "solver" object: every key, defaults, legacy keys, errors naming the key path.
// (Here rather than in tests/scene because it exercises the solver's parameter struct.)
#include <gtest/gtest.h>

#include "concord/math/error.hpp"
#include "concord/scene/solver_params_json.hpp"

using namespace concord;
using nlohmann::json;

namespace {

std::string error_of(const json& j) {
    try {
        parse_solver_params(j, "solver", "a.json");
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST(SolverParamsJson, EmptyObjectGivesTheDefaults) {
    const SolverParams p = parse_solver_params(json::object(), "solver");
    EXPECT_EQ(p, SolverParams{});
    EXPECT_EQ(p.max_iterations, 100);
    EXPECT_EQ(p.abs_tol, 1e-3);
    EXPECT_EQ(p.rel_tol, 1e-6);
    EXPECT_EQ(p.rel_step_tol, 10 * std::numeric_limits<double>::epsilon());
    EXPECT_EQ(p.max_time, 0.0);
    EXPECT_FALSE(p.stop_on_no_improvement);
    EXPECT_EQ(p.convergence_mode, ConvergenceMode::PerBodyWeighted);
    EXPECT_EQ(p.line_search, LineSearchType::Backtracking);
    EXPECT_EQ(p.psd_projection, PsdProjectionMode::Always);
    EXPECT_EQ(p.linear.type, LinearSolverType::Auto);
    EXPECT_EQ(p.linear.preconditioner, PreconditionerType::PerBody);
    EXPECT_TRUE(p.islands);
    EXPECT_EQ(p.on_failure, FailurePolicy::Continue);
    EXPECT_EQ(p.verbosity, Verbosity::Silent);
}

TEST(SolverParamsJson, EveryKeyIsReadAndWrittenBack) {
    const json j = json::parse(R"({
        "max_iterations": 7, "abs_tol": 1e-4, "rel_tol": 1e-5, "rel_step_tol": 1e-12,
        "max_time": 0.25, "stop_on_no_improvement": true, "convergence_mode": "global",
        "step_tol": 0.005, "translation_rate_tol": 0.02, "affine_rate_tol": 0.3,
        "explosion_control": false, "line_search": "strong_wolfe",
        "psd_projection": "if_fail_always",
        "linear_solver": {"type": "gmres", "tolerance": 1e-6, "max_iterations": 50,
                          "preconditioner": "incomplete_cholesky", "restart": 12,
                          "direct_max_dofs": 1200},
        "islands": false, "on_failure": "retry_halving", "max_halvings": 3,
        "verbosity": "verbose"})");
    const SolverParams p = parse_solver_params(j, "solver");
    EXPECT_EQ(p.max_iterations, 7);
    EXPECT_EQ(p.abs_tol, 1e-4);
    EXPECT_EQ(p.rel_tol, 1e-5);
    EXPECT_EQ(p.rel_step_tol, 1e-12);
    EXPECT_EQ(p.max_time, 0.25);
    EXPECT_TRUE(p.stop_on_no_improvement);
    EXPECT_EQ(p.convergence_mode, ConvergenceMode::Global);
    EXPECT_EQ(p.step_tol, 0.005);
    EXPECT_EQ(p.translation_rate_tol, 0.02);
    EXPECT_EQ(p.affine_rate_tol, 0.3);
    EXPECT_FALSE(p.explosion_control);
    EXPECT_EQ(p.line_search, LineSearchType::StrongWolfe);
    EXPECT_EQ(p.psd_projection, PsdProjectionMode::IfFailAlways);
    EXPECT_EQ(p.linear.type, LinearSolverType::GMRES);
    EXPECT_EQ(p.linear.tolerance, 1e-6);
    EXPECT_EQ(p.linear.max_iterations, 50);
    EXPECT_EQ(p.linear.preconditioner, PreconditionerType::IncompleteCholesky);
    EXPECT_EQ(p.linear.gmres_restart, 12);
    EXPECT_EQ(p.linear.direct_max_dofs, 1200);
    EXPECT_FALSE(p.islands);
    EXPECT_EQ(p.on_failure, FailurePolicy::RetryHalving);
    EXPECT_EQ(p.max_halvings, 3);
    EXPECT_EQ(p.verbosity, Verbosity::Verbose);
    EXPECT_EQ(solver_params_to_json(p), j);
    EXPECT_EQ(parse_solver_params(solver_params_to_json(p), "solver"), p);
    EXPECT_EQ(parse_solver_params(solver_params_to_json(SolverParams{}), "solver"), SolverParams{});
}

TEST(SolverParamsJson, LegacyKeysStillWork) {
    const SolverParams p = parse_solver_params(
        json::parse(R"({"tolerance": 1e-3, "linear_solver": "cg", "cg_max_iterations": 77,
                        "cg_tolerance": 1e-6})"),
        "solver");
    EXPECT_EQ(p.step_tol, 1e-3);
    EXPECT_EQ(p.convergence_mode, ConvergenceMode::StepNorm);  // what "tolerance" meant
    EXPECT_EQ(p.linear.type, LinearSolverType::CG);
    EXPECT_EQ(p.linear.max_iterations, 77);
    EXPECT_EQ(p.linear.tolerance, 1e-6);
    const SolverParams q = parse_solver_params(
        json::parse(R"({"tolerance": 1e-3, "convergence_mode": "global"})"), "solver");
    EXPECT_EQ(q.convergence_mode, ConvergenceMode::Global);
    EXPECT_NE(error_of(json::parse(R"({"tolerance": 1e-3, "step_tol": 1e-3})")).find("step_tol"),
              std::string::npos);
    EXPECT_EQ(
        error_of(json::parse(R"({"cg_tolerance": 1e-3, "linear_solver": {"tolerance": 1e-4}})")),
        "a.json: solver.cg_tolerance: deprecated key given together with linear_solver.tolerance");
}

TEST(SolverParamsJson, ErrorsNameTheKeyPath) {
    EXPECT_EQ(error_of(json::parse(R"({"linear_solver": {"type": "lu"}})")),
              "a.json: solver.linear_solver.type: expected one of auto, ldlt, cg, minres, gmres, "
              "got \"lu\"");
    EXPECT_EQ(error_of(json::parse(R"({"line_search": 3})")),
              "a.json: solver.line_search: expected one of backtracking, residual_norm, "
              "strong_wolfe, got 3");
    EXPECT_NE(error_of(json::parse(R"({"abs_tol": -1})")).find("a.json: solver.abs_tol:"),
              std::string::npos);
    EXPECT_NE(error_of(json::parse(R"({"islands": "yes"})")).find("a.json: solver.islands:"),
              std::string::npos);
    EXPECT_NE(error_of(json::parse(R"({"newton": {}})")).find("a.json: solver.newton: unknown key"),
              std::string::npos);
    EXPECT_NE(error_of(json::parse(R"({"linear_solver": {"restart": 0}})"))
                  .find("a.json: solver.linear_solver.restart:"),
              std::string::npos);
    EXPECT_NE(error_of(json::parse(R"({"max_halvings": 31})")).find("solver.max_halvings"),
              std::string::npos);
    EXPECT_NE(error_of(json::parse(R"([1, 2])")).find("a.json: solver: expected an object"),
              std::string::npos);
    // Without a source the message starts at the key path.
    try {
        parse_solver_params(json::parse(R"({"psd_projection": "sometimes"})"), "solver");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(
            std::string(e.what()).rfind("solver.psd_projection: expected one of always, never, "
                                        "if_fail_retry, if_fail_always",
                                        0),
            0u)
            << e.what();
    }
}
