#include "concord/scene/body_array.hpp"

#include <numbers>
#include <string>

#include "concord/scene/splitmix64.hpp"

namespace concord {

namespace {

/// Uniform in the unit ball, by rejection from the cube: only exact IEEE operations, so the
/// accept/reject decisions are the same everywhere.
Vec3 unit_ball_point(SplitMix64& rng) {
    for (;;) {
        Vec3 v(rng.next_signed_unit(), rng.next_signed_unit(), rng.next_signed_unit());
        if (v.squaredNorm() <= 1.0) return v;
    }
}

/// Uniform direction: a ball point away from the centre, normalised.
Vec3 unit_direction(SplitMix64& rng) {
    for (;;) {
        Vec3 v = unit_ball_point(rng);
        double n2 = v.squaredNorm();
        if (n2 > 1e-6) return v / std::sqrt(n2);
    }
}

}  // namespace

std::vector<BodySpec> expand_body_array(const BodySpec& body, const BodyArraySpec& array) {
    std::vector<BodySpec> copies;
    copies.reserve(static_cast<std::size_t>(array.total()));
    SplitMix64 rng(array.seed);
    const bool jitter_position = array.jitter_position > 0.0;
    const bool jitter_rotation = array.jitter_rotation_deg > 0.0;
    int k = 0;
    for (int iz = 0; iz < array.count[2]; ++iz) {
        for (int iy = 0; iy < array.count[1]; ++iy) {
            for (int ix = 0; ix < array.count[0]; ++ix, ++k) {
                Vec3 offset(ix * array.spacing[0], iy * array.spacing[1], iz * array.spacing[2]);
                // Always draw in the same order (position, then rotation) so that turning one
                // kind of jitter on does not change the other's numbers.
                if (jitter_position) offset += array.jitter_position * unit_ball_point(rng);
                Mat3 turn = Mat3::Identity();
                if (jitter_rotation) {
                    Vec3 axis = unit_direction(rng);
                    double angle = rng.next_signed_unit() * array.jitter_rotation_deg *
                                   (std::numbers::pi / 180.0);
                    turn = Eigen::AngleAxisd(angle, axis).toRotationMatrix();
                }

                BodySpec copy = body;
                copy.name = body.name + "_" + std::to_string(k);
                copy.position = body.position + offset;
                copy.kinematic.pivot = body.kinematic.pivot + offset;
                if (jitter_rotation) copy.rotation = turn * body.rotation;
                for (Keyframe& key : copy.kinematic.keyframes) {
                    key.position += offset;
                    if (jitter_rotation) key.rotation = turn * key.rotation;
                }
                copies.push_back(std::move(copy));
            }
        }
    }
    return copies;
}

}  // namespace concord
