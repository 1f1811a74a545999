// A small JSON Schema (draft 2020-12) validator for the keywords schema/scene.schema.json uses,
// so that the schema can be tested against the parser without an external tool. Any keyword it
// does not implement is reported as an error, so the schema cannot silently outgrow it.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace concord::test {

class MiniJsonSchema {
  public:
    explicit MiniJsonSchema(nlohmann::json root) : root_(std::move(root)) {}

    /// The violations of `doc` ("path: reason"), empty when it conforms.
    std::vector<std::string> errors(const nlohmann::json& doc) const {
        std::vector<std::string> out;
        check(root_, doc, "$", out);
        return out;
    }

  private:
    using json = nlohmann::json;

    const json& resolve(const std::string& ref) const {
        // Only local references of the form #/a/b/c.
        if (ref.rfind("#/", 0) != 0) throw std::runtime_error("unsupported $ref " + ref);
        return root_.at(json::json_pointer(ref.substr(1)));
    }

    static bool has_type(const json& v, const std::string& type) {
        if (type == "object") return v.is_object();
        if (type == "array") return v.is_array();
        if (type == "string") return v.is_string();
        if (type == "boolean") return v.is_boolean();
        if (type == "null") return v.is_null();
        if (type == "number") return v.is_number();
        if (type == "integer") {
            return v.is_number_integer() ||
                   (v.is_number_float() && v.get<double>() == std::floor(v.get<double>()));
        }
        throw std::runtime_error("unknown type " + type);
    }

    bool valid(const json& schema, const json& v) const {
        std::vector<std::string> e;
        check(schema, v, "", e);
        return e.empty();
    }

    void check(const json& schema, const json& v, const std::string& path,
               std::vector<std::string>& out) const {
        if (schema.is_boolean()) {
            if (!schema.get<bool>()) out.push_back(path + ": not allowed");
            return;
        }
        static const std::set<std::string> kAnnotations = {
            "$schema", "$id", "title", "description", "default", "$defs", "$comment"};
        for (const auto& [keyword, arg] : schema.items()) {
            auto fail = [&](const std::string& why) { out.push_back(path + ": " + why); };
            if (kAnnotations.count(keyword)) continue;
            if (keyword == "$ref") {
                check(resolve(arg.get<std::string>()), v, path, out);
            } else if (keyword == "type") {
                bool ok = false;
                if (arg.is_string()) ok = has_type(v, arg);
                for (const auto& t : arg.is_array() ? arg : json::array())
                    ok = ok || has_type(v, t);
                if (!ok) fail("expected type " + arg.dump());
            } else if (keyword == "properties") {
                if (!v.is_object()) continue;
                for (const auto& [key, sub] : arg.items()) {
                    if (v.contains(key)) check(sub, v.at(key), path + "." + key, out);
                }
            } else if (keyword == "additionalProperties") {
                if (!v.is_object()) continue;
                const json* props =
                    schema.contains("properties") ? &schema.at("properties") : nullptr;
                for (const auto& [key, value] : v.items()) {
                    if (props && props->contains(key)) continue;
                    check(arg, value, path + "." + key, out);
                }
            } else if (keyword == "propertyNames") {
                if (!v.is_object()) continue;
                for (const auto& [key, value] : v.items())
                    check(arg, json(key), path + "." + key, out);
            } else if (keyword == "required") {
                if (!v.is_object()) continue;
                for (const auto& key : arg) {
                    if (!v.contains(key.get<std::string>())) fail("missing " + key.dump());
                }
            } else if (keyword == "items") {
                if (!v.is_array()) continue;
                for (std::size_t i = 0; i < v.size(); ++i) {
                    check(arg, v[i], path + "[" + std::to_string(i) + "]", out);
                }
            } else if (keyword == "minItems") {
                if (v.is_array() && v.size() < arg.get<std::size_t>()) fail("too few items");
            } else if (keyword == "maxItems") {
                if (v.is_array() && v.size() > arg.get<std::size_t>()) fail("too many items");
            } else if (keyword == "minProperties") {
                if (v.is_object() && v.size() < arg.get<std::size_t>()) fail("too few properties");
            } else if (keyword == "maxProperties") {
                if (v.is_object() && v.size() > arg.get<std::size_t>()) fail("too many properties");
            } else if (keyword == "minLength") {
                if (v.is_string() && v.get<std::string>().size() < arg.get<std::size_t>())
                    fail("too short");
            } else if (keyword == "pattern") {
                if (v.is_string() &&
                    !std::regex_search(v.get<std::string>(), std::regex(arg.get<std::string>()))) {
                    fail("does not match " + arg.dump());
                }
            } else if (keyword == "minimum") {
                if (v.is_number() && !(v.get<double>() >= arg.get<double>())) fail("below minimum");
            } else if (keyword == "maximum") {
                if (v.is_number() && !(v.get<double>() <= arg.get<double>())) fail("above maximum");
            } else if (keyword == "exclusiveMinimum") {
                if (v.is_number() && !(v.get<double>() > arg.get<double>()))
                    fail("not above exclusiveMinimum");
            } else if (keyword == "exclusiveMaximum") {
                if (v.is_number() && !(v.get<double>() < arg.get<double>()))
                    fail("not below exclusiveMaximum");
            } else if (keyword == "enum") {
                bool found = false;
                for (const auto& option : arg) found = found || option == v;
                if (!found) fail("not one of " + arg.dump());
            } else if (keyword == "const") {
                if (!(arg == v)) fail("not " + arg.dump());
            } else if (keyword == "not") {
                if (valid(arg, v)) fail("matches a forbidden schema");
            } else if (keyword == "oneOf") {
                int matches = 0;
                for (const auto& sub : arg) matches += valid(sub, v) ? 1 : 0;
                if (matches != 1) fail("matches " + std::to_string(matches) + " of oneOf");
            } else if (keyword == "allOf") {
                for (const auto& sub : arg) check(sub, v, path, out);
            } else if (keyword == "if") {
                if (valid(arg, v)) {
                    if (schema.contains("then")) check(schema.at("then"), v, path, out);
                } else if (schema.contains("else")) {
                    check(schema.at("else"), v, path, out);
                }
            } else if (keyword == "then" || keyword == "else") {
                // Handled with "if".
            } else {
                fail("the test validator does not implement keyword " + keyword);
            }
        }
    }

    json root_;
};

}  // namespace concord::test
