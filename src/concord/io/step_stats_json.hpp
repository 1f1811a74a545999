// StepStats <-> the "stats" object of a frames.jsonl line.
#pragma once

#include <nlohmann/json.hpp>

#include "concord/scene/json_node.hpp"
#include "concord/world/step_stats.hpp"

namespace concord {

/// Every field of StepStats under its own name. min_distance is null when infinite (no contact
/// pair was examined), since JSON has no infinity; body_contacts is left out when empty.
nlohmann::json step_stats_to_json(const StepStats& stats);

/// The inverse of step_stats_to_json. Missing fields keep their StepStats defaults and unknown
/// fields are ignored (files written by newer versions stay readable); a field of the wrong
/// type throws InputError naming it.
StepStats step_stats_from_json(const JsonNode& node);

/// Folds the statistics of one more World::step into those of a saved frame made of several
/// (scene "substeps"): counts of work add up (iterations, trials, substeps, retries, times);
/// contacts, body_contacts, islands and barrier stiffness are the last step's; candidates and
/// residual the peak; min_distance and time_step the minimum; status and stop_reason the worst
/// step's; and converged holds when every step converged.
void accumulate_substep(StepStats& frame, const StepStats& step, bool first);

}  // namespace concord
