// World-space boxes of bodies for the partition. Two bounds of the rest mesh are mapped by
// x = p + A X and the box is their intersection: the rest box (the image of its 8 corners
// bounds the image of the box, the map being affine) and the bounding sphere about the rest
// box's centre (its image is an ellipsoid whose extent along axis i is |row i of A| r). The
// corners alone bound a rotated round body loosely (a sphere turned by 45 degrees about one axis
// gets a box 1.41 times its diameter), and such boxes make bodies near a plane shared that no
// body across the plane can reach.
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

/// Bounds of the body's rest mesh in its local coordinates: its box, and the smallest sphere
/// about the box's centre that holds every vertex.
struct RestBound {
    Box3 box;
    Vec3 centre = Vec3::Zero();
    double radius = 0.0;
};
RestBound rest_bound(const AffineBody& body);
/// Box of the body at affine state q: the box of the mapped rest box cut by the box of the
/// mapped sphere.
Box3 world_box(const RestBound& rest, const Vec12& q);
/// Box of the body at coordinate block q (12 affine numbers, then its modal coordinates): the
/// affine part's box as above, grown by how far the modes can move a vertex (sum_k |eta_k|
/// max|Phi_k|, times the largest stretch of A, bounded by its Frobenius norm).
Box3 world_box(const AffineBody& body, const RestBound& rest, const VecX& q);

}  // namespace concord
