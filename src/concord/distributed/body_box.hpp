// World-space boxes of bodies for the partition: the rest mesh's box mapped by x = p + A X
// (the image of its 8 corners bounds the image of the box, the map being affine).
#pragma once

#include "concord/body/affine_body.hpp"
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
/// A displacement bound of an affine change dq of a body with radius r: |dp|_inf + |dA|_max r
/// (the measure of the single-machine step criterion).
inline double affine_displacement(const Vec12& dq, double radius) {
    return dq.head<3>().cwiseAbs().maxCoeff() + dq.tail<9>().cwiseAbs().maxCoeff() * radius;
}
/// The same measure for a change of a body's whole coordinate block (12 affine numbers, then
/// its modal coordinates): the affine measure or the largest |d eta_k| times the mode's largest
/// displacement, whichever is larger, as the single-machine step criterion measures it.
double body_displacement(const AffineBody& body, const VecX& d);
/// Box of the body at coordinate block q (12 affine numbers, then its modal coordinates): the
/// rest box mapped by the affine part, grown by how far the modes can move a vertex
/// (sum_k |eta_k| max|Phi_k|, times the largest stretch of A, bounded by its Frobenius norm).
Box3 world_box(const AffineBody& body, const Box3& rest, const VecX& q);

}  // namespace concord
