// The names of the solver's enums as scene files, frames.jsonl and log lines spell them.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "concord/solver/solver_params.hpp"
#include "concord/solver/solver_stats.hpp"

namespace concord {

/// EnumNames<E>::table lists every value of E with its name, in declaration order.
template <typename E>
struct EnumNames;

template <>
struct EnumNames<LinearSolverType> {
    static constexpr std::array<std::pair<LinearSolverType, std::string_view>, 5> table{{
        {LinearSolverType::Auto, "auto"},
        {LinearSolverType::LDLT, "ldlt"},
        {LinearSolverType::CG, "cg"},
        {LinearSolverType::MINRES, "minres"},
        {LinearSolverType::GMRES, "gmres"},
    }};
};

template <>
struct EnumNames<PreconditionerType> {
    static constexpr std::array<std::pair<PreconditionerType, std::string_view>, 4> table{{
        {PreconditionerType::None, "none"},
        {PreconditionerType::Jacobi, "jacobi"},
        {PreconditionerType::PerBody, "per_body"},
        {PreconditionerType::IncompleteCholesky, "incomplete_cholesky"},
    }};
};

template <>
struct EnumNames<ConvergenceMode> {
    static constexpr std::array<std::pair<ConvergenceMode, std::string_view>, 4> table{{
        {ConvergenceMode::PerBodyWeighted, "per_body_weighted"},
        {ConvergenceMode::Global, "global"},
        {ConvergenceMode::StepNorm, "step_norm"},
        {ConvergenceMode::StepRate, "step_rate"},
    }};
};

template <>
struct EnumNames<LineSearchType> {
    static constexpr std::array<std::pair<LineSearchType, std::string_view>, 3> table{{
        {LineSearchType::Backtracking, "backtracking"},
        {LineSearchType::ResidualNorm, "residual_norm"},
        {LineSearchType::StrongWolfe, "strong_wolfe"},
    }};
};

template <>
struct EnumNames<PsdProjectionMode> {
    static constexpr std::array<std::pair<PsdProjectionMode, std::string_view>, 4> table{{
        {PsdProjectionMode::Always, "always"},
        {PsdProjectionMode::Never, "never"},
        {PsdProjectionMode::IfFailRetry, "if_fail_retry"},
        {PsdProjectionMode::IfFailAlways, "if_fail_always"},
    }};
};

template <>
struct EnumNames<FailurePolicy> {
    static constexpr std::array<std::pair<FailurePolicy, std::string_view>, 2> table{{
        {FailurePolicy::Continue, "continue"},
        {FailurePolicy::RetryHalving, "retry_halving"},
    }};
};

template <>
struct EnumNames<Verbosity> {
    static constexpr std::array<std::pair<Verbosity, std::string_view>, 3> table{{
        {Verbosity::Silent, "silent"},
        {Verbosity::Info, "info"},
        {Verbosity::Verbose, "verbose"},
    }};
};

template <>
struct EnumNames<ConvergenceStatus> {
    static constexpr std::array<std::pair<ConvergenceStatus, std::string_view>, 3> table{{
        {ConvergenceStatus::Converged, "converged"},
        {ConvergenceStatus::Stopped, "stopped"},
        {ConvergenceStatus::Diverged, "diverged"},
    }};
};

template <>
struct EnumNames<StopReason> {
    static constexpr std::array<std::pair<StopReason, std::string_view>, 9> table{{
        {StopReason::Residual, "residual"},
        {StopReason::StepNorm, "step_norm"},
        {StopReason::StepRate, "step_rate"},
        {StopReason::RelativeStep, "relative_step"},
        {StopReason::MaxIterations, "max_iterations"},
        {StopReason::MaxTime, "max_time"},
        {StopReason::NoImprovement, "no_improvement"},
        {StopReason::Diverged, "diverged"},
        {StopReason::CumulativeStep, "cumulative_step"},
    }};
};

template <typename E>
constexpr std::string_view to_string(E value) {
    for (const auto& [v, name] : EnumNames<E>::table)
        if (v == value) return name;
    return "?";
}

/// The value named `name`, or nullopt when no value has that name.
template <typename E>
std::optional<E> enum_from_string(std::string_view name) {
    for (const auto& [v, n] : EnumNames<E>::table)
        if (n == name) return v;
    return std::nullopt;
}

/// "a, b, c": every name, for error messages.
template <typename E>
std::string enum_name_list() {
    std::string list;
    for (const auto& entry : EnumNames<E>::table) {
        if (!list.empty()) list += ", ";
        list += entry.second;
    }
    return list;
}

}  // namespace concord
