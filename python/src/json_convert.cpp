// Python objects <-> nlohmann::json, so that dicts go through the same scene parser as files.
#include <pybind11/numpy.h>

#include "bindings.hpp"

namespace concord::python {

nlohmann::json to_json(const py::handle& obj, const std::string& path) {
    const auto where = [&] { return path.empty() ? std::string("the scene") : path; };
    if (obj.is_none()) return nullptr;
    // bool before int: Python's bool is an int subclass.
    if (py::isinstance<py::bool_>(obj)) return obj.cast<bool>();
    if (py::isinstance<py::int_>(obj)) {
        try {
            return obj.cast<long long>();
        } catch (const py::cast_error&) {
            return obj.cast<double>();  // beyond 64 bits: the parser reports the range
        }
    }
    if (py::isinstance<py::float_>(obj)) return obj.cast<double>();
    if (py::isinstance<py::str>(obj)) return obj.cast<std::string>();
    if (py::isinstance<py::dict>(obj)) {
        nlohmann::json j = nlohmann::json::object();
        for (const auto& [key, value] : obj.cast<py::dict>()) {
            if (!py::isinstance<py::str>(key))
                throw py::type_error(where() + ": dictionary keys must be strings, got " +
                                     py::repr(key).cast<std::string>());
            const std::string k = key.cast<std::string>();
            j[k] = to_json(value, path.empty() ? k : path + "." + k);
        }
        return j;
    }
    if (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj)) {
        nlohmann::json j = nlohmann::json::array();
        std::size_t i = 0;
        for (const auto& item : obj) {
            j.push_back(to_json(item, path + "[" + std::to_string(i) + "]"));
            ++i;
        }
        return j;
    }
    // numpy arrays and scalars (np.float64 is a float subclass, np.int64 is not an int one).
    if (py::hasattr(obj, "tolist") && (py::isinstance<py::array>(obj) ||
                                       py::hasattr(obj, "dtype")))
        return to_json(obj.attr("tolist")(), path);
    throw py::type_error(where() + ": cannot be written as JSON: " +
                         py::repr(obj).cast<std::string>());
}

py::object from_json(const nlohmann::json& j) {
    switch (j.type()) {
        case nlohmann::json::value_t::null:
            return py::none();
        case nlohmann::json::value_t::boolean:
            return py::bool_(j.get<bool>());
        case nlohmann::json::value_t::number_integer:
            return py::int_(j.get<long long>());
        case nlohmann::json::value_t::number_unsigned:
            return py::int_(j.get<unsigned long long>());
        case nlohmann::json::value_t::number_float:
            return py::float_(j.get<double>());
        case nlohmann::json::value_t::string:
            return py::str(j.get<std::string>());
        case nlohmann::json::value_t::array: {
            py::list list;
            for (const auto& e : j) list.append(from_json(e));
            return list;
        }
        case nlohmann::json::value_t::object: {
            py::dict dict;
            for (const auto& [k, v] : j.items()) dict[py::str(k)] = from_json(v);
            return dict;
        }
        default:
            return py::none();
    }
}

}  // namespace concord::python
