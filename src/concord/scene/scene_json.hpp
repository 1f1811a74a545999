// SceneSpec -> JSON: the resolved scene, as written to output directories.
#pragma once

#include <nlohmann/json.hpp>

#include "concord/scene/scene_spec.hpp"

namespace concord {

/// The scene with every default written out, body arrays expanded, rotations as
/// {"matrix": [[...], [...], [...]]} and mesh files as absolute paths, so that the document is
/// self-contained and parse_scene(scene_to_json(s), s.source_path, ...) == s for a scene whose
/// mesh paths are absolute (otherwise equal except that `file` becomes the resolved path).
/// Optional frictions are omitted when unset. Numbers are written so that they read back exactly.
nlohmann::json scene_to_json(const SceneSpec& scene);

}  // namespace concord
