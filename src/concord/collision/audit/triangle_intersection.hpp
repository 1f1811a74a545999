// Exact intersection tests between closed simplices (points, segments, triangles) and the exact
// point-versus-half-space test, built only on the exact sign predicates: no tolerance anywhere.
//
// All sets are CLOSED: a triangle includes its edges and vertices, a segment its endpoints.
// Touching therefore counts as intersecting (a shared vertex, a vertex on a face, an edge on an
// edge, coplanar triangles sharing only an edge). This is deliberate: the engine guarantees a
// strictly positive distance between bodies, so an audit must flag contact at distance zero.
//
// Degenerate inputs are handled exactly: a triangle whose vertices are collinear is the segment
// they span, one whose vertices coincide is a point; a segment with equal endpoints is a point.
#pragma once

#include "concord/math/types.hpp"

namespace concord {

/// True when the closed triangles a0a1a2 and b0b1b2 share at least one point.
bool triangles_intersect(const Vec3& a0, const Vec3& a1, const Vec3& a2, const Vec3& b0,
                         const Vec3& b1, const Vec3& b2);

/// True when the closed segment pq and the closed triangle abc share at least one point.
bool segment_intersects_triangle(const Vec3& p, const Vec3& q, const Vec3& a, const Vec3& b,
                                 const Vec3& c);

/// True when the closed segments pq and rs share at least one point.
bool segments_intersect(const Vec3& p, const Vec3& q, const Vec3& r, const Vec3& s);

/// True when the three points lie on one line (or coincide), decided exactly.
bool collinear(const Vec3& a, const Vec3& b, const Vec3& c);

/// True when p is on or below the plane through plane_point with normal plane_normal, i.e. when
/// dot(p - plane_point, plane_normal) <= 0 exactly. Bodies must stay strictly on the side the
/// normal points to, so a point exactly ON the plane counts as a violation.
bool point_below_plane(const Vec3& p, const Vec3& plane_point, const Vec3& plane_normal);

}  // namespace concord
