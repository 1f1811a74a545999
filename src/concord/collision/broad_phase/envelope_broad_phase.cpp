#include "concord/collision/broad_phase/envelope_broad_phase.hpp"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>
#include <tbb/parallel_sort.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <stdexcept>
#include <string>

#include "concord/collision/broad_phase/candidate_blocks.hpp"
#include "concord/collision/broad_phase/swept_boxes.hpp"
#include "concord/math/parallel_select.hpp"

namespace concord {

namespace {

bool outside(const Vertices& x, const Vertices& lo, const Vertices& hi, Eigen::Index v) {
    return (x.row(v).array() < lo.row(v).array()).any() ||
           (x.row(v).array() > hi.row(v).array()).any();
}

// Whether vertex v of x lies outside the envelope row w of lo/hi.
bool outside_of(const Vertices& x, Eigen::Index v, const Vertices& lo, const Vertices& hi,
                Eigen::Index w) {
    return (x.row(v).array() < lo.row(w).array()).any() ||
           (x.row(v).array() > hi.row(w).array()).any();
}

// `kept` (sorted) without the pairs `drop` rejects, merged with `added` (sorted, disjoint from
// the pairs kept). A pile's cache holds some 10^5 pairs: `kept` is cut into pieces of fixed
// size, each piece takes the added pairs that sort from its first pair up to the next piece's
// first pair, and the pieces are filtered and merged in parallel into their places (the
// serial merge's result).
template <class Pair, class Drop>
void replace_pairs(std::vector<Pair>& kept, const std::vector<Pair>& added, Drop&& drop) {
    constexpr std::size_t kPiece = 8192;
    const std::size_t n = kept.size();
    const std::size_t pieces = std::max<std::size_t>(1, (n + kPiece - 1) / kPiece);
    // Piece p: kept[p kPiece, (p + 1) kPiece) and added[a[p], a[p + 1]).
    std::vector<std::size_t> a(pieces + 1, added.size()), out(pieces + 1, 0);
    a[0] = 0;
    for (std::size_t p = 1; p < pieces; ++p)
        a[p] = static_cast<std::size_t>(
            std::lower_bound(added.begin(), added.end(), kept[p * kPiece]) - added.begin());
    tbb::parallel_for(std::size_t{0}, pieces, [&](std::size_t p) {
        const auto b = kept.begin() + static_cast<std::ptrdiff_t>(p * kPiece);
        const auto e = kept.begin() + static_cast<std::ptrdiff_t>(std::min(n, (p + 1) * kPiece));
        out[p + 1] =
            static_cast<std::size_t>(std::count_if(b, e, [&](const Pair& x) { return !drop(x); })) +
            (a[p + 1] - a[p]);
    });
    for (std::size_t p = 0; p < pieces; ++p) out[p + 1] += out[p];
    std::vector<Pair> merged(out.back());
    tbb::parallel_for(std::size_t{0}, pieces, [&](std::size_t p) {
        auto i = kept.begin() + static_cast<std::ptrdiff_t>(p * kPiece);
        const auto e = kept.begin() + static_cast<std::ptrdiff_t>(std::min(n, (p + 1) * kPiece));
        auto j = added.begin() + static_cast<std::ptrdiff_t>(a[p]);
        const auto je = added.begin() + static_cast<std::ptrdiff_t>(a[p + 1]);
        auto o = merged.begin() + static_cast<std::ptrdiff_t>(out[p]);
        while (i != e || j != je) {
            if (i != e && drop(*i)) {
                ++i;
            } else if (j == je || (i != e && *i < *j)) {
                *o++ = *i++;
            } else {
                *o++ = *j++;
            }
        }
    });
    kept = std::move(merged);
}

}  // namespace

void EnvelopeBroadPhase::set_envelope(const CollisionMesh& mesh, const Vertices& x0,
                                      const Vertices& x1, const Vertices* ahead, double dhat,
                                      const std::vector<std::uint8_t>& bodies) {
    auto selected = [&](int body) {
        return bodies.empty() || bodies[static_cast<std::size_t>(body)] != 0;
    };
    if (bodies.empty()) {
        lo_.resize(x0.rows(), 3);
        hi_.resize(x0.rows(), 3);
    }
    // A body's margin: kMarginFactor times its largest vertex displacement, at least dhat.
    auto grow = [&](double& m, Eigen::Index v) {
        m = std::max(m, kMarginFactor * (x1.row(v) - x0.row(v)).norm());
        if (ahead) m = std::max(m, kMarginFactor * (ahead->row(v) - x0.row(v)).norm());
    };
    auto set = [&](Eigen::Index v, double m) {
        Vec3 lo = x0.row(v).cwiseMin(x1.row(v)).transpose();
        Vec3 hi = x0.row(v).cwiseMax(x1.row(v)).transpose();
        if (ahead) {
            lo = lo.cwiseMin(ahead->row(v).transpose());
            hi = hi.cwiseMax(ahead->row(v).transpose());
        }
        lo_.row(v) = lo.array() - m;
        hi_.row(v) = hi.array() + m;
    };
    if (consecutive_vertices()) {
        // Each body its own vertices: in parallel.
        tbb::parallel_for(0, num_bodies_, [&](int b) {
            if (!selected(b)) return;
            const int first = vertices_of_.first[static_cast<std::size_t>(b)];
            const int end = first + vertices_of_.count[static_cast<std::size_t>(b)];
            double m = dhat;
            for (int v = first; v < end; ++v) grow(m, v);
            for (int v = first; v < end; ++v) set(v, m);
        });
        return;
    }
    std::vector<double> margin(static_cast<std::size_t>(num_bodies_), dhat);
    for (Eigen::Index v = 0; v < x0.rows(); ++v) {
        const int b = mesh.vertex_body[static_cast<std::size_t>(v)];
        if (selected(b)) grow(margin[static_cast<std::size_t>(b)], v);
    }
    for (Eigen::Index v = 0; v < x0.rows(); ++v) {
        const int b = mesh.vertex_body[static_cast<std::size_t>(v)];
        if (selected(b)) set(v, margin[static_cast<std::size_t>(b)]);
    }
}

bool EnvelopeBroadPhase::consecutive_vertices() const {
    return std::all_of(vertices_of_.count.begin(), vertices_of_.count.end(),
                       [](int c) { return c >= 0; });
}

void EnvelopeBroadPhase::rebuild(const CollisionMesh& mesh, const Vertices& x0, const Vertices& x1,
                                 const Vertices* ahead, const BroadPhaseParams& params) {
    set_ranges(mesh);
    set_envelope(mesh, x0, x1, ahead, params.dhat, {});
    cached_ = broad_phase_.find(mesh, lo_, hi_, params);
    // The envelope's boxes, kept for later updates of single bodies.
    broad_phase_.exchange_vertex_boxes(envelope_vertex_boxes_);
    if (params.method == BroadPhaseMethod::lbvh)
        broad_phase_.exchange_parts(body_box_, parts_);  // built over the same boxes
    else
        build_parts(mesh);
    valid_ = true;
    mesh_ = &mesh;
    dhat_ = params.dhat;
    method_ = params.method;
    ++rebuilds_;
}

void EnvelopeBroadPhase::build_parts(const CollisionMesh& mesh) {
    body_box_.assign(static_cast<std::size_t>(num_bodies_), AABB{});
    for (int v = 0; v < mesh.num_vertices(); ++v)
        body_box_[static_cast<std::size_t>(mesh.vertex_body[static_cast<std::size_t>(v)])].expand(
            envelope_vertex_boxes_[static_cast<std::size_t>(v)]);
    parts_[0].build(mesh.vertex_body, envelope_vertex_boxes_, body_box_);
    parts_[1].build_with(
        mesh.edge_body, [&](int e) { return envelope_box(mesh, 1, e); }, body_box_);
    parts_[2].build_with(
        mesh.face_body, [&](int f) { return envelope_box(mesh, 2, f); }, body_box_);
}

void EnvelopeBroadPhase::list_used(const CollisionMesh& mesh) {
    // In increasing index, with each listed primitive's place in its list (where a query keeps
    // its box: the boxes take the pairs' primitives' room, not every primitive's). The three
    // kinds are independent (each its own marks): in parallel.
    // Each list's marking, listing and slots run in parallel pieces too (the edge list, the
    // largest, was left to one thread).
    auto list = [&](int count, auto&& mark_pairs, std::vector<std::uint8_t>& marks,
                    std::vector<int>& used, std::vector<int>& slot) {
        marks.assign(static_cast<std::size_t>(count), 0);
        mark_pairs(marks);
        used = parallel_select<int>(
            static_cast<std::size_t>(count), [&](std::size_t i) { return marks[i] != 0; },
            [](std::size_t i) { return static_cast<int>(i); });
        slot.resize(static_cast<std::size_t>(count));
        tbb::parallel_for(std::size_t{0}, used.size(), [&](std::size_t k) {
            slot[static_cast<std::size_t>(used[k])] = static_cast<int>(k);
        });
    };
    // Marks the primitives that mark(pair, set) names for every pair, pairs in parallel
    // pieces (a primitive of several pairs is marked by each: relaxed atomic stores of 1).
    auto mark_all = [](const auto& pairs, std::vector<std::uint8_t>& marks, auto&& mark) {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, pairs.size(), 4096),
                          [&](const tbb::blocked_range<std::size_t>& r) {
                              auto set = [&](int i) {
                                  std::atomic_ref<std::uint8_t>(marks[static_cast<std::size_t>(i)])
                                      .store(1, std::memory_order_relaxed);
                              };
                              for (std::size_t k = r.begin(); k != r.end(); ++k)
                                  mark(pairs[k], set);
                          });
    };
    // The vertices or the faces of the point-triangle pairs.
    auto point_triangle_marks = [&](int PointTriangleCandidate::*primitive) {
        return [&, primitive](std::vector<std::uint8_t>& marks) {
            mark_all(
                cached_.point_triangle, marks,
                [primitive](const PointTriangleCandidate& c, auto&& set) { set(c.*primitive); });
        };
    };
    tbb::parallel_invoke(
        [&] {
            list(mesh.num_vertices(), point_triangle_marks(&PointTriangleCandidate::vertex),
                 marks_[0], used_vertices_, vertex_slot_);
        },
        [&] {
            list(mesh.num_faces(), point_triangle_marks(&PointTriangleCandidate::face), marks_[1],
                 used_faces_, face_slot_);
        },
        [&] {
            list(
                mesh.num_edges(),
                [&](std::vector<std::uint8_t>& marks) {
                    mark_all(cached_.edge_edge, marks, [](const EdgeEdgeCandidate& c, auto&& set) {
                        set(c.edge_a);
                        set(c.edge_b);
                    });
                },
                marks_[2], used_edges_, edge_slot_);
        });
}

