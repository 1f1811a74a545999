// Placing the derivatives of a distance between some of a pair's points into the derivatives
// with respect to all of the pair's points.
//
// A classified distance (point-triangle, edge-edge, point-edge) is one smooth sub-distance of a
// subset of the pair's vertices; its gradient and Hessian are those of the sub-distance with
// the rows and columns of the unused vertices left at zero.
#pragma once

#include <array>

#include "concord/math/types.hpp"

namespace concord {

/// Gradient over N points from the gradient over the K points listed in `points` (indices into
/// the N stacked points, in the order the sub-distance takes them).
template <int N, int K>
Vec<3 * N> scatter_gradient(const Vec<3 * K>& sub, const std::array<int, K>& points) {
    Vec<3 * N> grad = Vec<3 * N>::Zero();
    for (int i = 0; i < K; ++i) {
        grad.template segment<3>(3 * points[i]) = sub.template segment<3>(3 * i);
    }
    return grad;
}

/// Hessian over N points from the Hessian over the K points listed in `points`.
template <int N, int K>
Mat<3 * N> scatter_hessian(const Mat<3 * K>& sub, const std::array<int, K>& points) {
    Mat<3 * N> H = Mat<3 * N>::Zero();
    for (int i = 0; i < K; ++i) {
        for (int j = 0; j < K; ++j) {
            H.template block<3, 3>(3 * points[i], 3 * points[j]) =
                sub.template block<3, 3>(3 * i, 3 * j);
        }
    }
    return H;
}

}  // namespace concord
