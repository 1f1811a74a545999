#include "concord/distributed/body_box.hpp"

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

}  // namespace concord
