#include "concord/distributed/body_box.hpp"

#include <algorithm>
#include <cmath>

namespace concord {

RestBound rest_bound(const AffineBody& body) {
    RestBound r;
    const auto& v = body.mesh().vertices;
    for (Eigen::Index i = 0; i < v.rows(); ++i) {
        r.box.lo = r.box.lo.cwiseMin(v.row(i).transpose());
        r.box.hi = r.box.hi.cwiseMax(v.row(i).transpose());
    }
    r.centre = r.box.center();
    double r2 = 0.0;
    for (Eigen::Index i = 0; i < v.rows(); ++i)
        r2 = std::max(r2, (v.row(i).transpose() - r.centre).squaredNorm());
    r.radius = std::sqrt(r2);
    return r;
}

Box3 world_box(const RestBound& rest, const Vec12& q) {
    Box3 b;
    for (int c = 0; c < 8; ++c) {
        const Vec3 X((c & 1) ? rest.box.hi.x() : rest.box.lo.x(),
                     (c & 2) ? rest.box.hi.y() : rest.box.lo.y(),
                     (c & 4) ? rest.box.hi.z() : rest.box.lo.z());
        const Vec3 x = affine_apply(q, X);
        b.lo = b.lo.cwiseMin(x);
        b.hi = b.hi.cwiseMax(x);
    }
    // The sphere's image: centre p + A c, extent |row i of A| r along axis i (A row-major in
    // q, as affine_apply reads it).
    const Vec3 c = affine_apply(q, rest.centre);
    for (int i = 0; i < 3; ++i) {
        const double e = q.segment<3>(3 + 3 * i).norm() * rest.radius;
        b.lo[i] = std::max(b.lo[i], c[i] - e);
        b.hi[i] = std::min(b.hi[i], c[i] + e);
    }
    return b;
}

Box3 world_box(const AffineBody& body, const RestBound& rest, const VecX& q) {
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
