// The scene file's "distributed" object <-> DistributedSpec (keys in docs/scene-format.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

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

/// Sets the worker count a run was asked for (`--workers N`, `mpirun -np N+1`, Python's
/// World.run(workers=N)) on the scene's spec: N slabs along its axis, or its grid when that has
/// N cells. `source` names the request in the message of the InputError thrown for a grid of
/// another size or a count outside [1, 64] (e.g. "--workers 3: the scene's distributed.grid
/// has 4 cells").
void set_worker_count(DistributedSpec& d, int workers, const std::string& source);

const char* to_string(PenaltyRule r);
const char* to_string(LoadMeasure m);
const char* to_string(AdaptRule r);
const char* to_string(WidthRule r);
const char* to_string(WidthSpeed s);
const char* to_string(InitialPlanes p);

}  // namespace concord
