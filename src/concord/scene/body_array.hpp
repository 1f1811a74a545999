// Body arrays: one body template repeated on a grid, with optional seeded jitter, so that scene
// files with thousands of bodies stay short (docs/scene-format.md, "Body arrays").
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "concord/math/types.hpp"
#include "concord/scene/scene_spec.hpp"

namespace concord {

struct BodyArraySpec {
    std::array<int, 3> count = {1, 1, 1};  ///< copies along world x, y, z (each >= 1)
    Vec3 spacing = Vec3::Zero();           ///< grid step along world x, y, z, m
    double jitter_position = 0.0;          ///< radius of the uniform random offset ball, m
    double jitter_rotation_deg = 0.0;      ///< max angle of the random rotation, degrees
    std::uint64_t seed = 0;                ///< seed of the jitter's SplitMix64 stream

    int total() const { return count[0] * count[1] * count[2]; }
};

/// Expands `body` (the first copy) into count[0] * count[1] * count[2] bodies.
///
/// Copy k = ix + nx (iy + ny iz) (x fastest) is named NAME_k and displaced by
/// d_k = (ix sx, iy sy, iz sz) + u_k, where u_k is uniform in the ball of radius
/// jitter_position; its rotation becomes R_k R, where R_k turns by an angle uniform in
/// [-jitter_rotation_deg, jitter_rotation_deg] about an axis uniform on the sphere. The kinematic
/// pivot and keyframe positions move with the copy (+ d_k) and keyframe rotations turn with it
/// (R_k R). Jitter is drawn from one SplitMix64 stream seeded with `seed`, copy after copy, so
/// the result depends only on the inputs (not on platform or standard library).
std::vector<BodySpec> expand_body_array(const BodySpec& body, const BodyArraySpec& array);

}  // namespace concord
