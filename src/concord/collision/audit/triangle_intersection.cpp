#include "concord/collision/audit/triangle_intersection.hpp"

#include <algorithm>
#include <array>

#include "concord/collision/audit/exact_predicates.hpp"

namespace concord {

namespace {

// Projection onto the coordinate plane that drops `axis`, keeping the other two coordinates in
// cyclic order. Projecting is exact (it only forgets a coordinate), and with the cyclic order
// orient2d of projected points is the sign of component `axis` of (b - a) x (c - a).
Vec2 drop_axis(const Vec3& p, int axis) {
    return Vec2(p[(axis + 1) % 3], p[(axis + 2) % 3]);
}

bool all_nonnegative(int s0, int s1, int s2) {
    return s0 >= 0 && s1 >= 0 && s2 >= 0;
}
bool all_nonpositive(int s0, int s1, int s2) {
    return s0 <= 0 && s1 <= 0 && s2 <= 0;
}
bool strictly_one_side(int s0, int s1, int s2) {
    return (s0 > 0 && s1 > 0 && s2 > 0) || (s0 < 0 && s1 < 0 && s2 < 0);
}
bool all_zero(int s0, int s1, int s2) {
    return s0 == 0 && s1 == 0 && s2 == 0;
}

int orient2d_dropping(const Vec3& a, const Vec3& b, const Vec3& c, int axis) {
    return orient2d(drop_axis(a, axis), drop_axis(b, axis), drop_axis(c, axis));
}

// An axis whose projection is injective on the plane of the non-collinear triangle abc: any axis
// along which the exact normal has a nonzero component. The largest rounded component is tried
// first because it is almost always right, then the others, so the choice is exact regardless.
// Returns -1 only when abc is collinear.
int injective_axis_for_plane(const Vec3& a, const Vec3& b, const Vec3& c) {
    const Vec3 normal = (b - a).cross(c - a);
    int preferred = 0;
    normal.cwiseAbs().maxCoeff(&preferred);
    if (orient2d_dropping(a, b, c, preferred) != 0) return preferred;
    for (int axis = 0; axis < 3; ++axis)
        if (axis != preferred && orient2d_dropping(a, b, c, axis) != 0) return axis;
    return -1;
}

// An axis whose projection is injective on the affine hull of the given coplanar points: the
// plane of any non-collinear triple if there is one, otherwise the line through two distinct
// points (any axis that keeps those two apart), otherwise (all points equal) any axis.
int injective_axis_for_coplanar(const std::array<const Vec3*, 4>& pts) {
    for (int i = 0; i < 4; ++i)
        for (int j = i + 1; j < 4; ++j)
            for (int k = j + 1; k < 4; ++k) {
                const int axis = injective_axis_for_plane(*pts[i], *pts[j], *pts[k]);
                if (axis >= 0) return axis;
            }
    for (int i = 1; i < 4; ++i)
        for (int axis = 0; axis < 3; ++axis)
            if (drop_axis(*pts[0], axis) != drop_axis(*pts[i], axis)) return axis;
    return 0;
}

// r is collinear with p and q; then it lies on the closed segment pq exactly when it lies in the
// segment's closed bounding box. Works for p == q too (the box is the point).
bool in_segment_box(const Vec2& p, const Vec2& q, const Vec2& r) {
    return std::min(p.x(), q.x()) <= r.x() && r.x() <= std::max(p.x(), q.x()) &&
           std::min(p.y(), q.y()) <= r.y() && r.y() <= std::max(p.y(), q.y());
}

// Closed segments in the plane, any degeneracy. They meet when they cross properly or when an
// endpoint of one lies on the other: if they meet at a point interior to both, either the
// supporting lines differ and each segment strictly straddles the other's line, or the lines
// coincide and then an endpoint of one lies inside the other.
bool segments_intersect_2d(const Vec2& p, const Vec2& q, const Vec2& r, const Vec2& s) {
    const int o1 = orient2d(p, q, r), o2 = orient2d(p, q, s);
    const int o3 = orient2d(r, s, p), o4 = orient2d(r, s, q);
    if (o1 * o2 < 0 && o3 * o4 < 0) return true;
    return (o1 == 0 && in_segment_box(p, q, r)) || (o2 == 0 && in_segment_box(p, q, s)) ||
           (o3 == 0 && in_segment_box(r, s, p)) || (o4 == 0 && in_segment_box(r, s, q));
}

// Closed point-in-triangle for a non-degenerate 2D triangle of either orientation.
bool point_in_triangle_2d(const Vec2& p, const Vec2& a, const Vec2& b, const Vec2& c) {
    const int o1 = orient2d(a, b, p), o2 = orient2d(b, c, p), o3 = orient2d(c, a, p);
    return all_nonnegative(o1, o2, o3) || all_nonpositive(o1, o2, o3);
}

// A closed segment and a closed non-degenerate triangle in one plane, projected along `axis`
// (injective on that plane): the segment meets the triangle when an endpoint is inside or the
// segment crosses the boundary.
bool segment_meets_triangle_2d(const Vec2& p, const Vec2& q, const Vec2& a, const Vec2& b,
                               const Vec2& c) {
    return point_in_triangle_2d(p, a, b, c) || point_in_triangle_2d(q, a, b, c) ||
           segments_intersect_2d(p, q, a, b) || segments_intersect_2d(p, q, b, c) ||
           segments_intersect_2d(p, q, c, a);
}

// Closed segment pq against the closed non-degenerate triangle abc, given sp = orient3d(a, b, c,
// p) and sq = orient3d(a, b, c, q).
//
// When pq is not parallel to the plane and reaches it (signs not strictly equal), it meets the
// plane in one point X of the segment. For each edge ab, orient3d(p, q, a, b) equals
// sign(dot(q - p, n)) times the orientation of X, a, b within the plane, with the same first
// factor for all three edges; so X lies in the closed triangle exactly when the three signs are
// all >= 0 or all <= 0 (a zero means X is on that edge's line).
bool segment_meets_proper_triangle(const Vec3& p, const Vec3& q, int sp, int sq, const Vec3& a,
                                   const Vec3& b, const Vec3& c) {
    if (sp * sq > 0) return false;
    if (sp == 0 && sq == 0) {
        const int axis = injective_axis_for_plane(a, b, c);
        return segment_meets_triangle_2d(drop_axis(p, axis), drop_axis(q, axis), drop_axis(a, axis),
                                         drop_axis(b, axis), drop_axis(c, axis));
    }
    const int o1 = orient3d(p, q, a, b);
    const int o2 = orient3d(p, q, b, c);
    if (o1 * o2 < 0) return false;
    const int o3 = orient3d(p, q, c, a);
    return all_nonnegative(o1, o2, o3) || all_nonpositive(o1, o2, o3);
}

// Two closed non-degenerate triangles in one plane: they meet when a vertex of one lies in the
// other or an edge of one crosses an edge of the other. (An extreme point of the intersection
// lies on the boundary of one triangle; the edge through it either has an endpoint inside the
// other triangle or enters it through an edge.)
bool coplanar_triangles_intersect(const Vec3& a0, const Vec3& a1, const Vec3& a2, const Vec3& b0,
                                  const Vec3& b1, const Vec3& b2) {
    const int axis = injective_axis_for_plane(a0, a1, a2);
    const std::array<Vec2, 3> a = {drop_axis(a0, axis), drop_axis(a1, axis), drop_axis(a2, axis)};
    const std::array<Vec2, 3> b = {drop_axis(b0, axis), drop_axis(b1, axis), drop_axis(b2, axis)};
    for (int i = 0; i < 3; ++i) {
        if (point_in_triangle_2d(a[i], b[0], b[1], b[2])) return true;
        if (point_in_triangle_2d(b[i], a[0], a[1], a[2])) return true;
    }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (segments_intersect_2d(a[i], a[(i + 1) % 3], b[j], b[(j + 1) % 3])) return true;
    return false;
}

}  // namespace

bool collinear(const Vec3& a, const Vec3& b, const Vec3& c) {
    // The three projections' orientations are the signs of the components of (b - a) x (c - a).
    return orient2d_dropping(a, b, c, 2) == 0 && orient2d_dropping(a, b, c, 0) == 0 &&
           orient2d_dropping(a, b, c, 1) == 0;
}

bool segments_intersect(const Vec3& p, const Vec3& q, const Vec3& r, const Vec3& s) {
    if (orient3d(p, q, r, s) != 0) return false;
    const int axis = injective_axis_for_coplanar({&p, &q, &r, &s});
    return segments_intersect_2d(drop_axis(p, axis), drop_axis(q, axis), drop_axis(r, axis),
                                 drop_axis(s, axis));
}

bool segment_intersects_triangle(const Vec3& p, const Vec3& q, const Vec3& a, const Vec3& b,
                                 const Vec3& c) {
    // A collinear triangle is the union of its three edges.
    if (collinear(a, b, c))
        return segments_intersect(p, q, a, b) || segments_intersect(p, q, b, c) ||
               segments_intersect(p, q, c, a);
    return segment_meets_proper_triangle(p, q, orient3d(a, b, c, p), orient3d(a, b, c, q), a, b, c);
}

// Two closed triangles meet exactly when an edge of one meets the other triangle: an extreme
// point of their (convex) intersection lies on the boundary of one of them, i.e. on one of its
// edges. Before that, the cheap separating-plane rejections: all of B strictly on one side of
// A's plane (or the reverse) means no contact. A degenerate triangle gives all-zero signs and
// never rejects.
bool triangles_intersect(const Vec3& a0, const Vec3& a1, const Vec3& a2, const Vec3& b0,
                         const Vec3& b1, const Vec3& b2) {
    const int sb0 = orient3d(a0, a1, a2, b0);
    const int sb1 = orient3d(a0, a1, a2, b1);
    const int sb2 = orient3d(a0, a1, a2, b2);
    if (strictly_one_side(sb0, sb1, sb2)) return false;
    const int sa0 = orient3d(b0, b1, b2, a0);
    const int sa1 = orient3d(b0, b1, b2, a1);
    const int sa2 = orient3d(b0, b1, b2, a2);
    if (strictly_one_side(sa0, sa1, sa2)) return false;

    // A triangle can only be degenerate when every point is "coplanar" with it.
    if (all_zero(sb0, sb1, sb2) && collinear(a0, a1, a2))
        return segment_intersects_triangle(a0, a1, b0, b1, b2) ||
               segment_intersects_triangle(a1, a2, b0, b1, b2) ||
               segment_intersects_triangle(a2, a0, b0, b1, b2);
    if (all_zero(sa0, sa1, sa2) && collinear(b0, b1, b2))
        return segment_intersects_triangle(b0, b1, a0, a1, a2) ||
               segment_intersects_triangle(b1, b2, a0, a1, a2) ||
               segment_intersects_triangle(b2, b0, a0, a1, a2);

    // Both proper: all-zero signs now mean the triangles share one plane.
    if (all_zero(sb0, sb1, sb2)) return coplanar_triangles_intersect(a0, a1, a2, b0, b1, b2);

    return segment_meets_proper_triangle(a0, a1, sa0, sa1, b0, b1, b2) ||
           segment_meets_proper_triangle(a1, a2, sa1, sa2, b0, b1, b2) ||
           segment_meets_proper_triangle(a2, a0, sa2, sa0, b0, b1, b2) ||
           segment_meets_proper_triangle(b0, b1, sb0, sb1, a0, a1, a2) ||
           segment_meets_proper_triangle(b1, b2, sb1, sb2, a0, a1, a2) ||
           segment_meets_proper_triangle(b2, b0, sb2, sb0, a0, a1, a2);
}

bool point_below_plane(const Vec3& p, const Vec3& plane_point, const Vec3& plane_normal) {
    return plane_side(p, plane_point, plane_normal) <= 0;
}

}  // namespace concord
