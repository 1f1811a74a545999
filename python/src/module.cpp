// The `concord` Python module (concord._core; python/concord/__init__.py re-exports it).
#include "bindings.hpp"
#include "concord/math/error.hpp"

PYBIND11_MODULE(_core, m) {
    namespace py = pybind11;
    using namespace concord::python;
    m.doc() = "Concord: affine-body contact simulation (docs/python.md).";
    m.attr("__version__") = CONCORD_VERSION;
    // Bad input raises concord.InputError (a ValueError) with the CLI's one-line message.
    py::register_exception<concord::InputError>(m, "InputError", PyExc_ValueError);
    bind_enums(m);
    bind_solver(m);
    bind_scene(m);
    bind_world(m);
}
