// A body's affine state from one frames.jsonl row: x = p + A X (A row-major in the row).
#pragma once

#include "concord/geometry/mesh.hpp"
#include "concord/math/types.hpp"

namespace concord {

struct AffineMap {
    Vec3 p = Vec3::Zero();
    Mat3 A = Mat3::Identity();

    Vec3 apply(const Vec3& X) const { return p + A * X; }
};

/// Reads the first 12 coordinates [p, A00, A01, ..., A22] of a row (extra coordinates of
/// reduced bodies are not part of the rigid-affine map and are ignored here).
AffineMap affine_map_from_row(const VecX& row);

/// The mesh's vertices mapped to world coordinates.
Vertices world_vertices(const TriMesh& mesh, const AffineMap& map);

}  // namespace concord
