// Shared declarations of the concord Python module's binding files (one per part of the API).
#pragma once

#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>
#include <string>

namespace concord::python {

namespace py = pybind11;

void bind_enums(py::module_& m);   // bind_enums.cpp: every solver/scene enum
void bind_solver(py::module_& m);  // bind_solver.cpp: SolverParams, StepStats, SolverStats
void bind_scene(py::module_& m);   // bind_scene.cpp: Scene, Shape, loading from files and dicts
void bind_world(py::module_& m);   // bind_world.cpp: World, WorldState, contacts, output

/// A Python object made of dict / list / tuple / str / bool / int / float / None (and numpy
/// arrays and scalars, through their tolist()) as JSON. NaN and infinities are kept (as JSON
/// numbers) so that the scene parser reports them with their key path. Raises TypeError naming
/// `path` for anything else.
nlohmann::json to_json(const py::handle& obj, const std::string& path = "");
/// JSON -> Python dict / list / str / bool / int / float / None.
py::object from_json(const nlohmann::json& j);

}  // namespace concord::python
