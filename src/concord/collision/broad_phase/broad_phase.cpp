#include "concord/collision/broad_phase/broad_phase.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "concord/collision/broad_phase/candidate_blocks.hpp"
#include "concord/collision/broad_phase/sweep_and_prune.hpp"
#include "concord/collision/broad_phase/swept_boxes.hpp"
#include "concord/math/error.hpp"
#include "concord/math/parallel_all_of.hpp"

namespace concord {

using broad_phase_detail::kQueryBlock;

namespace {

void check_positions(const Vertices& x, int num_vertices, const char* name) {
    if (x.rows() != num_vertices)
        throw InputError("broad phase: " + std::string(name) + " has " + std::to_string(x.rows()) +
                         " rows but the collision mesh has " + std::to_string(num_vertices) +
                         " vertices");
    if (parallel_all_of(x.rows(), [&](long v) { return x.row(v).allFinite(); })) return;
    for (Eigen::Index v = 0; v < x.rows(); ++v)
        if (!x.row(v).allFinite())
            throw InputError("broad phase: vertex " + std::to_string(v) + " has a non-finite " +
                             "position in " + name);
}

}  // namespace

void validate_broad_phase_input(const CollisionMesh& mesh, const Vertices& x0, const Vertices& x1,
                                double dhat) {
    validate_collision_mesh(mesh);
    validate_broad_phase_positions(mesh, x0, x1, dhat);
}

void validate_broad_phase_positions(const CollisionMesh& mesh, const Vertices& x0,
                                    const Vertices& x1, double dhat) {
    if (!std::isfinite(dhat) || dhat < 0)
        throw InputError("broad phase: dhat must be finite and non-negative, got " +
                         std::to_string(dhat));
    check_positions(x0, mesh.num_vertices(), "x0");
    if (&x1 != &x0) check_positions(x1, mesh.num_vertices(), "x1");
}

namespace {

// The candidate queries over trees built on a subset of the primitives: `face_index[i]` /
// `edge_index[i]` is the mesh index of the tree's primitive i (null: the tree holds them all),
// and the vertices queried are `vertices` (null: all of them), in increasing order.
std::vector<PointTriangleCandidate> point_triangle_query(const CollisionMesh& mesh,
                                                         std::span<const AABB> vertex_boxes,
                                                         const std::vector<int>* vertices,
                                                         const LBVH& face_bvh,
                                                         const std::vector<int>* face_index,
                                                         const BodyPairFilter& filter) {
    const int num_queries =
        vertices ? static_cast<int>(vertices->size()) : static_cast<int>(vertex_boxes.size());
    std::vector<std::vector<PointTriangleCandidate>> blocks(
        static_cast<std::size_t>(broad_phase_detail::num_blocks(num_queries)));
    tbb::parallel_for(std::size_t{0}, blocks.size(), [&](std::size_t b) {
        auto& found = blocks[b];
        const int begin = static_cast<int>(b) * kQueryBlock;
        const int end = std::min(num_queries, begin + kQueryBlock);
        for (int i = begin; i < end; ++i) {
            const int v = vertices ? (*vertices)[static_cast<std::size_t>(i)] : i;
            const int body = mesh.vertex_body[static_cast<std::size_t>(v)];
            const std::size_t first = found.size();
            face_bvh.query(vertex_boxes[static_cast<std::size_t>(v)], body, [&](int leaf) {
                const int f = face_index ? (*face_index)[static_cast<std::size_t>(leaf)] : leaf;
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

std::vector<EdgeEdgeCandidate> edge_edge_query(const CollisionMesh& mesh, const LBVH& edge_bvh,
                                               const std::vector<int>* edge_index,
                                               const BodyPairFilter& filter) {
    const int num_edges = edge_bvh.size();
    const int bits = broad_phase_detail::index_bits(mesh.num_edges());
    std::vector<std::vector<std::uint64_t>> blocks(
        static_cast<std::size_t>(broad_phase_detail::num_blocks(num_edges)));
    auto global = [&](int leaf) {
        return edge_index ? (*edge_index)[static_cast<std::size_t>(leaf)] : leaf;
    };
    tbb::parallel_for(std::size_t{0}, blocks.size(), [&](std::size_t b) {
        auto& found = blocks[b];
        const int begin = static_cast<int>(b) * kQueryBlock;
        const int end = std::min(num_edges, begin + kQueryBlock);
        for (int position = begin; position < end; ++position) {
            const int a = global(edge_bvh.primitive_at(position));
            const int body_a = mesh.edge_body[static_cast<std::size_t>(a)];
            edge_bvh.query_self_after(position, [&](int leaf) {
                const int other = global(leaf);
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

// Indices i in [0, n) with keep(i), in increasing order (the flags are computed in parallel).
template <class Keep>
void select(int n, Keep&& keep, std::vector<std::uint8_t>& flags, std::vector<int>& out) {
    flags.resize(static_cast<std::size_t>(n));
    tbb::parallel_for(tbb::blocked_range<int>(0, n, 1024), [&](const tbb::blocked_range<int>& r) {
        for (int i = r.begin(); i != r.end(); ++i) flags[static_cast<std::size_t>(i)] = keep(i);
    });
    out.clear();
    for (int i = 0; i < n; ++i)
        if (flags[static_cast<std::size_t>(i)]) out.push_back(i);
}

}  // namespace

std::vector<PointTriangleCandidate> point_triangle_candidates(const CollisionMesh& mesh,
                                                              std::span<const AABB> vertex_boxes,
                                                              const LBVH& face_bvh,
                                                              const BodyPairFilter& filter) {
    return point_triangle_query(mesh, vertex_boxes, nullptr, face_bvh, nullptr, filter);
}

std::vector<EdgeEdgeCandidate> edge_edge_candidates(const CollisionMesh& mesh, const LBVH& edge_bvh,
                                                    const BodyPairFilter& filter) {
    return edge_edge_query(mesh, edge_bvh, nullptr, filter);
}

void BroadPhase::select_near_other_bodies(const CollisionMesh& mesh, const BodyPairFilter& filter) {
    // Body boxes: the union of their vertices' (inflated) boxes, which hold their edges' and
    // faces' boxes too (each the union of its corners' boxes), so that a primitive box
    // overlapping another body's primitive box also overlaps that body's box.
    int num_bodies = 0;
    for (int b : mesh.vertex_body) num_bodies = std::max(num_bodies, b + 1);
    body_boxes_.assign(static_cast<std::size_t>(num_bodies), AABB{});
    for (int v = 0; v < mesh.num_vertices(); ++v)
        body_boxes_[static_cast<std::size_t>(mesh.vertex_body[static_cast<std::size_t>(v)])].expand(
            vertex_boxes_[static_cast<std::size_t>(v)]);

    // Pairs of bodies whose boxes overlap and that the filter accepts in either order: sweep
    // over the bodies sorted by the lower x of their box.
    std::vector<int> order;
    for (int b = 0; b < num_bodies; ++b)
        if (!body_boxes_[static_cast<std::size_t>(b)].empty()) order.push_back(b);
    std::sort(order.begin(), order.end(), [&](int a, int b) {
        const double xa = body_boxes_[static_cast<std::size_t>(a)].min[0];
        const double xb = body_boxes_[static_cast<std::size_t>(b)].min[0];
        return xa < xb || (xa == xb && a < b);
    });
    std::vector<std::vector<int>> near(static_cast<std::size_t>(num_bodies));
    for (std::size_t i = 0; i < order.size(); ++i) {
        const int a = order[i];
        const AABB& box_a = body_boxes_[static_cast<std::size_t>(a)];
        for (std::size_t j = i + 1; j < order.size(); ++j) {
            const int b = order[j];
            const AABB& box_b = body_boxes_[static_cast<std::size_t>(b)];
            if (box_b.min[0] > box_a.max[0]) break;
            if (!box_a.overlaps(box_b)) continue;
            if (filter && !filter(a, b) && !filter(b, a)) continue;
            near[static_cast<std::size_t>(a)].push_back(b);
            near[static_cast<std::size_t>(b)].push_back(a);
        }
    }
    near_begin_.assign(static_cast<std::size_t>(num_bodies) + 1, 0);
    near_bodies_.clear();
    for (int b = 0; b < num_bodies; ++b) {
        auto& list = near[static_cast<std::size_t>(b)];
        std::sort(list.begin(), list.end());
        near_bodies_.insert(near_bodies_.end(), list.begin(), list.end());
        near_begin_[static_cast<std::size_t>(b) + 1] = static_cast<int>(near_bodies_.size());
    }
    // Each body's primitives of each kind in parts, and per body the parts of the kind its
    // primitives pair with (a vertex: faces; an edge: edges; a face: vertices) in the bodies
    // near it.
    parts_[0].build(mesh.vertex_body, vertex_boxes_, body_boxes_);
    parts_[1].build_with(
        mesh.edge_body, [&](int e) { return edge_box(mesh, e); }, body_boxes_);
    parts_[2].build_with(
        mesh.face_body, [&](int f) { return face_box(mesh, f); }, body_boxes_);
    auto near_bodies = [&](int b, auto&& visit) {
        for (int k = near_begin_[static_cast<std::size_t>(b)];
             k < near_begin_[static_cast<std::size_t>(b) + 1]; ++k)
            visit(near_bodies_[static_cast<std::size_t>(k)]);
    };
    for (int kind = 0; kind < 3; ++kind)
        near_parts_[static_cast<std::size_t>(kind)].build(
            parts_[static_cast<std::size_t>(2 - kind)], body_boxes_, near_bodies);
    // Whether `box`, of a primitive of `body` of kind `kind`, overlaps a part of the kind it
    // pairs with in a body near it.
    auto near_other_body = [&](int body, const AABB& box, int kind) {
        return near_parts_[static_cast<std::size_t>(kind)].overlaps(body, box);
    };
    select(
        mesh.num_vertices(),
        [&](int v) {
            return near_other_body(mesh.vertex_body[static_cast<std::size_t>(v)],
                                   vertex_boxes_[static_cast<std::size_t>(v)], 0);
        },
        flags_, active_vertices_);
    select(
        mesh.num_edges(),
        [&](int e) {
            return near_other_body(mesh.edge_body[static_cast<std::size_t>(e)], edge_box(mesh, e),
                                   1);
        },
        flags_, active_edges_);
    select(
        mesh.num_faces(),
        [&](int f) {
            return near_other_body(mesh.face_body[static_cast<std::size_t>(f)], face_box(mesh, f),
                                   2);
        },
        flags_, active_faces_);
}

AABB BroadPhase::edge_box(const CollisionMesh& mesh, int e) const {
    const AABB& a = vertex_boxes_[static_cast<std::size_t>(mesh.edges(e, 0))];
    const AABB& b = vertex_boxes_[static_cast<std::size_t>(mesh.edges(e, 1))];
    return AABB(a.min.cwiseMin(b.min), a.max.cwiseMax(b.max));
}

AABB BroadPhase::face_box(const CollisionMesh& mesh, int f) const {
    const AABB& a = vertex_boxes_[static_cast<std::size_t>(mesh.faces(f, 0))];
    const AABB& b = vertex_boxes_[static_cast<std::size_t>(mesh.faces(f, 1))];
    const AABB& c = vertex_boxes_[static_cast<std::size_t>(mesh.faces(f, 2))];
    return AABB(a.min.cwiseMin(b.min).cwiseMin(c.min), a.max.cwiseMax(b.max).cwiseMax(c.max));
}

bool one_body(const CollisionMesh& mesh) {
    int body = -1;
    for (const auto* of : {&mesh.vertex_body, &mesh.edge_body, &mesh.face_body})
        for (int b : *of) {
            if (body < 0) body = b;
            if (b != body) return false;
        }
    return true;
}

Candidates BroadPhase::find(const CollisionMesh& mesh, const Vertices& x0, const Vertices& x1,
                            const BroadPhaseParams& params) {
    validate_broad_phase_input(mesh, x0, x1, params.dhat);
    if (one_body(mesh)) return {};
    const double inflation = 0.5 * params.dhat;
    if (params.method == BroadPhaseMethod::sweep_and_prune) {
        tbb::parallel_invoke([&] { swept_vertex_boxes(x0, x1, inflation, vertex_boxes_); },
                             [&] { swept_edge_boxes(mesh.edges, x0, x1, inflation, edge_boxes_); },
                             [&] { swept_face_boxes(mesh.faces, x0, x1, inflation, face_boxes_); });
        return sweep_and_prune_candidates(mesh, vertex_boxes_, edge_boxes_, face_boxes_,
                                          params.body_pair_filter);
    }
    // The LBVH method: vertex boxes only (an edge's or face's is formed from its vertices').
    swept_vertex_boxes(x0, x1, inflation, vertex_boxes_);

    // A body-level pass first: only primitives whose box overlaps the box of another body
    // they may pair with, and there the box of a part of that body's primitives of the kind
    // they pair with, can have candidates (a pair's boxes overlap, and each lies in its part's
    // and its body's box). The trees are built over those alone, so a body far from the
    // others costs its box tests only, and a large static container only the primitives near
    // its walls. Candidates are the same as without.
    select_near_other_bodies(mesh, params.body_pair_filter);
    auto gather = [](auto&& box_of, const std::vector<int>& index, const std::vector<int>& body,
                     std::vector<AABB>& boxes, std::vector<int>& groups) {
        boxes.resize(index.size());
        groups.resize(index.size());
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, index.size(), 4096),
                          [&](const tbb::blocked_range<std::size_t>& r) {
                              for (std::size_t i = r.begin(); i != r.end(); ++i) {
                                  boxes[i] = box_of(index[i]);
                                  groups[i] = body[static_cast<std::size_t>(index[i])];
                              }
                          });
    };
    tbb::parallel_invoke(
        [&] {
            gather([&](int f) { return face_box(mesh, f); }, active_faces_, mesh.face_body,
                   active_face_boxes_, active_face_groups_);
            face_tree_.build(active_face_boxes_, active_face_groups_);
        },
        [&] {
            gather([&](int e) { return edge_box(mesh, e); }, active_edges_, mesh.edge_body,
                   active_edge_boxes_, active_edge_groups_);
            edge_tree_.build(active_edge_boxes_, active_edge_groups_);
        });
    Candidates candidates;
    tbb::parallel_invoke(
        [&] {
            candidates.point_triangle =
                point_triangle_query(mesh, vertex_boxes_, &active_vertices_, face_tree_,
                                     &active_faces_, params.body_pair_filter);
        },
        [&] {
            candidates.edge_edge =
                edge_edge_query(mesh, edge_tree_, &active_edges_, params.body_pair_filter);
        });
    return candidates;
}

Candidates find_candidates(const CollisionMesh& mesh, const Vertices& x0, const Vertices& x1,
                           const BroadPhaseParams& params) {
    return BroadPhase().find(mesh, x0, x1, params);
}

}  // namespace concord
