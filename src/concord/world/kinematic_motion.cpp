#include "concord/world/kinematic_motion.hpp"

#include <algorithm>

#include "concord/body/affine_body.hpp"

namespace concord {

Mat3 rotation_from_angular_velocity(const Vec3& w, double t) {
    const double speed = w.norm();
    if (speed == 0.0) return Mat3::Identity();
    return Eigen::AngleAxisd(speed * t, w / speed).toRotationMatrix();
}

Vec12 kinematic_state(const KinematicSpec& k, const Vec12& q0, double t) {
    if (!k.keyframes.empty()) {
        const auto& f = k.keyframes;
        if (t <= f.front().time) return affine_state(f.front().position, f.front().rotation);
        if (t >= f.back().time) return affine_state(f.back().position, f.back().rotation);
        const auto next = std::upper_bound(f.begin(), f.end(), t,
                                           [](double x, const Keyframe& kf) { return x < kf.time; });
        const Keyframe& b = *next;
        const Keyframe& a = *(next - 1);
        const double s = (t - a.time) / (b.time - a.time);
        const Eigen::Quaterniond qa(a.rotation), qb(b.rotation);
        const Mat3 R = qa.slerp(s, qb).toRotationMatrix();
        return affine_state((1 - s) * a.position + s * b.position, R);
    }
    const Mat3 Rt = rotation_from_angular_velocity(k.angular_velocity, t);
    const Vec3 p0 = affine_translation(q0);
    const Mat3 A0 = affine_matrix(q0);
    const Vec3 p = k.pivot + k.linear_velocity * t + Rt * (p0 - k.pivot);
    return affine_state(p, Rt * A0);
}

}  // namespace concord
