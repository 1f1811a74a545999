#include "concord/scene/scene_names.hpp"

#include <array>
#include <utility>

namespace concord {

namespace {

constexpr std::array<std::pair<MotionType, std::string_view>, 3> kMotionNames{{
    {MotionType::Dynamic, "dynamic"},
    {MotionType::Static, "static"},
    {MotionType::Kinematic, "kinematic"},
}};

constexpr std::array<std::pair<ShapeKind, std::string_view>, 9> kShapeNames{{
    {ShapeKind::Box, "box"},
    {ShapeKind::Sphere, "sphere"},
    {ShapeKind::Cylinder, "cylinder"},
    {ShapeKind::Capsule, "capsule"},
    {ShapeKind::Torus, "torus"},
    {ShapeKind::Mesh, "mesh"},
    {ShapeKind::Container, "container"},
    {ShapeKind::Funnel, "funnel"},
    {ShapeKind::Compound, "compound"},
}};

template <typename Enum, std::size_t N>
std::string_view name_of(const std::array<std::pair<Enum, std::string_view>, N>& table, Enum e) {
    for (const auto& [value, name] : table) {
        if (value == e) return name;
    }
    return "unknown";
}

template <typename Enum, std::size_t N>
std::optional<Enum> value_of(const std::array<std::pair<Enum, std::string_view>, N>& table,
                             std::string_view s) {
    for (const auto& [value, name] : table) {
        if (name == s) return value;
    }
    return std::nullopt;
}

}  // namespace

std::string_view motion_type_name(MotionType motion) {
    return name_of(kMotionNames, motion);
}
std::optional<MotionType> motion_type_from_name(std::string_view name) {
    return value_of(kMotionNames, name);
}

std::string_view shape_kind_name(ShapeKind kind) {
    return name_of(kShapeNames, kind);
}
std::optional<ShapeKind> shape_kind_from_name(std::string_view name) {
    return value_of(kShapeNames, name);
}

}  // namespace concord
