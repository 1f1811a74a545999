// Building scenes in code: add_body's argument handling and the resolution of a built scene
// through the scene parser (so that it is validated and normalised exactly as a file is).
#pragma once

#include <nlohmann/json.hpp>

#include "bindings.hpp"
#include "concord/scene/scene_spec.hpp"

namespace concord::python {

/// parse_scene(scene_to_json(s)) with the C++-only solver members and source_path kept:
/// raises InputError "<python scene>: key.path: message" (source_path instead when set).
SceneSpec resolve_scene(const SceneSpec& s);

/// Scene.add_body (see its docstring in bind_scene.cpp); returns the new body's index.
int scene_add_body(SceneSpec& s, const ShapeSpec& shape, const py::object& name,
                   const py::object& material, const py::object& position,
                   const py::object& rotation, const py::object& velocity,
                   const py::object& angular_velocity, const py::object& motion,
                   const py::object& kinematic, const py::object& friction,
                   const py::object& external_force);

/// Index of a body given by index (negative counts from the end) or by name; IndexError /
/// KeyError otherwise.
int scene_body_index(const SceneSpec& s, const py::object& key);

/// The shape's scene-file object, for repr.
nlohmann::json scene_shape_json(const ShapeSpec& shape);

}  // namespace concord::python
