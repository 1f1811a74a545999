// World-space boxes of bodies for the partition: the rest mesh's box mapped by x = p + A X
// (the image of its 8 corners bounds the image of the box, the map being affine).
#pragma once

#include "concord/body/affine_body.hpp"
#include "concord/body/body_motion.hpp"
#include "concord/math/types.hpp"

namespace concord {

struct Box3 {
    Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity());
    Vec3 hi = Vec3::Constant(-std::numeric_limits<double>::infinity());

    void extend(const Box3& b) {
        lo = lo.cwiseMin(b.lo);
        hi = hi.cwiseMax(b.hi);
    }
    void inflate(double r) {
        lo.array() -= r;
        hi.array() += r;
    }
    bool overlaps(const Box3& b) const {
        return (lo.array() <= b.hi.array()).all() && (b.lo.array() <= hi.array()).all();
    }
    Vec3 center() const { return 0.5 * (lo + hi); }
};

/// Box of the body's rest mesh in its local coordinates.
Box3 rest_box(const AffineBody& body);
/// Box of the body at affine state q, from its rest box.
Box3 world_box(const Box3& rest, const Vec12& q);
/// Box of the body at coordinate block q (12 affine numbers, then its modal coordinates): the
/// rest box mapped by the affine part, grown by how far the modes can move a vertex
/// (sum_k |eta_k| max|Phi_k|, times the largest stretch of A, bounded by its Frobenius norm).
Box3 world_box(const AffineBody& body, const Box3& rest, const VecX& q);

}  // namespace concord
