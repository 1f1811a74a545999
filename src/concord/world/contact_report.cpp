#include "concord/world/contact_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "concord/collision/barrier/barrier.hpp"
#include "concord/collision/broad_phase/body_pair_filter.hpp"
#include "concord/collision/broad_phase/broad_phase.hpp"
#include "concord/collision/distance/edge_edge.hpp"
#include "concord/collision/distance/point_triangle.hpp"
#include "concord/energy/contact_set.hpp"
#include "concord/energy/contact_surface.hpp"
#include "concord/world/world.hpp"

namespace concord {

namespace {

/// First global index of each body's elements, given the body of every element (elements are
/// appended body after body, so each body's range is contiguous).
std::vector<int> element_begin(const std::vector<int>& element_body, int num_bodies) {
    std::vector<int> begin(static_cast<std::size_t>(num_bodies) + 1, 0);
    for (int b : element_body) ++begin[static_cast<std::size_t>(b) + 1];
    for (std::size_t b = 1; b < begin.size(); ++b) begin[b] += begin[b - 1];
    return begin;
}

}  // namespace

ContactReport report_contacts(const World& world) {
    const WorldState state = world.capture_state();
    const SceneSpec& spec = world.spec();
    const int B = world.num_bodies();

    ContactReport report;
    report.time = state.time;
    report.dhat = spec.contact.dhat;
    report.barrier_stiffness = state.barrier_stiffness;
    report.time_step = std::ldexp(spec.time_step, -std::max(0, state.time_step_level));

    // The world keeps its surface private; rebuilding it from the bodies gives the same global
    // numbering (bodies in order, each body's mesh as built).
    std::vector<AffineBody> bodies;
    bodies.reserve(static_cast<std::size_t>(B));
    std::vector<bool> movable;
    std::vector<std::uint8_t> is_static;
    for (int b = 0; b < B; ++b) {
        bodies.push_back(world.body(b));
        movable.push_back(bodies.back().motion != MotionType::Static);
        is_static.push_back(movable.back() ? 0 : 1);
    }
    std::vector<HalfSpace> planes;
    for (const auto& p : spec.planes) planes.push_back({p.point, p.normal.normalized()});

    const ContactSurface surface = build_contact_surface(bodies);
    const Vertices x = surface.positions(state.q);
    BroadPhaseParams bp;
    bp.dhat = report.dhat;
    bp.body_pair_filter = contact_pair_filter(is_static, spec.contact.exclude);
    const Candidates candidates = find_candidates(surface.mesh, x, x, bp);
    const std::vector<PointPlaneCandidate> plane_candidates =
        point_plane_candidates(surface, x, x, planes, movable, report.dhat);
    const ContactSet set =
        build_contact_set(surface, x, candidates, plane_candidates, planes, report.dhat);

    const double dhat_sq = report.dhat * report.dhat;
    const double h_sq = report.time_step * report.time_step;
    auto add = [&](ContactKind kind, int body_a, int body_b, int element_a, int element_b,
                   double distance_sq) {
        ContactInfo c;
        c.kind = kind;
        c.body_a = body_a;
        c.body_b = body_b;
        c.element_a = element_a;
        c.element_b = element_b;
        c.distance = std::sqrt(distance_sq);
        c.barrier_force = report.barrier_stiffness *
                          std::abs(barrier_first_derivative(distance_sq, dhat_sq)) * 2.0 *
                          c.distance;
        c.force = c.barrier_force / h_sq;
        report.contacts.push_back(c);
    };

    const auto& faces = surface.mesh.faces;
    const auto& edges = surface.mesh.edges;
    const std::vector<int> face_begin = element_begin(surface.mesh.face_body, B);
    const std::vector<int> edge_begin = element_begin(surface.mesh.edge_body, B);
    auto X = [&](int v) -> Vec3 { return x.row(v).transpose(); };
    auto local_vertex = [&](int v) {
        return v - surface.body_vertex_begin[static_cast<std::size_t>(surface.body_of_vertex(v))];
    };
    report.contacts.reserve(set.size());
    for (const auto& c : set.point_triangle) {
        const int fb = surface.mesh.face_body[static_cast<std::size_t>(c.face)];
        add(ContactKind::PointTriangle, surface.body_of_vertex(c.vertex), fb,
            local_vertex(c.vertex), c.face - face_begin[static_cast<std::size_t>(fb)],
            point_triangle_distance_sq(X(c.vertex), X(faces(c.face, 0)), X(faces(c.face, 1)),
                                       X(faces(c.face, 2)), c.type));
    }
    for (const auto& c : set.edge_edge) {
        const int ba = surface.mesh.edge_body[static_cast<std::size_t>(c.edge_a)];
        const int bb = surface.mesh.edge_body[static_cast<std::size_t>(c.edge_b)];
        add(ContactKind::EdgeEdge, ba, bb, c.edge_a - edge_begin[static_cast<std::size_t>(ba)],
            c.edge_b - edge_begin[static_cast<std::size_t>(bb)],
            edge_edge_distance_sq(X(edges(c.edge_a, 0)), X(edges(c.edge_a, 1)),
                                  X(edges(c.edge_b, 0)), X(edges(c.edge_b, 1)), c.type));
    }
    for (const auto& c : set.point_plane) {
        const double sd =
            plane_signed_distance(planes[static_cast<std::size_t>(c.plane)], X(c.vertex));
        add(ContactKind::PointPlane, surface.body_of_vertex(c.vertex), c.plane,
            local_vertex(c.vertex), c.plane, sd * sd);
    }
    return report;
}

}  // namespace concord
