#include "concord/world/initial_state_check.hpp"

#include <cmath>
#include <sstream>

#include "concord/collision/audit/intersection_audit.hpp"
#include "concord/collision/broad_phase/body_pair_filter.hpp"
#include "concord/collision/broad_phase/body_pairs.hpp"
#include "concord/collision/broad_phase/broad_phase.hpp"
#include "concord/collision/distance/edge_edge.hpp"
#include "concord/collision/distance/point_triangle.hpp"
#include "concord/math/error.hpp"

namespace concord {

namespace {

std::string quoted(const std::string& s) { return "'" + s + "'"; }

std::string format_distance(double d) {
    std::ostringstream os;
    os << d;
    return os.str();
}

}  // namespace

void check_initial_state(const std::vector<AffineBody>& bodies, const ContactSurface& surface,
                         const VecX& q, const std::vector<HalfSpace>& planes, double dhat,
                         const std::vector<std::pair<int, int>>& excluded) {
    const int B = static_cast<int>(bodies.size());
    std::vector<std::uint8_t> is_static(static_cast<std::size_t>(B));
    for (int b = 0; b < B; ++b) is_static[b] = bodies[b].motion == MotionType::Static;

    // 1. Exact intersection test between the surfaces of different bodies and against planes.
    std::vector<Vertices> world(static_cast<std::size_t>(B));
    std::vector<AuditBody> audit_bodies(static_cast<std::size_t>(B));
    for (int b = 0; b < B; ++b) {
        const AffineBody& body = bodies[b];
        world[b].resize(body.mesh().num_vertices(), 3);
        for (int v = 0; v < body.mesh().num_vertices(); ++v)
            world[b].row(v) =
                affine_apply(q.segment<12>(12 * b), body.mesh().vertices.row(v).transpose())
                    .transpose();
        audit_bodies[b] = {&body.mesh().faces, &world[b]};
    }
    const AuditResult audit = audit_intersections(audit_bodies, planes, 64, excluded);
    for (const auto& hit : audit.triangle_hits) {
        if (is_static[hit.body_a] && is_static[hit.body_b]) continue;
        throw InputError("initial state: bodies " + quoted(bodies[hit.body_a].name) + " and " +
                         quoted(bodies[hit.body_b].name) + " intersect (faces " +
                         std::to_string(hit.face_a) + " and " + std::to_string(hit.face_b) + ")");
    }
    for (const auto& hit : audit.plane_hits) {
        if (is_static[hit.body]) continue;
        throw InputError("initial state: body " + quoted(bodies[hit.body].name) +
                         " is on or below plane " + std::to_string(hit.plane) + " (vertex " +
                         std::to_string(hit.vertex) + ")");
    }

    // 2. Distances: nothing may start closer than a tiny fraction of dhat.
    const double limit = kTouchingFractionOfDhat * dhat;
    const Vertices x = surface.positions(q);
    BroadPhaseParams bp;
    bp.dhat = limit;
    bp.body_pair_filter = contact_pair_filter(is_static, excluded);
    // Which bodies have a candidate at all first (cheap: bodies' boxes, then the first pair of
    // primitive boxes near the other body): a scene that starts with its bodies apart, as most
    // do, needs no candidate list over every primitive.
    const Candidates c = interacting_body_pairs(surface.mesh, x, x, bp).empty()
                             ? Candidates{}
                             : find_candidates(surface.mesh, x, x, bp);
    auto X = [&](int v) -> Vec3 { return x.row(v).transpose(); };
    const auto& f = surface.mesh.faces;
    const auto& e = surface.mesh.edges;
    auto fail = [&](int a, int b, double d) {
        throw InputError("initial state: bodies " + quoted(bodies[a].name) + " and " +
                         quoted(bodies[b].name) + " touch (distance " + format_distance(d) +
                         " m is below " + format_distance(limit) + " m = " +
                         format_distance(kTouchingFractionOfDhat) + " dhat)");
    };
    for (const auto& p : c.point_triangle) {
        const double d = std::sqrt(point_triangle_distance_sq(X(p.vertex), X(f(p.face, 0)), X(f(p.face, 1)), X(f(p.face, 2))));
        if (d < limit) fail(surface.body_of_vertex(p.vertex), surface.mesh.face_body[p.face], d);
    }
    for (const auto& p : c.edge_edge) {
        const double d = std::sqrt(edge_edge_distance_sq(X(e(p.edge_a, 0)), X(e(p.edge_a, 1)), X(e(p.edge_b, 0)), X(e(p.edge_b, 1))));
        if (d < limit) fail(surface.mesh.edge_body[p.edge_a], surface.mesh.edge_body[p.edge_b], d);
    }
    for (int v = 0; v < surface.num_vertices(); ++v) {
        const int b = surface.body_of_vertex(v);
        if (is_static[b]) continue;
        for (std::size_t p = 0; p < planes.size(); ++p) {
            const double d = plane_signed_distance(planes[p], X(v));
            if (d < limit)
                throw InputError("initial state: body " + quoted(bodies[b].name) + " touches plane " +
                                 std::to_string(p) + " (distance " + format_distance(d) + " m)");
        }
    }
}

}  // namespace concord
