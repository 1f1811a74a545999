// The exact intersection audit of a configuration: do the surfaces of different bodies share a
// point, and does any vertex lie on or below a half-space's boundary plane?
//
// Every decision is exact (see exact_predicates.hpp), and contact at distance zero counts: the
// engine promises strictly positive distances, so touching is reported as a violation.
// Triangles of the same body are never tested against each other, and a body entirely inside
// another without any surface contact is not reported: the audit compares surfaces. (From an
// intersection-free start, continuous collision detection makes that state unreachable without
// first crossing surfaces, but the audit of a single frame cannot see the path.)
#pragma once

#include <cstdint>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "concord/geometry/half_space.hpp"
#include "concord/math/types.hpp"

namespace concord {

/// One body's surface in world coordinates. Non-owning: both matrices must outlive the audit.
struct AuditBody {
    const Faces* faces = nullptr;        ///< F x 3 indices into *vertices
    const Vertices* vertices = nullptr;  ///< V x 3 world positions
};

/// Two triangles of different bodies that share a point; body_a < body_b. Ordered by body pair
/// first, then by face pair.
struct TriangleHit {
    int body_a, face_a;
    int body_b, face_b;
    friend bool operator==(const TriangleHit&, const TriangleHit&) = default;
    friend auto operator<=>(const TriangleHit& x, const TriangleHit& y) {
        return std::tie(x.body_a, x.body_b, x.face_a, x.face_b) <=>
               std::tie(y.body_a, y.body_b, y.face_a, y.face_b);
    }
};

/// A vertex on or below a half-space's boundary plane. Ordered by body, vertex, plane.
struct PlaneHit {
    int body, vertex, plane;
    friend bool operator==(const PlaneHit&, const PlaneHit&) = default;
    friend auto operator<=>(const PlaneHit&, const PlaneHit&) = default;
};

struct AuditResult {
    bool clean = true;                       ///< no triangle hit and no plane hit
    std::int64_t triangle_hit_count = 0;     ///< all intersecting triangle pairs
    std::int64_t plane_hit_count = 0;        ///< all (vertex, plane) violations
    std::vector<TriangleHit> triangle_hits;  ///< the first max_reports in TriangleHit order
    std::vector<PlaneHit> plane_hits;        ///< the first max_reports in PlaneHit order
};

/// Audits the bodies against each other and against the half-spaces. Reports are the smallest
/// hits in the order of their types (independent of the thread count), at most max_reports of
/// each kind (a negative value counts as 0); the counts cover every hit.
/// Raises InputError for a missing matrix, a face index out of range, a non-finite vertex, or a
/// plane with a non-finite point or a zero or non-finite normal, naming the body and element.
/// Body pairs in `excluded` ((a, b), a < b, sorted: the scene's contact.exclude) are not
/// compared: their surfaces may overlap (a robot's adjacent links).
AuditResult audit_intersections(std::span<const AuditBody> bodies,
                                std::span<const HalfSpace> planes, int max_reports = 16,
                                std::span<const std::pair<int, int>> excluded = {});

}  // namespace concord
