// A JSON value together with the file and key path it came from.
//
// Every accessor validates the value's type and range and, when it is wrong, throws
// InputError "FILE: key.path: message" naming the value found, so that parsers built on it give
// one-line errors that point at the exact key (e.g. "a.json: bodies[3].shape.box.size: ...").
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "concord/math/types.hpp"

namespace concord {

class JsonNode {
  public:
    /// `source` names the file (or other origin) in messages; `path` is the key path of `value`
    /// inside it, empty for the document root.
    JsonNode(const nlohmann::json& value, std::string source, std::string path = "");

    const nlohmann::json& value() const { return *value_; }
    const std::string& source() const { return source_; }
    const std::string& path() const { return path_; }

    /// Throws InputError "SOURCE: PATH: message" (or "SOURCE: message" at the root).
    [[noreturn]] void fail(const std::string& message) const;

    // --- objects and arrays -------------------------------------------------------------
    /// Requires an object whose keys are all in `allowed`; names the first unknown key.
    void expect_object(std::initializer_list<std::string_view> allowed) const;
    bool has(std::string_view key) const;
    /// The member `key` (which must exist; see find for optional members).
    JsonNode child(std::string_view key) const;
    std::optional<JsonNode> find(std::string_view key) const;
    /// Requires an array; returns its length.
    std::size_t array_size() const;
    /// Element i of an array (call array_size first).
    JsonNode element(std::size_t i) const;

    // --- scalars (all numbers must be finite) -------------------------------------------
    double number() const;
    double positive_number() const;
    double non_negative_number() const;
    /// An integer in [min, max]; a float with an integral value (e.g. 1e3) is accepted.
    int integer(int min, int max) const;
    std::uint64_t unsigned_integer() const;
    std::string string() const;
    /// A string that is not empty.
    std::string name() const;
    bool boolean() const;

    // --- small vectors ------------------------------------------------------------------
    Vec3 vec3() const;
    Vec3 positive_vec3() const;
    Vec3 non_zero_vec3() const;

    /// A short rendering of the value for messages ("got ..."), at most ~40 characters.
    std::string describe() const;

  private:
    const nlohmann::json* value_;
    std::string source_;
    std::string path_;
};

}  // namespace concord