void EnvelopeBroadPhase::gather_part_primitives(const CollisionMesh& mesh, int kind, int body,
                                                const AABB& region, std::vector<Boxed>& out,
                                                std::vector<int>& begin) const {
    out.clear();
    begin.clear();
    parts_[static_cast<std::size_t>(kind)].for_each_part(
        body, [&](const AABB& part, std::span<const int> members) {
            begin.push_back(static_cast<int>(out.size()));
            if (!part.overlaps(region)) return;
            for (int i : members) {
                const AABB box = envelope_box(mesh, kind, i);
                if (box.overlaps(region)) out.push_back({i, box});
            }
        });
    begin.push_back(static_cast<int>(out.size()));
}

template <class Emit>
void EnvelopeBroadPhase::body_pair_primitives(const CollisionMesh& mesh, int kind_a, int a,
                                              int kind_b, int b, PairScratch& s,
                                              Emit&& emit) const {
    gather_part_primitives(mesh, kind_a, a, body_box_[static_cast<std::size_t>(b)], s.a, s.a_begin);
    if (s.a.empty()) return;
    gather_part_primitives(mesh, kind_b, b, body_box_[static_cast<std::size_t>(a)], s.b, s.b_begin);
    if (s.b.empty()) return;
    const std::span<const AABB> parts_a = parts_[static_cast<std::size_t>(kind_a)].of(a);
    const std::span<const AABB> parts_b = parts_[static_cast<std::size_t>(kind_b)].of(b);
    for (std::size_t pa = 0; pa < parts_a.size(); ++pa) {
        const int a0 = s.a_begin[pa], a1 = s.a_begin[pa + 1];
        if (a0 == a1) continue;
        for (std::size_t pb = 0; pb < parts_b.size(); ++pb) {
            const int b0 = s.b_begin[pb], b1 = s.b_begin[pb + 1];
            if (b0 == b1 || !parts_a[pa].overlaps(parts_b[pb])) continue;
            for (int i = a0; i < a1; ++i) {
                const Boxed& x = s.a[static_cast<std::size_t>(i)];
                if (!x.box.overlaps(parts_b[pb])) continue;
                for (int j = b0; j < b1; ++j) {
                    const Boxed& y = s.b[static_cast<std::size_t>(j)];
                    if (x.box.overlaps(y.box)) emit(x.id, y.id);
                }
            }
        }
    }
}

