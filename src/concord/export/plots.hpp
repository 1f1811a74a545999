// The charts `concord plot` draws: ADMM convergence from a trace, per-frame statistics from an
// output directory.
#pragma once

#include <optional>
#include <string>

#include "concord/export/admm_trace.hpp"
#include "concord/export/chart.hpp"
#include "concord/io/output_reader.hpp"

namespace concord {

/// Residuals (primal, dual) and MSE against iteration on a log scale, one line per frame
/// (only `frame` when given), plus ADMM iterations per frame when the trace has several frames.
/// Throws InputError "SOURCE: no frame K in the trace (frames: A..B)" for a missing frame.
Chart admm_convergence_chart(const AdmmTrace& trace, std::optional<int> frame,
                             const std::string& source);

/// Panels of per-frame stats against frame number: contacts and candidates; Newton iterations;
/// time per frame (total, collision, solve); smallest distance (log scale) when contacts exist.
Chart frame_stats_chart(const OutputReader& reader);

}  // namespace concord
