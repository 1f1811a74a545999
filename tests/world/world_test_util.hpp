// Scene-building helpers shared by the world tests.
#pragma once

#include <string>

#include "concord/scene/scene_spec.hpp"

namespace concord::test {

/// A dynamic box (density 1000, E = 1e8) centred at `position`.
inline BodySpec box_body(const std::string& name, const Vec3& position,
                         const Vec3& size = Vec3::Ones()) {
    BodySpec b;
    b.name = name;
    b.shape.kind = ShapeKind::Box;
    b.shape.size = size;
    b.material = {1000.0, 1e8};
    b.position = position;
    return b;
}

}  // namespace concord::test
