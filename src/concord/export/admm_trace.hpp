// The ADMM convergence trace of a distributed run (format in docs/export.md, "ADMM trace"):
// JSON Lines, one object per ADMM iteration of a frame.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace concord {

struct AdmmIteration {
    int frame = 0;
    int iteration = 0;
    double primal_residual = 0.0;
    double dual_residual = 0.0;
    std::optional<double> mse;  ///< mean squared disagreement of shared bodies' states, m^2
    std::optional<double> rho;  ///< penalty parameter in force
};

/// Iterations grouped by frame, each frame's in increasing iteration order.
using AdmmTrace = std::map<int, std::vector<AdmmIteration>>;

/// Reads a trace file. Required keys per line: frame (>= 0), iteration (>= 0),
/// primal_residual and dual_residual (>= 0); optional: mse (>= 0), rho (> 0); other keys are
/// ignored so that writers may add more. Blank lines are skipped. Throws InputError
/// "PATH: line N: KEY: ..." for a malformed line or a repeated (frame, iteration), and
/// "PATH: no iterations" for an empty trace.
AdmmTrace read_admm_trace(const std::string& path);

/// Whether the file's first non-blank line looks like an ADMM trace line (has "iteration" and
/// "primal_residual"), as opposed to a frames.jsonl line.
bool looks_like_admm_trace(const std::string& path);

}  // namespace concord
