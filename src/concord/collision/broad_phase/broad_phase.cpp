#include "concord/collision/broad_phase/broad_phase.hpp"

#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "concord/collision/broad_phase/candidate_blocks.hpp"
#include "concord/collision/broad_phase/sweep_and_prune.hpp"
#include "concord/collision/broad_phase/swept_boxes.hpp"
#include "concord/math/error.hpp"

namespace concord {

using broad_phase_detail::kQueryBlock;

namespace {

void check_positions(const Vertices& x, int num_vertices, const char* name) {
    if (x.rows() != num_vertices)
        throw InputError("broad phase: " + std::string(name) + " has " + std::to_string(x.rows()) +
                         " rows but the collision mesh has " + std::to_string(num_vertices) +
                         " vertices");
    for (Eigen::Index v = 0; v < x.rows(); ++v)
        if (!x.row(v).allFinite())
            throw InputError("broad phase: vertex " + std::to_string(v) + " has a non-finite " +
                             "position in " + name);
}

}  // namespace

void validate_broad_phase_input(const CollisionMesh& mesh, const Vertices& x0, const Vertices& x1,
                                double dhat) {
    if (!std::isfinite(dhat) || dhat < 0)
        throw InputError("broad phase: dhat must be finite and non-negative, got " +
                         std::to_string(dhat));
    validate_collision_mesh(mesh);
    check_positions(x0, mesh.num_vertices(), "x0");
    if (&x1 != &x0) check_positions(x1, mesh.num_vertices(), "x1");
}

std::vector<PointTriangleCandidate> point_triangle_candidates(const CollisionMesh& mesh,
                                                              std::span<const AABB> vertex_boxes,
                                                              const LBVH& face_bvh,
                                                              const BodyPairFilter& filter) {
    const int num_vertices = static_cast<int>(vertex_boxes.size());
    std::vector<std::vector<PointTriangleCandidate>> blocks(
        static_cast<std::size_t>(broad_phase_detail::num_blocks(num_vertices)));
    tbb::parallel_for(std::size_t{0}, blocks.size(), [&](std::size_t b) {
        auto& found = blocks[b];
        const int begin = static_cast<int>(b) * kQueryBlock;
        const int end = std::min(num_vertices, begin + kQueryBlock);
        for (int v = begin; v < end; ++v) {
            const int body = mesh.vertex_body[static_cast<std::size_t>(v)];
            const std::size_t first = found.size();
            face_bvh.query(vertex_boxes[static_cast<std::size_t>(v)], body, [&](int f) {
                const int face_body = mesh.face_body[static_cast<std::size_t>(f)];
                if (face_body != body && (!filter || filter(body, face_body)))
                    found.push_back({v, f});
            });
            // Vertices come in order, so sorting each vertex's faces sorts the whole list.
            std::sort(found.begin() + static_cast<std::ptrdiff_t>(first), found.end());
        }
    });
    return broad_phase_detail::concatenate(blocks);
}

std::vector<EdgeEdgeCandidate> edge_edge_candidates(const CollisionMesh& mesh, const LBVH& edge_bvh,
                                                    const BodyPairFilter& filter) {
    const int num_edges = edge_bvh.size();
    const int bits = broad_phase_detail::index_bits(num_edges);
    std::vector<std::vector<std::uint64_t>> blocks(
        static_cast<std::size_t>(broad_phase_detail::num_blocks(num_edges)));
    tbb::parallel_for(std::size_t{0}, blocks.size(), [&](std::size_t b) {
        auto& found = blocks[b];
        const int begin = static_cast<int>(b) * kQueryBlock;
        const int end = std::min(num_edges, begin + kQueryBlock);
        for (int position = begin; position < end; ++position) {
            const int a = edge_bvh.primitive_at(position);
            const int body_a = mesh.edge_body[static_cast<std::size_t>(a)];
            edge_bvh.query_self_after(position, [&](int other) {
                const int body_other = mesh.edge_body[static_cast<std::size_t>(other)];
                if (body_other == body_a) return;
                const bool a_first = a < other;
                if (filter && !(a_first ? filter(body_a, body_other) : filter(body_other, body_a)))
                    return;
                found.push_back(a_first ? broad_phase_detail::pack_pair(a, other, bits)
                                        : broad_phase_detail::pack_pair(other, a, bits));
            });
        }
    });
    // The self-join visits pairs in tree order, not index order: one global sort restores it.
    return broad_phase_detail::sorted_unique_pairs<EdgeEdgeCandidate>(
        broad_phase_detail::concatenate(blocks), bits, bits);
}

Candidates BroadPhase::find(const CollisionMesh& mesh, const Vertices& x0, const Vertices& x1,
                            const BroadPhaseParams& params) {
    validate_broad_phase_input(mesh, x0, x1, params.dhat);
    const double inflation = 0.5 * params.dhat;
    tbb::parallel_invoke([&] { swept_vertex_boxes(x0, x1, inflation, vertex_boxes_); },
                         [&] { swept_edge_boxes(mesh.edges, x0, x1, inflation, edge_boxes_); },
                         [&] { swept_face_boxes(mesh.faces, x0, x1, inflation, face_boxes_); });

    if (params.method == BroadPhaseMethod::sweep_and_prune)
        return sweep_and_prune_candidates(mesh, vertex_boxes_, edge_boxes_, face_boxes_,
                                          params.body_pair_filter);

    tbb::parallel_invoke([&] { face_tree_.build(face_boxes_, mesh.face_body); },
                         [&] { edge_tree_.build(edge_boxes_, mesh.edge_body); });
    Candidates candidates;
    tbb::parallel_invoke(
        [&] {
            candidates.point_triangle =
                point_triangle_candidates(mesh, vertex_boxes_, face_tree_, params.body_pair_filter);
        },
        [&] {
            candidates.edge_edge = edge_edge_candidates(mesh, edge_tree_, params.body_pair_filter);
        });
    return candidates;
}

Candidates find_candidates(const CollisionMesh& mesh, const Vertices& x0, const Vertices& x1,
                           const BroadPhaseParams& params) {
    return BroadPhase().find(mesh, x0, x1, params);
}

}  // namespace concord
