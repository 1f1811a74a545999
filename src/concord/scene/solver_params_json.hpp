// The scene file's "solver" object <-> SolverParams (keys documented in docs/solver.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "concord/scene/json_node.hpp"
#include "concord/solver/solver_params.hpp"

namespace concord {

/// Reads a "solver" object; missing keys keep their defaults. Unknown keys, wrong types and
/// out-of-range values throw InputError "SOURCE: solver.key: message" naming the key path,
/// e.g. "a.json: solver.linear_solver.type: expected one of auto, ldlt, cg, minres, gmres,
/// got \"lu\"". The first simulator's keys are still accepted: "tolerance" (= step_tol, and
/// convergence_mode step_norm unless given), "cg_max_iterations", "cg_tolerance" and a string
/// "linear_solver" (= its type); giving one together with its new key is an error.
SolverParams parse_solver_params(const JsonNode& node);

/// The same for a bare JSON value found at `key_path` (e.g. "solver"); messages start with
/// "SOURCE: " only when `source` is not empty.
SolverParams parse_solver_params(const nlohmann::json& j, const std::string& key_path,
                                 const std::string& source = "");

/// Every scene key with its value (enums by name), so that
/// parse_solver_params(solver_params_to_json(p)) == p for every p whose C++-only members
/// (armijo, wolfe_curvature, backtrack_factor, max_line_search_trials, divergence_factor,
/// linear.block_size) have their defaults.
nlohmann::json solver_params_to_json(const SolverParams& params);

}  // namespace concord
