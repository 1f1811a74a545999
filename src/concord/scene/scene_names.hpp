// The words scene files use for enumerations, in both directions.
#pragma once

#include <optional>
#include <string_view>

#include "concord/scene/scene_spec.hpp"

namespace concord {

/// "dynamic", "static" or "kinematic".
std::string_view motion_type_name(MotionType motion);
std::optional<MotionType> motion_type_from_name(std::string_view name);

/// The key of the shape object: "box", "sphere", "cylinder", "capsule", "torus", "mesh",
/// "container" or "funnel".
std::string_view shape_kind_name(ShapeKind kind);
std::optional<ShapeKind> shape_kind_from_name(std::string_view name);

}  // namespace concord
