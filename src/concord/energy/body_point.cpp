#include "concord/energy/body_point.hpp"

#include <string>

#include "concord/math/error.hpp"

namespace concord {

BodyPoint affine_body_point(int body, const Vec3& local) {
    BodyPoint p;
    p.body = body;
    p.local = local;
    p.phi.resize(3, 0);
    return p;
}

void validate_body_point(const BodyPoint& point, Eigen::Index num_dofs, const std::string& what) {
    if (point.is_world()) {
        if (point.num_modes() != 0) throw InputError(what + ": a world point has no modes");
        return;
    }
    if (12 * static_cast<Eigen::Index>(point.body) + 12 > num_dofs)
        throw InputError(what + ": body " + std::to_string(point.body) + " is not in the state");
    if (point.num_modes() > 0 &&
        (point.modal_offset < 0 || point.modal_offset + point.num_modes() > num_dofs))
        throw InputError(what + ": modal coordinates of body " + std::to_string(point.body) +
                         " are not in the state");
    if (!point.local.allFinite() || !point.phi.allFinite())
        throw InputError(what + ": point or mode values are not finite");
}

Mat3 body_frame(int body, const VecX& q) {
    if (body < 0) return Mat3::Identity();
    const int o = 12 * body + 3;
    Mat3 A;
    A << q[o], q[o + 1], q[o + 2], q[o + 3], q[o + 4], q[o + 5], q[o + 6], q[o + 7], q[o + 8];
    return A;
}

Vec3 body_point_position(const BodyPoint& point, const VecX& q) {
    if (point.is_world()) return point.local;
    Vec3 Y = point.local;
    if (point.num_modes() > 0) Y += point.phi * q.segment(point.modal_offset, point.num_modes());
    return q.segment<3>(12 * point.body) + body_frame(point.body, q) * Y;
}

Eigen::Matrix<double, 3, Eigen::Dynamic> body_point_jacobian(const BodyPoint& point,
                                                             const VecX& q) {
    Eigen::Matrix<double, 3, Eigen::Dynamic> J =
        Eigen::Matrix<double, 3, Eigen::Dynamic>::Zero(3, point.num_dofs());
    if (point.is_world()) return J;
    const int m = point.num_modes();
    Vec3 Y = point.local;
    if (m > 0) Y += point.phi * q.segment(point.modal_offset, m);
    for (int i = 0; i < 3; ++i) {
        J(i, i) = 1.0;
        J.block<1, 3>(i, 3 + 3 * i) = Y.transpose();
    }
    if (m > 0) J.rightCols(m) = body_frame(point.body, q) * point.phi;
    return J;
}

JointStencil::JointStencil(const BodyPoint& first, const BodyPoint& second) {
    const std::array<const BodyPoint*, 2> points{&first, &second};
    for (int k = 0; k < 2; ++k) {
        const BodyPoint& p = *points[k];
        offset_[k] = size_;
        if (p.is_world()) continue;
        ranges_.push_back(Range{p.body, size_, 12 * p.body, 12});
        if (p.num_modes() > 0)
            ranges_.push_back(Range{p.body, size_ + 12, p.modal_offset, p.num_modes()});
        size_ += p.num_dofs();
    }
}

int JointStencil::global_index(int i) const {
    for (const Range& r : ranges_)
        if (i >= r.local && i < r.local + r.length) return r.global + (i - r.local);
    return -1;
}

std::vector<int> JointStencil::movable_indices(const std::vector<bool>& movable) const {
    std::vector<int> idx;
    for (const Range& r : ranges_)
        if (movable[r.body])
            for (int i = 0; i < r.length; ++i) idx.push_back(r.local + i);
    return idx;
}

void JointStencil::scatter_gradient(const VecX& g_local, VecX& g,
                                    const std::vector<bool>& movable) const {
    for (const Range& r : ranges_)
        if (movable[r.body]) g.segment(r.global, r.length) += g_local.segment(r.local, r.length);
}

void JointStencil::scatter_hessian(const MatX& H_local, HessianBlocks& H,
                                   const std::vector<bool>& movable) const {
    for (const Range& a : ranges_) {
        if (!movable[a.body]) continue;
        for (const Range& b : ranges_) {
            if (!movable[b.body]) continue;
            H.add(a.global, b.global, H_local.block(a.local, b.local, a.length, b.length));
        }
    }
}

}  // namespace concord
