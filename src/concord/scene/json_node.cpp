#include "concord/scene/json_node.hpp"

#include <cmath>
#include <limits>

#include "concord/math/error.hpp"

namespace concord {

JsonNode::JsonNode(const nlohmann::json& value, std::string source, std::string path)
    : value_(&value), source_(std::move(source)), path_(std::move(path)) {}

void JsonNode::fail(const std::string& message) const {
    if (path_.empty()) throw InputError(source_ + ": " + message);
    throw InputError(source_ + ": " + path_ + ": " + message);
}

std::string JsonNode::describe() const {
    std::string text;
    try {
        text = value_->dump();
    } catch (const nlohmann::json::exception&) {
        text = "a string that is not valid UTF-8";
    }
    constexpr std::size_t kMax = 40;
    if (text.size() > kMax) text = text.substr(0, kMax - 3) + "...";
    return text;
}

namespace {

std::string type_name(const nlohmann::json& v) {
    if (v.is_object()) return "an object";
    if (v.is_array()) return "an array";
    if (v.is_string()) return "a string";
    if (v.is_boolean()) return "a boolean";
    if (v.is_null()) return "null";
    return "a number";
}

bool is_finite_number(const nlohmann::json& v) {
    return v.is_number() && std::isfinite(v.get<double>());
}

}  // namespace

void JsonNode::expect_object(std::initializer_list<std::string_view> allowed) const {
    if (!value_->is_object()) fail("expected an object, got " + type_name(*value_));
    for (const auto& item : value_->items()) {
        bool known = false;
        for (auto key : allowed) known = known || key == item.key();
        if (known) continue;
        std::string list;
        for (auto key : allowed) {
            if (!list.empty()) list += ", ";
            list += key;
        }
        JsonNode(item.value(), source_, path_.empty() ? item.key() : path_ + "." + item.key())
            .fail("unknown key (allowed here: " + list + ")");
    }
}

bool JsonNode::has(std::string_view key) const {
    return value_->is_object() && value_->contains(key);
}

JsonNode JsonNode::child(std::string_view key) const {
    std::string child_path = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
    if (!value_->is_object()) fail("expected an object, got " + type_name(*value_));
    auto it = value_->find(key);
    if (it == value_->end()) JsonNode(*value_, source_, child_path).fail("missing required key");
    return JsonNode(*it, source_, child_path);
}

std::optional<JsonNode> JsonNode::find(std::string_view key) const {
    if (!has(key)) return std::nullopt;
    return child(key);
}

std::size_t JsonNode::array_size() const {
    if (!value_->is_array()) fail("expected an array, got " + type_name(*value_));
    return value_->size();
}

JsonNode JsonNode::element(std::size_t i) const {
    return JsonNode((*value_)[i], source_, path_ + "[" + std::to_string(i) + "]");
}

double JsonNode::number() const {
    if (value_->is_number() && !is_finite_number(*value_))
        fail("expected a finite number, got " + describe());
    if (!value_->is_number()) fail("expected a number, got " + type_name(*value_));
    return value_->get<double>();
}

double JsonNode::positive_number() const {
    double x = number();
    if (!(x > 0.0)) fail("expected a positive number, got " + describe());
    return x;
}

double JsonNode::non_negative_number() const {
    double x = number();
    if (!(x >= 0.0)) fail("expected a number >= 0, got " + describe());
    return x;
}

int JsonNode::integer(int min, int max) const {
    const std::string expected =
        "expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "], got ";
    if (value_->is_number_unsigned()) {
        auto u = value_->get<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(max)) fail(expected + describe());
        if (static_cast<std::int64_t>(u) < min) fail(expected + describe());
        return static_cast<int>(u);
    }
    if (value_->is_number_integer()) {
        auto i = value_->get<std::int64_t>();
        if (i < min || i > max) fail(expected + describe());
        return static_cast<int>(i);
    }
    if (value_->is_number_float()) {
        double x = value_->get<double>();
        if (!std::isfinite(x) || x != std::floor(x) || x < min || x > max)
            fail(expected + describe());
        return static_cast<int>(x);
    }
    fail(expected + type_name(*value_));
}

std::uint64_t JsonNode::unsigned_integer() const {
    if (value_->is_number_unsigned()) return value_->get<std::uint64_t>();
    if (value_->is_number_integer() && value_->get<std::int64_t>() >= 0) {
        return static_cast<std::uint64_t>(value_->get<std::int64_t>());
    }
    fail("expected an integer >= 0, got " +
         (value_->is_number() ? describe() : type_name(*value_)));
}

std::string JsonNode::string() const {
    if (!value_->is_string()) fail("expected a string, got " + type_name(*value_));
    return value_->get<std::string>();
}

std::string JsonNode::name() const {
    std::string s = string();
    if (s.empty()) fail("expected a non-empty string");
    return s;
}

bool JsonNode::boolean() const {
    if (!value_->is_boolean()) fail("expected true or false, got " + type_name(*value_));
    return value_->get<bool>();
}

namespace {

/// Reads [x, y, z] or fails with "expected an array of 3 <what>".
Vec3 read_vec3(const JsonNode& node, const char* what, bool (*accept)(double)) {
    const auto& v = node.value();
    bool ok = v.is_array() && v.size() == 3;
    Vec3 r = Vec3::Zero();
    for (std::size_t i = 0; ok && i < 3; ++i) {
        ok = is_finite_number(v[i]) && accept(v[i].get<double>());
        if (ok) r[static_cast<Eigen::Index>(i)] = v[i].get<double>();
    }
    if (!ok) node.fail(std::string("expected an array of 3 ") + what + ", got " + node.describe());
    return r;
}

}  // namespace

Vec3 JsonNode::vec3() const {
    return read_vec3(*this, "finite numbers", [](double) { return true; });
}

Vec3 JsonNode::positive_vec3() const {
    return read_vec3(*this, "positive numbers", [](double x) { return x > 0.0; });
}

Vec3 JsonNode::non_zero_vec3() const {
    Vec3 v = vec3();
    if (v.cwiseAbs().maxCoeff() == 0.0) fail("expected a non-zero vector, got " + describe());
    return v;
}

}  // namespace concord
