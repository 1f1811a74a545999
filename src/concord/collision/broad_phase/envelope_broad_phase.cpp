#include "concord/collision/broad_phase/envelope_broad_phase.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>

#include <algorithm>

#include "concord/collision/broad_phase/candidate_blocks.hpp"
#include "concord/collision/broad_phase/swept_boxes.hpp"

namespace concord {

using broad_phase_detail::kQueryBlock;

namespace {

bool outside(const Vertices& x, const Vertices& lo, const Vertices& hi, Eigen::Index v) {
    return (x.row(v).array() < lo.row(v).array()).any() ||
           (x.row(v).array() > hi.row(v).array()).any();
}

// Calls find(i, out) for i in [0, n) in blocks, each block appending to its own list, and
// returns the lists' concatenation sorted (the order of the cached pairs).
template <class Pair, class Find>
std::vector<Pair> sorted_query(int n, Find&& find) {
    std::vector<std::vector<Pair>> blocks(
        static_cast<std::size_t>(broad_phase_detail::num_blocks(n)));
    tbb::parallel_for(std::size_t{0}, blocks.size(), [&](std::size_t b) {
        const int begin = static_cast<int>(b) * kQueryBlock;
        const int end = std::min(n, begin + kQueryBlock);
        for (int i = begin; i < end; ++i) find(i, blocks[b]);
    });
    std::vector<Pair> all = broad_phase_detail::concatenate(blocks);
    std::sort(all.begin(), all.end());
    return all;
}

// `kept` (sorted) without the pairs `drop` rejects, merged with `added` (sorted, disjoint).
template <class Pair, class Drop>
void replace_pairs(std::vector<Pair>& kept, const std::vector<Pair>& added, Drop&& drop) {
    std::erase_if(kept, drop);
    std::vector<Pair> merged(kept.size() + added.size());
    std::merge(kept.begin(), kept.end(), added.begin(), added.end(), merged.begin());
    kept = std::move(merged);
}

}  // namespace

void EnvelopeBroadPhase::set_envelope(const CollisionMesh& mesh, const Vertices& x0,
                                      const Vertices& x1, double dhat,
                                      const std::vector<std::uint8_t>& bodies) {
    auto selected = [&](int body) {
        return bodies.empty() || bodies[static_cast<std::size_t>(body)] != 0;
    };
    std::vector<double> margin(static_cast<std::size_t>(num_bodies_), dhat);
    for (Eigen::Index v = 0; v < x0.rows(); ++v) {
        const int b = mesh.vertex_body[static_cast<std::size_t>(v)];
        if (!selected(b)) continue;
        double& m = margin[static_cast<std::size_t>(b)];
        m = std::max(m, kMarginFactor * (x1.row(v) - x0.row(v)).norm());
    }
    if (bodies.empty()) {
        lo_.resize(x0.rows(), 3);
        hi_.resize(x0.rows(), 3);
    }
    for (Eigen::Index v = 0; v < x0.rows(); ++v) {
        const int b = mesh.vertex_body[static_cast<std::size_t>(v)];
        if (!selected(b)) continue;
        const double m = margin[static_cast<std::size_t>(b)];
        lo_.row(v) = x0.row(v).cwiseMin(x1.row(v)).array() - m;
        hi_.row(v) = x0.row(v).cwiseMax(x1.row(v)).array() + m;
    }
}

void EnvelopeBroadPhase::rebuild(const CollisionMesh& mesh, const Vertices& x0, const Vertices& x1,
                                 const BroadPhaseParams& params) {
    num_bodies_ = 0;
    for (int b : mesh.vertex_body) num_bodies_ = std::max(num_bodies_, b + 1);
    set_envelope(mesh, x0, x1, params.dhat, {});
    cached_ = broad_phase_.find(mesh, lo_, hi_, params);
    // The envelope's boxes, kept for later updates of single bodies.
    broad_phase_.exchange_boxes(envelope_vertex_boxes_, envelope_edge_boxes_,
                                envelope_face_boxes_);
    valid_ = true;
    mesh_ = &mesh;
    dhat_ = params.dhat;
    method_ = params.method;
    ++rebuilds_;
}

void EnvelopeBroadPhase::list_used(const CollisionMesh& mesh) {
    // In increasing index: the boxes are written in the same places whatever the list.
    auto list = [&](int count, auto&& mark_pairs, std::vector<int>& used) {
        marks_.assign(static_cast<std::size_t>(count), 0);
        mark_pairs();
        used.clear();
        for (int i = 0; i < count; ++i)
            if (marks_[static_cast<std::size_t>(i)] != 0) used.push_back(i);
    };
    list(mesh.num_vertices(), [&] {
        for (const PointTriangleCandidate& c : cached_.point_triangle)
            marks_[static_cast<std::size_t>(c.vertex)] = 1;
    }, used_vertices_);
    list(mesh.num_faces(), [&] {
        for (const PointTriangleCandidate& c : cached_.point_triangle)
            marks_[static_cast<std::size_t>(c.face)] = 1;
    }, used_faces_);
    list(mesh.num_edges(), [&] {
        for (const EdgeEdgeCandidate& c : cached_.edge_edge) {
            marks_[static_cast<std::size_t>(c.edge_a)] = 1;
            marks_[static_cast<std::size_t>(c.edge_b)] = 1;
        }
    }, used_edges_);
}

void EnvelopeBroadPhase::update_bodies(const CollisionMesh& mesh, const BroadPhaseParams& params,
                                       const std::vector<std::uint8_t>& moved) {
    const auto& vertex_body = mesh.vertex_body;
    const auto& edge_body = mesh.edge_body;
    const auto& face_body = mesh.face_body;
    auto is_moved = [&](int body) { return moved[static_cast<std::size_t>(body)] != 0; };
    const BodyPairFilter& filter = params.body_pair_filter;
    auto allowed = [&](int a, int b) { return !filter || filter(a, b); };

    // The moved bodies' primitives with their new envelope boxes (an edge's or a face's box is
    // the union of its corners' boxes, as the swept boxes of a fresh query are), in trees.
    const double inflation = 0.5 * params.dhat;
    for (int v = 0; v < mesh.num_vertices(); ++v)
        if (is_moved(vertex_body[static_cast<std::size_t>(v)]))
            envelope_vertex_boxes_[static_cast<std::size_t>(v)] =
                swept_vertex_box(lo_, hi_, v, inflation);
    // Primitive i (count of them, of body body[i], corners rows.row(i) or itself when there
    // are no rows) of a moved body: box refreshed, index, body and box listed for its tree.
    struct Moved {
        std::vector<int> index, group;
        std::vector<AABB> boxes;
    };
    auto collect = [&](int count, const std::vector<int>& body, const auto* rows,
                       std::vector<AABB>& envelope_boxes) {
        Moved out;
        for (int i = 0; i < count; ++i) {
            const int b = body[static_cast<std::size_t>(i)];
            if (!is_moved(b)) continue;
            AABB& box = envelope_boxes[static_cast<std::size_t>(i)];
            if (rows) {
                box = AABB{};
                for (Eigen::Index c = 0; c < rows->cols(); ++c)
                    box.expand(envelope_vertex_boxes_[static_cast<std::size_t>((*rows)(i, c))]);
            }
            out.index.push_back(i);
            out.group.push_back(b);
            out.boxes.push_back(box);
        }
        return out;
    };
    const Moved moved_vertices =
        collect(mesh.num_vertices(), vertex_body, static_cast<const Edges*>(nullptr),
                envelope_vertex_boxes_);
    const Moved moved_edges =
        collect(mesh.num_edges(), edge_body, &mesh.edges, envelope_edge_boxes_);
    const Moved moved_faces =
        collect(mesh.num_faces(), face_body, &mesh.faces, envelope_face_boxes_);
    const std::vector<int>& vertices = moved_vertices.index;
    const std::vector<int>& edges = moved_edges.index;
    const std::vector<int>& faces = moved_faces.index;
    tbb::parallel_invoke([&] { moved_vertices_.build(moved_vertices.boxes, moved_vertices.group); },
                         [&] { moved_edges_.build(moved_edges.boxes, moved_edges.group); },
                         [&] { moved_faces_.build(moved_faces.boxes, moved_faces.group); });

    // Bodies whose envelope box meets no moved body's are skipped whole (a moved primitive's
    // box lies in its body's box).
    std::vector<AABB> body_box(static_cast<std::size_t>(num_bodies_));
    for (int v = 0; v < mesh.num_vertices(); ++v)
        body_box[static_cast<std::size_t>(vertex_body[static_cast<std::size_t>(v)])].expand(
            envelope_vertex_boxes_[static_cast<std::size_t>(v)]);
    std::vector<AABB> moved_boxes;
    for (int b = 0; b < num_bodies_; ++b)
        if (is_moved(b)) moved_boxes.push_back(body_box[static_cast<std::size_t>(b)]);
    LBVH moved_bodies;
    moved_bodies.build(moved_boxes);
    std::vector<std::uint8_t> near(static_cast<std::size_t>(num_bodies_), 0);
    for (int b = 0; b < num_bodies_; ++b)
        moved_bodies.query(body_box[static_cast<std::size_t>(b)],
                           [&](int) { near[static_cast<std::size_t>(b)] = 1; });
    auto is_near = [&](int body) { return near[static_cast<std::size_t>(body)] != 0; };

    // Point-triangle pairs with a moved face (any vertex), then with a moved vertex and a face
    // that did not move: each such pair is found exactly once.
    std::vector<PointTriangleCandidate> point_triangle = sorted_query<PointTriangleCandidate>(
        mesh.num_vertices(), [&](int v, std::vector<PointTriangleCandidate>& out) {
            const int bv = vertex_body[static_cast<std::size_t>(v)];
            if (!is_near(bv)) return;
            moved_faces_.query(envelope_vertex_boxes_[static_cast<std::size_t>(v)], bv,
                               [&](int leaf) {
                                   const int f = faces[static_cast<std::size_t>(leaf)];
                                   if (allowed(bv, face_body[static_cast<std::size_t>(f)]))
                                       out.push_back({v, f});
                               });
        });
    const std::vector<PointTriangleCandidate> moved_vertex_pairs =
        sorted_query<PointTriangleCandidate>(
            mesh.num_faces(), [&](int f, std::vector<PointTriangleCandidate>& out) {
                const int bf = face_body[static_cast<std::size_t>(f)];
                if (is_moved(bf) || !is_near(bf)) return;
                moved_vertices_.query(envelope_face_boxes_[static_cast<std::size_t>(f)], bf,
                                      [&](int leaf) {
                                          const int v = vertices[static_cast<std::size_t>(leaf)];
                                          if (allowed(vertex_body[static_cast<std::size_t>(v)], bf))
                                              out.push_back({v, f});
                                      });
            });
    {
        std::vector<PointTriangleCandidate> both(point_triangle.size() + moved_vertex_pairs.size());
        std::merge(point_triangle.begin(), point_triangle.end(), moved_vertex_pairs.begin(),
                   moved_vertex_pairs.end(), both.begin());
        point_triangle = std::move(both);
    }
    // Edge-edge pairs with a moved edge; a pair of two moved edges is kept from the query of
    // its lower edge only.
    const std::vector<EdgeEdgeCandidate> edge_edge = sorted_query<EdgeEdgeCandidate>(
        mesh.num_edges(), [&](int e, std::vector<EdgeEdgeCandidate>& out) {
            const int be = edge_body[static_cast<std::size_t>(e)];
            if (!is_near(be)) return;
            const bool e_moved = is_moved(be);
            moved_edges_.query(envelope_edge_boxes_[static_cast<std::size_t>(e)], be,
                               [&](int leaf) {
                                   const int o = edges[static_cast<std::size_t>(leaf)];
                                   if (e_moved && o < e) return;
                                   const int a = std::min(e, o), b = std::max(e, o);
                                   if (allowed(edge_body[static_cast<std::size_t>(a)],
                                               edge_body[static_cast<std::size_t>(b)]))
                                       out.push_back({a, b});
                               });
        });

    replace_pairs(cached_.point_triangle, point_triangle, [&](const PointTriangleCandidate& c) {
        return is_moved(vertex_body[static_cast<std::size_t>(c.vertex)]) ||
               is_moved(face_body[static_cast<std::size_t>(c.face)]);
    });
    replace_pairs(cached_.edge_edge, edge_edge, [&](const EdgeEdgeCandidate& c) {
        return is_moved(edge_body[static_cast<std::size_t>(c.edge_a)]) ||
               is_moved(edge_body[static_cast<std::size_t>(c.edge_b)]);
    });
    ++partial_updates_;
}

Candidates EnvelopeBroadPhase::find(const CollisionMesh& mesh, const Vertices& x0,
                                    const Vertices& x1, const BroadPhaseParams& params) {
    // The cache is tied to the mesh it was built for (mesh_), which was checked then.
    if (valid_ && mesh_ == &mesh)
        validate_broad_phase_positions(mesh, x0, x1, params.dhat);
    else
        validate_broad_phase_input(mesh, x0, x1, params.dhat);
    const bool same_query = valid_ && mesh_ == &mesh && dhat_ == params.dhat &&
                            method_ == params.method && lo_.rows() == x0.rows();
    // A cache many times larger than the last answer costs more per query than a fresh
    // envelope around the (shorter) segments of now.
    const bool loose = static_cast<double>(cached_.size()) >
                       kLooseFactor * static_cast<double>(last_answer_ + kLooseFloor);
    bool changed = false;
    if (!same_query || loose) {
        rebuild(mesh, x0, x1, params);
        changed = true;
    } else {
        // The bodies with a vertex whose segment leaves the envelope.
        std::vector<std::uint8_t> moved(static_cast<std::size_t>(num_bodies_), 0);
        bool any = false;
        for (Eigen::Index v = 0; v < x0.rows(); ++v)
            if (outside(x0, lo_, hi_, v) || outside(x1, lo_, hi_, v)) {
                moved[static_cast<std::size_t>(mesh.vertex_body[static_cast<std::size_t>(v)])] = 1;
                any = true;
            }
        if (any) {
            Eigen::Index moved_vertices = 0;
            for (int b : mesh.vertex_body) moved_vertices += moved[static_cast<std::size_t>(b)];
            if (static_cast<double>(moved_vertices) >
                kFullRebuildShare * static_cast<double>(x0.rows())) {
                rebuild(mesh, x0, x1, params);
            } else {
                set_envelope(mesh, x0, x1, params.dhat, moved);
                update_bodies(mesh, params, moved);
            }
            changed = true;
        }
    }
    if (changed) list_used(mesh);
    // The cached pairs whose boxes over this segment overlap, in the cached (sorted) order. Only
    // the primitives some cached pair names get a box (in a pile a few per cent of them).
    const double inflation = 0.5 * params.dhat;
    auto boxes_of = [&](const std::vector<int>& used, std::vector<AABB>& boxes, std::size_t count,
                        auto&& box) {
        if (boxes.size() < count) boxes.resize(count);
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, used.size(), 4096),
                          [&](const tbb::blocked_range<std::size_t>& r) {
                              for (std::size_t k = r.begin(); k != r.end(); ++k)
                                  boxes[static_cast<std::size_t>(used[k])] = box(used[k]);
                          });
    };
    tbb::parallel_invoke(
        [&] {
            boxes_of(used_vertices_, vertex_boxes_, static_cast<std::size_t>(x0.rows()),
                     [&](int v) { return swept_vertex_box(x0, x1, v, inflation); });
        },
        [&] {
            boxes_of(used_edges_, edge_boxes_, static_cast<std::size_t>(mesh.num_edges()),
                     [&](int e) { return swept_edge_box(mesh.edges, x0, x1, e, inflation); });
        },
        [&] {
            boxes_of(used_faces_, face_boxes_, static_cast<std::size_t>(mesh.num_faces()),
                     [&](int f) { return swept_face_box(mesh.faces, x0, x1, f, inflation); });
        });
    Candidates out;
    for (const PointTriangleCandidate& c : cached_.point_triangle)
        if (vertex_boxes_[static_cast<std::size_t>(c.vertex)].overlaps(
                face_boxes_[static_cast<std::size_t>(c.face)]))
            out.point_triangle.push_back(c);
    for (const EdgeEdgeCandidate& c : cached_.edge_edge)
        if (edge_boxes_[static_cast<std::size_t>(c.edge_a)].overlaps(
                edge_boxes_[static_cast<std::size_t>(c.edge_b)]))
            out.edge_edge.push_back(c);
    last_answer_ = out.size();
    return out;
}

}  // namespace concord
