#include "concord/distributed/body_box.hpp"

#include <algorithm>
#include <cmath>

namespace concord {

Box3 rest_box(const AffineBody& body) {
    Box3 b;
    const auto& v = body.mesh.vertices;
    for (Eigen::Index i = 0; i < v.rows(); ++i) {
        b.lo = b.lo.cwiseMin(v.row(i).transpose());
        b.hi = b.hi.cwiseMax(v.row(i).transpose());
    }
    return b;
}

Box3 world_box(const Box3& rest, const Vec12& q) {
    Box3 b;
    for (int c = 0; c < 8; ++c) {
        const Vec3 X((c & 1) ? rest.hi.x() : rest.lo.x(), (c & 2) ? rest.hi.y() : rest.lo.y(),
                     (c & 4) ? rest.hi.z() : rest.lo.z());
        const Vec3 x = affine_apply(q, X);
        b.lo = b.lo.cwiseMin(x);
        b.hi = b.hi.cwiseMax(x);
    }
    return b;
}

Box3 world_box(const AffineBody& body, const Box3& rest, const VecX& q) {
    Box3 b = world_box(rest, Vec12(q.head<12>()));
    if (body.is_elastic()) {
        const Eigen::Index m = body.modal->num_modes;
        const double reach =
            q.segment(12, m).cwiseAbs().dot(body.modal->mode_scale) * q.segment<9>(3).norm();
        b.inflate(reach);
    }
    return b;
}

}  // namespace concord
