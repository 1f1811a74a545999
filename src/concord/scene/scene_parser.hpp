// Scene files: JSON -> SceneSpec with every default filled in (docs/scene-format.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "concord/scene/scene_spec.hpp"

namespace concord {

/// Reads and parses a scene file; mesh files resolve against the file's folder. The result's
/// source_path is `path`. Throws InputError "PATH: key.path: message" for any invalid input.
SceneSpec load_scene_file(const std::string& path);

/// Parses a scene document. `source_name` prefixes error messages and becomes source_path;
/// relative mesh paths resolve against `base_dir` (the current directory when empty) and must
/// name existing files. Unknown keys, wrong types, non-finite numbers and out-of-range values
/// throw InputError "SOURCE: key.path: message". Body arrays are expanded.
SceneSpec parse_scene(const nlohmann::json& scene, const std::string& source_name,
                      const std::string& base_dir);

/// Parses only the "planes" of a scene document (other keys are not examined): what readers of
/// output directories need without touching mesh files.
std::vector<PlaneSpec> parse_scene_planes(const nlohmann::json& scene,
                                          const std::string& source_name);

}  // namespace concord
