#include "concord/scene/solver_params_json.hpp"

#include "concord/math/error.hpp"
#include "concord/solver/solver_enum_names.hpp"

namespace concord {

namespace {

template <typename E>
E enum_value(const JsonNode& node) {
    if (!node.value().is_string())
        node.fail("expected one of " + enum_name_list<E>() + ", got " + node.describe());
    const auto v = enum_from_string<E>(node.value().get<std::string>());
    if (!v) node.fail("expected one of " + enum_name_list<E>() + ", got " + node.describe());
    return *v;
}

constexpr int kMaxCount = 1'000'000'000;

void parse_linear_solver(const JsonNode& node, LinearSolverParams& p) {
    node.expect_object(
        {"type", "tolerance", "max_iterations", "preconditioner", "restart", "direct_max_dofs"});
    if (auto n = node.find("type")) p.type = enum_value<LinearSolverType>(*n);
    if (auto n = node.find("tolerance")) p.tolerance = n->positive_number();
    if (auto n = node.find("max_iterations")) p.max_iterations = n->integer(1, kMaxCount);
    if (auto n = node.find("preconditioner")) p.preconditioner = enum_value<PreconditionerType>(*n);
    if (auto n = node.find("restart")) p.gmres_restart = n->integer(1, 100000);
    if (auto n = node.find("direct_max_dofs")) p.direct_max_dofs = n->integer(0, kMaxCount);
}

// A legacy key may not be combined with the key that replaced it.
void forbid_both(const JsonNode& node, const char* legacy, bool replacement_given,
                 const char* replacement) {
    if (replacement_given && node.has(legacy))
        node.child(legacy).fail(std::string("deprecated key given together with ") + replacement);
}

}  // namespace

SolverParams parse_solver_params(const JsonNode& node) {
    node.expect_object({"max_iterations", "abs_tol", "rel_tol", "rel_step_tol", "max_time",
                        "stop_on_no_improvement", "convergence_mode", "step_tol",
                        "translation_rate_tol", "affine_rate_tol",
                        "explosion_control", "line_search", "psd_projection", "linear_solver",
                        "islands", "on_failure", "max_halvings", "verbosity",
                        // the first simulator's keys
                        "tolerance", "cg_max_iterations", "cg_tolerance"});
    SolverParams p;
    if (auto n = node.find("max_iterations")) p.max_iterations = n->integer(0, kMaxCount);
    if (auto n = node.find("abs_tol")) p.abs_tol = n->non_negative_number();
    if (auto n = node.find("rel_tol")) p.rel_tol = n->non_negative_number();
    if (auto n = node.find("rel_step_tol")) p.rel_step_tol = n->non_negative_number();
    if (auto n = node.find("max_time")) p.max_time = n->non_negative_number();
    if (auto n = node.find("stop_on_no_improvement")) p.stop_on_no_improvement = n->boolean();
    if (auto n = node.find("convergence_mode"))
        p.convergence_mode = enum_value<ConvergenceMode>(*n);
    if (auto n = node.find("step_tol")) p.step_tol = n->positive_number();
    if (auto n = node.find("translation_rate_tol")) p.translation_rate_tol = n->positive_number();
    if (auto n = node.find("affine_rate_tol")) p.affine_rate_tol = n->positive_number();
    if (auto n = node.find("explosion_control")) p.explosion_control = n->boolean();
    if (auto n = node.find("line_search")) p.line_search = enum_value<LineSearchType>(*n);
    if (auto n = node.find("psd_projection")) p.psd_projection = enum_value<PsdProjectionMode>(*n);
    bool linear_object = false;
    if (auto n = node.find("linear_solver")) {
        if (n->value().is_string()) {
            p.linear.type = enum_value<LinearSolverType>(*n);  // legacy: the type alone
        } else {
            parse_linear_solver(*n, p.linear);
            linear_object = true;
        }
    }
    if (auto n = node.find("islands")) p.islands = n->boolean();
    if (auto n = node.find("on_failure")) p.on_failure = enum_value<FailurePolicy>(*n);
    if (auto n = node.find("max_halvings")) p.max_halvings = n->integer(0, 30);
    if (auto n = node.find("verbosity")) p.verbosity = enum_value<Verbosity>(*n);

    forbid_both(node, "tolerance", node.has("step_tol"), "step_tol");
    if (auto n = node.find("tolerance")) {
        p.step_tol = n->positive_number();
        if (!node.has("convergence_mode")) p.convergence_mode = ConvergenceMode::StepNorm;
    }
    const JsonNode* linear = nullptr;
    std::optional<JsonNode> linear_node = node.find("linear_solver");
    if (linear_object) linear = &*linear_node;
    forbid_both(node, "cg_max_iterations", linear && linear->has("max_iterations"),
                "linear_solver.max_iterations");
    forbid_both(node, "cg_tolerance", linear && linear->has("tolerance"),
                "linear_solver.tolerance");
    if (auto n = node.find("cg_max_iterations")) p.linear.max_iterations = n->integer(1, kMaxCount);
    if (auto n = node.find("cg_tolerance")) p.linear.tolerance = n->positive_number();
    try {
        validate_solver_params(p, node.path().empty() ? "solver" : node.path());
    } catch (const InputError& e) {
        if (node.source().empty()) throw;
        throw InputError(node.source() + ": " + e.what());
    }
    return p;
}

SolverParams parse_solver_params(const nlohmann::json& j, const std::string& key_path,
                                 const std::string& source) {
    try {
        return parse_solver_params(JsonNode(j, source, key_path));
    } catch (const InputError& e) {
        if (!source.empty()) throw;
        std::string message = e.what();
        if (message.rfind(": ", 0) == 0) message.erase(0, 2);  // no source: drop its separator
        throw InputError(message);
    }
}

nlohmann::json solver_params_to_json(const SolverParams& p) {
    auto name = [](auto v) { return std::string(to_string(v)); };
    return nlohmann::json{
        {"max_iterations", p.max_iterations},
        {"abs_tol", p.abs_tol},
        {"rel_tol", p.rel_tol},
        {"rel_step_tol", p.rel_step_tol},
        {"max_time", p.max_time},
        {"stop_on_no_improvement", p.stop_on_no_improvement},
        {"convergence_mode", name(p.convergence_mode)},
        {"step_tol", p.step_tol},
        {"translation_rate_tol", p.translation_rate_tol},
        {"affine_rate_tol", p.affine_rate_tol},
        {"explosion_control", p.explosion_control},
        {"line_search", name(p.line_search)},
        {"psd_projection", name(p.psd_projection)},
        {"linear_solver",
         {{"type", name(p.linear.type)},
          {"tolerance", p.linear.tolerance},
          {"max_iterations", p.linear.max_iterations},
          {"preconditioner", name(p.linear.preconditioner)},
          {"restart", p.linear.gmres_restart},
          {"direct_max_dofs", p.linear.direct_max_dofs}}},
        {"islands", p.islands},
        {"on_failure", name(p.on_failure)},
        {"max_halvings", p.max_halvings},
        {"verbosity", name(p.verbosity)},
    };
}

}  // namespace concord
