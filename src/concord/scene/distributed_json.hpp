// The scene file's "distributed" object <-> DistributedSpec (keys in docs/scene-format.md).
#pragma once

#include <nlohmann/json.hpp>

#include "concord/scene/distributed_spec.hpp"
#include "concord/scene/json_node.hpp"

namespace concord {

/// Reads a "distributed" object; missing keys keep their defaults. Unknown keys, wrong types,
/// out-of-range values and a grid whose cell count is not `workers` throw InputError naming the
/// key path (e.g. "a.json: distributed.axis: expected one of x, y, z, got \"w\"").
DistributedSpec parse_distributed_spec(const JsonNode& node);

/// Every key with its value, so that parse_distributed_spec(distributed_spec_to_json(d)) == d.
nlohmann::json distributed_spec_to_json(const DistributedSpec& d);

/// Checks the cross-key rules (grid product, clamp order, ...) of a spec built in code; throws
/// InputError "distributed.KEY: ..." naming the offending key.
void validate_distributed_spec(const DistributedSpec& d);

const char* to_string(PenaltyRule r);
const char* to_string(LoadMeasure m);
const char* to_string(AdaptRule r);
const char* to_string(WidthRule r);
const char* to_string(InitialPlanes p);

}  // namespace concord
