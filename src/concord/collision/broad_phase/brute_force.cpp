#include "concord/collision/broad_phase/brute_force.hpp"

#include "concord/collision/broad_phase/swept_boxes.hpp"

namespace concord {

Candidates brute_force_candidates(const CollisionMesh& mesh, const Vertices& x0, const Vertices& x1,
                                  const BroadPhaseParams& params) {
    validate_broad_phase_input(mesh, x0, x1, params.dhat);
    const double inflation = 0.5 * params.dhat;
    const std::vector<AABB> vertex_boxes = swept_vertex_boxes(x0, x1, inflation);
    const std::vector<AABB> edge_boxes = swept_edge_boxes(mesh.edges, x0, x1, inflation);
    const std::vector<AABB> face_boxes = swept_face_boxes(mesh.faces, x0, x1, inflation);
    const BodyPairFilter& filter = params.body_pair_filter;
    auto allowed = [&](int body_a, int body_b) {
        return body_a != body_b && (!filter || filter(body_a, body_b));
    };

    // Loops in index order, so both lists come out sorted and free of duplicates.
    Candidates candidates;
    for (int v = 0; v < mesh.num_vertices(); ++v)
        for (int f = 0; f < mesh.num_faces(); ++f)
            if (allowed(mesh.vertex_body[static_cast<std::size_t>(v)],
                        mesh.face_body[static_cast<std::size_t>(f)]) &&
                vertex_boxes[static_cast<std::size_t>(v)].overlaps(
                    face_boxes[static_cast<std::size_t>(f)]))
                candidates.point_triangle.push_back({v, f});
    for (int a = 0; a < mesh.num_edges(); ++a)
        for (int b = a + 1; b < mesh.num_edges(); ++b)
            if (allowed(mesh.edge_body[static_cast<std::size_t>(a)],
                        mesh.edge_body[static_cast<std::size_t>(b)]) &&
                edge_boxes[static_cast<std::size_t>(a)].overlaps(
                    edge_boxes[static_cast<std::size_t>(b)]))
                candidates.edge_edge.push_back({a, b});
    return candidates;
}

}  // namespace concord
