// Squared distance between two points, and its derivatives with respect to (a, b).
#pragma once

#include "concord/math/types.hpp"

namespace concord {

inline double point_point_distance_sq(const Vec3& a, const Vec3& b) {
    return (a - b).squaredNorm();
}

/// ∇ of |a − b|² with respect to (a, b).
inline Vec6 point_point_distance_sq_gradient(const Vec3& a, const Vec3& b) {
    Vec6 grad;
    grad.head<3>() = 2.0 * (a - b);
    grad.tail<3>() = -grad.head<3>();
    return grad;
}

/// ∇² of |a − b|² with respect to (a, b): constant, 2 [I −I; −I I].
inline Mat6 point_point_distance_sq_hessian(const Vec3& /*a*/, const Vec3& /*b*/) {
    Mat6 H = Mat6::Zero();
    H.diagonal().setConstant(2.0);
    H.block<3, 3>(0, 3).diagonal().setConstant(-2.0);
    H.block<3, 3>(3, 0).diagonal().setConstant(-2.0);
    return H;
}

}  // namespace concord
