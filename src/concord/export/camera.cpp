#include "concord/export/camera.hpp"

#include <cmath>
#include <sstream>
#include <vector>

#include "concord/math/error.hpp"

namespace concord {

namespace {

Vec3 parse_vec3(const std::string& text, const std::string& whole) {
    std::vector<double> v;
    std::stringstream in(text);
    std::string part;
    while (std::getline(in, part, ',')) {
        try {
            std::size_t used = 0;
            v.push_back(std::stod(part, &used));
            if (used != part.size() || !std::isfinite(v.back())) throw std::invalid_argument(part);
        } catch (const std::exception&) {
            throw InputError("--camera: expected numbers like 3,2,5 or 3,2,5:0,0,0, got \"" +
                             whole + "\"");
        }
    }
    if (v.size() != 3)
        throw InputError("--camera: expected 3 numbers per point (x,y,z), got \"" + whole + "\"");
    return Vec3(v[0], v[1], v[2]);
}

}  // namespace

Camera parse_camera(const std::string& text, const Vec3& default_target, const Vec3& up,
                    double fov_deg) {
    Camera c;
    c.up = up;
    c.fov_deg = fov_deg;
    const std::size_t colon = text.find(':');
    c.eye = parse_vec3(text.substr(0, colon), text);
    c.target =
        colon == std::string::npos ? default_target : parse_vec3(text.substr(colon + 1), text);
    if ((c.eye - c.target).norm() < 1e-12)
        throw InputError("--camera: the eye is at the target in \"" + text + "\"");
    return c;
}

Camera fit_camera(const Eigen::AlignedBox3d& box, const Vec3& up, double aspect, double fov_deg) {
    Camera c;
    c.up = up.normalized();
    c.fov_deg = fov_deg;
    const Vec3 centre = box.isEmpty() ? Vec3(Vec3::Zero()) : Vec3(box.center());
    const double radius = std::max(1e-3, box.isEmpty() ? 1.0 : box.diagonal().norm() / 2);
    Vec3 side = Vec3::UnitZ();
    if (std::abs(side.dot(c.up)) > 0.9) side = Vec3::UnitX();
    side = (side - c.up * side.dot(c.up)).normalized();
    const double half_v = fov_deg * M_PI / 360.0;
    const double half_h = std::atan(std::tan(half_v) * aspect);
    const double distance = radius / std::sin(std::min(half_v, half_h)) * 1.05;
    c.target = centre;
    c.eye = centre + side * (distance * 0.6) + c.up * (distance * 0.8);  // 53 degrees above
    return c;
}

Vec3 up_from_gravity(const std::optional<Vec3>& gravity) {
    if (gravity && gravity->norm() > 0) return -gravity->normalized();
    return Vec3::UnitY();
}

}  // namespace concord
