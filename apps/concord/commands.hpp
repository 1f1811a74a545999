// The `concord` command-line tool: each sub-command lives in its own cmd_*.cpp file and
// registers itself on the root CLI11 app through one of the functions below.
#pragma once

#include <CLI/CLI.hpp>

namespace concord::cli {

/// Exit codes shared by every command (see docs/cli.md).
enum ExitCode : int {
    kExitOk = 0,
    kExitFailure = 1,  ///< the command ran and found a problem (e.g. an audit found an intersection)
    kExitBadInput = 2, ///< unreadable or invalid input; the message names the file/key at fault
    kExitWorkerLost = 3, ///< a distributed run lost a worker process; the output is resumable
};

/// A command's action; returns the process exit code. Thrown concord::InputError maps to 2.
using Action = std::function<int()>;

/// Each register_* adds one sub-command to `app` and stores its action in `action` when parsed.
void register_ccd(CLI::App& app, Action& action);
void register_run(CLI::App& app, Action& action);
void register_info(CLI::App& app, Action& action);
void register_audit(CLI::App& app, Action& action);
void register_view(CLI::App& app, Action& action);
void register_export(CLI::App& app, Action& action);
void register_render(CLI::App& app, Action& action);
void register_plot(CLI::App& app, Action& action);

}  // namespace concord::cli