void EnvelopeBroadPhase::update_bodies(const CollisionMesh& mesh, const BroadPhaseParams& params,
                                       const std::vector<std::uint8_t>& moved) {
    const auto& vertex_body = mesh.vertex_body;
    const auto& edge_body = mesh.edge_body;
    const auto& face_body = mesh.face_body;
    auto is_moved = [&](int body) { return moved[static_cast<std::size_t>(body)] != 0; };
    const BodyPairFilter& filter = params.body_pair_filter;
    auto allowed = [&](int a, int b) { return !filter || filter(a, b); };

    // 1. The moved bodies' new vertex envelope boxes (an edge's or a face's is the union of its
    //    corners', envelope_box), body boxes and parts; per moved body (each writes its own
    //    boxes): in parallel.
    const double inflation = 0.5 * params.dhat;
    std::vector<int> moved_ids;
    for (int b = 0; b < num_bodies_; ++b)
        if (is_moved(b)) moved_ids.push_back(b);
    tbb::parallel_for(std::size_t(0), moved_ids.size(), [&](std::size_t k) {
        const int b = moved_ids[k];
        AABB& body = body_box_[static_cast<std::size_t>(b)];
        body = AABB{};
        for (int v : parts_[0].members(b)) {
            AABB& box = envelope_vertex_boxes_[static_cast<std::size_t>(v)];
            box = swept_vertex_box(lo_, hi_, v, inflation);
            body.expand(box);
        }
    });
    parts_[0].update(envelope_vertex_boxes_, moved);
    parts_[1].update_with([&](int e) { return envelope_box(mesh, 1, e); }, moved);
    parts_[2].update_with([&](int f) { return envelope_box(mesh, 2, f); }, moved);

    // 2. The body pairs with a moved body whose boxes overlap, each once: (m, c) with m moved
    //    and c not, or both moved and m < c. Per body in parallel (its own list, in the tree's
    //    order), joined in body order.
    std::vector<AABB> moved_boxes;
    for (int b : moved_ids) moved_boxes.push_back(body_box_[static_cast<std::size_t>(b)]);
    LBVH moved_bodies;
    moved_bodies.build(moved_boxes);
    std::vector<std::vector<std::pair<int, int>>> near(static_cast<std::size_t>(num_bodies_));
    tbb::parallel_for(0, num_bodies_, [&](int b) {
        moved_bodies.query(body_box_[static_cast<std::size_t>(b)], [&](int leaf) {
            const int m = moved_ids[static_cast<std::size_t>(leaf)];
            if (m != b && (!is_moved(b) || m < b))
                near[static_cast<std::size_t>(b)].emplace_back(m, b);
        });
    });
    const std::vector<std::pair<int, int>> body_pairs = broad_phase_detail::concatenate(near);

    // 3. Per body pair, its primitive pairs whose envelope boxes overlap (body_pair_primitives:
    //    a point-triangle pair each way the filter allows, the edge-edge pairs); in parallel,
    //    joined and sorted.
    std::vector<std::vector<PointTriangleCandidate>> pt_blocks(body_pairs.size());
    std::vector<std::vector<EdgeEdgeCandidate>> ee_blocks(body_pairs.size());
    // (Scratch per thread: it holds nothing between pairs.)
    tbb::enumerable_thread_specific<PairScratch> scratches;
    tbb::parallel_for(std::size_t{0}, body_pairs.size(), [&](std::size_t k) {
        const auto [a, b] = body_pairs[k];
        PairScratch& scratch = scratches.local();
        auto& pt = pt_blocks[k];
        if (allowed(a, b))
            body_pair_primitives(mesh, 0, a, 2, b, scratch, [&](int v, int f) {
                pt.push_back({v, f});
            });
        if (allowed(b, a))
            body_pair_primitives(mesh, 0, b, 2, a, scratch, [&](int v, int f) {
                pt.push_back({v, f});
            });
        auto& ee = ee_blocks[k];
        body_pair_primitives(mesh, 1, a, 1, b, scratch, [&](int e, int o) {
            const int lo = std::min(e, o), hi = std::max(e, o);
            if (allowed(edge_body[static_cast<std::size_t>(lo)],
                        edge_body[static_cast<std::size_t>(hi)]))
                ee.push_back({lo, hi});
        });
    });
    std::vector<PointTriangleCandidate> point_triangle = broad_phase_detail::concatenate(pt_blocks);
    std::vector<EdgeEdgeCandidate> edge_edge = broad_phase_detail::concatenate(ee_blocks);
    // Distinct pairs: one order on any thread count.
    tbb::parallel_sort(point_triangle.begin(), point_triangle.end());
    tbb::parallel_sort(edge_edge.begin(), edge_edge.end());

    // 4. The moved bodies' cached pairs replaced by the new ones.
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

namespace {

// Where each body's primitives of one kind start and how many it has (body[i]: the body of
// primitive i); count -1 for a body whose primitives are not consecutive.
void body_ranges(const std::vector<int>& body, int num_bodies, std::vector<int>& first,
                 std::vector<int>& count) {
    first.assign(static_cast<std::size_t>(num_bodies), -1);
    count.assign(static_cast<std::size_t>(num_bodies), 0);
    for (std::size_t i = 0; i < body.size(); ++i) {
        const auto b = static_cast<std::size_t>(body[i]);
        if (count[b] < 0) continue;
        if (first[b] < 0) {
            first[b] = static_cast<int>(i);
        } else if (static_cast<std::size_t>(first[b] + count[b]) != i) {
            count[b] = -1;  // not consecutive
            continue;
        }
        ++count[b];
    }
}

int num_bodies_of(const CollisionMesh& mesh) {
    int n = 0;
    for (const auto* body : {&mesh.vertex_body, &mesh.edge_body, &mesh.face_body})
        for (int b : *body) n = std::max(n, b + 1);
    return n;
}

}  // namespace

void EnvelopeBroadPhase::set_ranges(const CollisionMesh& mesh) {
    num_bodies_ = num_bodies_of(mesh);
    body_ranges(mesh.vertex_body, num_bodies_, vertices_of_.first, vertices_of_.count);
    body_ranges(mesh.edge_body, num_bodies_, edges_of_.first, edges_of_.count);
    body_ranges(mesh.face_body, num_bodies_, faces_of_.first, faces_of_.count);
}

void EnvelopeBroadPhase::adopt(const EnvelopeBroadPhase& donor, const CollisionMesh& donor_mesh,
                               const CollisionMesh& mesh, std::span<const int> donor_body,
                               const Vertices* x) {
    adopted_bodies_ = 0;
    if (!donor.valid_ || donor.mesh_ != &donor_mesh) return;
    validate_collision_mesh(mesh);
    set_ranges(mesh);
    const int n = num_bodies_;
    if (donor_body.size() < static_cast<std::size_t>(n))
        throw std::invalid_argument("EnvelopeBroadPhase::adopt: one donor body per body needed");
    const Ranges &v = vertices_of_, &e = edges_of_, &f = faces_of_;
    const Ranges &dv = donor.vertices_of_, &de = donor.edges_of_, &df = donor.faces_of_;
    // The bodies taken over, in increasing order here; whether their donor bodies are too
    // (then the renumbering keeps the donor's pair order).
    std::vector<std::pair<int, int>> taken;  // (body here, donor body)
    bool in_order = true;
    for (int b = 0; b < n; ++b) {
        const int d = donor_body[static_cast<std::size_t>(b)];
        if (d < 0 || d >= donor.num_bodies_) continue;
        const auto bi = static_cast<std::size_t>(b), di = static_cast<std::size_t>(d);
        if (v.count[bi] < 0 || e.count[bi] < 0 || f.count[bi] < 0 ||
            v.count[bi] != dv.count[di] || e.count[bi] != de.count[di] ||
            f.count[bi] != df.count[di])
            continue;
        // A body that already left its envelope would be queried again at once.
        if (x != nullptr) {
            bool inside = true;
            for (int k = 0; k < v.count[bi] && inside; ++k)
                inside = !outside_of(*x, v.first[bi] + k, donor.lo_, donor.hi_, dv.first[di] + k);
            if (!inside) continue;
        }
        if (!taken.empty() && taken.back().second >= d) in_order = false;
        taken.push_back({b, d});
    }
    // Donor body -> body here (a donor body named twice is taken once).
    std::vector<int> here(static_cast<std::size_t>(donor.num_bodies_), -1);
    for (auto it = taken.begin(); it != taken.end();) {
        int& slot = here[static_cast<std::size_t>(it->second)];
        if (slot >= 0) {
            it = taken.erase(it);
            continue;
        }
        slot = it->first;
        ++it;
    }
    adopted_bodies_ = static_cast<int>(taken.size());
    if (taken.empty()) return;

    const Eigen::Index V = mesh.num_vertices();
    const double inf = std::numeric_limits<double>::infinity();
    // A body not taken over has lo > hi: any position lies outside, so the next find gives it
    // an envelope and queries its pairs.
    lo_.setConstant(V, 3, inf);
    hi_.setConstant(V, 3, -inf);
    envelope_vertex_boxes_.assign(static_cast<std::size_t>(V), AABB{});
    cached_.point_triangle.clear();
    cached_.edge_edge.clear();
    // Primitive i of the donor (of kind `from`, its body `donor_of[i]`) numbered here; -1 when
    // its body was not taken over.
    auto renumber = [&](int i, const std::vector<int>& donor_of, const Ranges& from,
                        const Ranges& to) {
        const auto d = static_cast<std::size_t>(donor_of[static_cast<std::size_t>(i)]);
        const int b = here[d];
        if (b < 0) return -1;
        return to.first[static_cast<std::size_t>(b)] + (i - from.first[d]);
    };
    for (const auto& [b, d] : taken) {
        const auto bi = static_cast<std::size_t>(b), di = static_cast<std::size_t>(d);
        if (const Eigen::Index nv = v.count[bi]; nv > 0) {
            lo_.middleRows(v.first[bi], nv) = donor.lo_.middleRows(dv.first[di], nv);
            hi_.middleRows(v.first[bi], nv) = donor.hi_.middleRows(dv.first[di], nv);
        }
        auto copy = [](const std::vector<AABB>& from, int from_first, std::vector<AABB>& to,
                       int to_first, int count) {
            if (count > 0) std::copy_n(from.begin() + from_first, count, to.begin() + to_first);
        };
        copy(donor.envelope_vertex_boxes_, dv.first[di], envelope_vertex_boxes_, v.first[bi],
             v.count[bi]);
        // The donor's pairs whose vertex (lower edge) lies on this body: one sorted run of
        // its lists. Each pair is visited once, from the body of its vertex (lower edge).
        const auto& pt = donor.cached_.point_triangle;
        const int v_end = dv.first[di] + dv.count[di];
        for (auto it = std::lower_bound(pt.begin(), pt.end(),
                                        PointTriangleCandidate{dv.first[di], -1});
             it != pt.end() && it->vertex < v_end; ++it) {
            const int ff = renumber(it->face, donor_mesh.face_body, df, f);
            if (ff >= 0)
                cached_.point_triangle.push_back(
                    {v.first[bi] + (it->vertex - dv.first[di]), ff});
        }
        const auto& ee = donor.cached_.edge_edge;
        const int e_end = de.first[di] + de.count[di];
        for (auto it = std::lower_bound(ee.begin(), ee.end(), EdgeEdgeCandidate{de.first[di], -1});
             it != ee.end() && it->edge_a < e_end; ++it) {
            const int other = renumber(it->edge_b, donor_mesh.edge_body, de, e);
            if (other < 0) continue;
            const int mine = e.first[bi] + (it->edge_a - de.first[di]);
            cached_.edge_edge.push_back({std::min(mine, other), std::max(mine, other)});
        }
    }
    // Bodies taken in the donor's order keep its sorted order; otherwise sort.
    if (!in_order) {
        std::sort(cached_.point_triangle.begin(), cached_.point_triangle.end());
        std::sort(cached_.edge_edge.begin(), cached_.edge_edge.end());
    }

    valid_ = true;
    mesh_ = &mesh;
    dhat_ = donor.dhat_;
    method_ = donor.method_;
    last_answer_ = donor.last_answer_;
    anticipated_ = false;
    build_parts(mesh);
    list_used(mesh);
}

std::vector<std::uint8_t> EnvelopeBroadPhase::left_envelope(const CollisionMesh& mesh,
                                                            const Vertices& x0,
                                                            const Vertices& x1) const {
    std::vector<std::uint8_t> moved(static_cast<std::size_t>(num_bodies_), 0);
    auto leaves = [&](Eigen::Index v) {
        return outside(x0, lo_, hi_, v) || outside(x1, lo_, hi_, v);
    };
    if (!consecutive_vertices()) {
        for (Eigen::Index v = 0; v < x0.rows(); ++v)
            if (leaves(v))
                moved[static_cast<std::size_t>(mesh.vertex_body[static_cast<std::size_t>(v)])] = 1;
        return moved;
    }
    // Each body its own vertices (consecutive): in parallel.
    tbb::parallel_for(0, num_bodies_, [&](int b) {
        const int first = vertices_of_.first[static_cast<std::size_t>(b)];
        const int end = first + vertices_of_.count[static_cast<std::size_t>(b)];
        for (int v = first; v < end; ++v)
            if (leaves(v)) {
                moved[static_cast<std::size_t>(b)] = 1;
                return;
            }
    });
    return moved;
}

Candidates EnvelopeBroadPhase::find(const CollisionMesh& mesh, const Vertices& x0,
                                    const Vertices& x1, const BroadPhaseParams& params,
                                    const Vertices* ahead) {
    // The cache is tied to the mesh it was built for (mesh_), which was checked then.
    if (valid_ && mesh_ == &mesh)
        validate_broad_phase_positions(mesh, x0, x1, params.dhat);
    else
        validate_broad_phase_input(mesh, x0, x1, params.dhat);
    if (ahead && ahead->rows() != x0.rows())
        throw std::invalid_argument("EnvelopeBroadPhase::find: `ahead` has " +
                                    std::to_string(ahead->rows()) + " rows, x0 " +
                                    std::to_string(x0.rows()));
    if (one_body(mesh)) return {};  // no envelope needed (nor kept)
    const bool same_query = valid_ && mesh_ == &mesh && dhat_ == params.dhat &&
                            method_ == params.method && lo_.rows() == x0.rows();
    // A cache many times larger than the last answer costs more per query than a fresh
    // envelope around the (shorter) segments of now.
    // (Not right after an envelope was built ahead of the step: the point query that built it
    // answers fewer pairs than the step's segments will.)
    const bool loose =
        !anticipated_ && static_cast<double>(cached_.size()) >
                             kLooseFactor * static_cast<double>(last_answer_ + kLooseFloor);
    bool changed = false;
    if (!same_query || loose) {
        rebuild(mesh, x0, x1, ahead, params);
        changed = true;
    } else {
        // The bodies with a vertex whose segment leaves the envelope.
        const std::vector<std::uint8_t> moved = left_envelope(mesh, x0, x1);
        if (std::find(moved.begin(), moved.end(), std::uint8_t{1}) != moved.end()) {
            set_envelope(mesh, x0, x1, ahead, params.dhat, moved);
            update_bodies(mesh, params, moved);
            changed = true;
        }
    }
    if (changed) list_used(mesh);
    // Point queries (x0 is x1: contacts at the step's start, friction lagged there) leave an
    // envelope built ahead counted as such until the step's first segment.
    if (changed)
        anticipated_ = ahead != nullptr;
    else if (&x0 != &x1)
        anticipated_ = false;
    // The cached pairs whose boxes over this segment overlap, in the cached (sorted) order. Only
    // the primitives some cached pair names get a box (in a pile a few per cent of them).
    const double inflation = 0.5 * params.dhat;
    auto boxes_of = [&](const std::vector<int>& used, std::vector<AABB>& boxes, auto&& box) {
        boxes.resize(used.size());
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, used.size(), 1024),
                          [&](const tbb::blocked_range<std::size_t>& r) {
                              for (std::size_t k = r.begin(); k != r.end(); ++k)
                                  boxes[k] = box(used[k]);
                          });
    };
    tbb::parallel_invoke(
        [&] {
            boxes_of(used_vertices_, vertex_boxes_,
                     [&](int v) { return swept_vertex_box(x0, x1, v, inflation); });
        },
        [&] {
            boxes_of(used_edges_, edge_boxes_,
                     [&](int e) { return swept_edge_box(mesh.edges, x0, x1, e, inflation); });
        },
        [&] {
            boxes_of(used_faces_, face_boxes_,
                     [&](int f) { return swept_face_box(mesh.faces, x0, x1, f, inflation); });
        });
    auto box = [](const std::vector<AABB>& boxes, const std::vector<int>& slot,
                  int i) -> const AABB& {
        return boxes[static_cast<std::size_t>(slot[static_cast<std::size_t>(i)])];
    };
    // In blocks of the cached order, joined in that order.
    auto kept = [](const auto& pairs, auto&& overlaps) {
        using Pair = typename std::decay_t<decltype(pairs)>::value_type;
        constexpr std::size_t kBlock = 8192;
        std::vector<std::vector<Pair>> blocks((pairs.size() + kBlock - 1) / kBlock);
        tbb::parallel_for(std::size_t{0}, blocks.size(), [&](std::size_t b) {
            const std::size_t end = std::min(pairs.size(), (b + 1) * kBlock);
            for (std::size_t i = b * kBlock; i < end; ++i)
                if (overlaps(pairs[i])) blocks[b].push_back(pairs[i]);
        });
        return broad_phase_detail::concatenate(blocks);
    };
    Candidates out;
    out.point_triangle = kept(cached_.point_triangle, [&](const PointTriangleCandidate& c) {
        return box(vertex_boxes_, vertex_slot_, c.vertex)
            .overlaps(box(face_boxes_, face_slot_, c.face));
    });
    out.edge_edge = kept(cached_.edge_edge, [&](const EdgeEdgeCandidate& c) {
        return box(edge_boxes_, edge_slot_, c.edge_a)
            .overlaps(box(edge_boxes_, edge_slot_, c.edge_b));
    });
    last_answer_ = out.size();
    return out;
}

}  // namespace concord
