// A perspective look-at camera for `concord render`, placed like the web viewer's default view.
#pragma once

#include <Eigen/Geometry>
#include <optional>
#include <string>

#include "concord/math/types.hpp"

namespace concord {

struct Camera {
    Vec3 eye = Vec3(0, 0, 5);
    Vec3 target = Vec3::Zero();
    Vec3 up = Vec3::UnitY();
    double fov_deg = 40.0;  ///< vertical field of view
};

/// "EX,EY,EZ" (eye; looks at `default_target`) or "EX,EY,EZ:TX,TY,TZ". Throws InputError
/// "--camera: ..." for anything else, or when eye and target coincide.
Camera parse_camera(const std::string& text, const Vec3& default_target, const Vec3& up,
                    double fov_deg);

/// The viewer's default view of `box`: from the front (a direction perpendicular to `up`, +z
/// unless up is near z) and 53 degrees above (to see into open containers), far enough that the
/// box's bounding sphere fits the narrower of the two fields of view for `aspect` = width / height.
Camera fit_camera(const Eigen::AlignedBox3d& box, const Vec3& up, double aspect, double fov_deg);

/// Up against gravity when `gravity` is non-zero, else +y.
Vec3 up_from_gravity(const std::optional<Vec3>& gravity);

}  // namespace concord
