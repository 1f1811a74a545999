#include "concord/collision/broad_phase/body_pairs.hpp"

#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>

#include <algorithm>
#include <cstdint>
#include <span>

#include "concord/collision/broad_phase/body_parts.hpp"
#include "concord/collision/broad_phase/swept_boxes.hpp"

namespace concord {

namespace {

// A primitive with its swept box.
struct Boxed {
    int id;
    AABB box;
};

// The primitives of `ids` whose box overlaps `region`, with their boxes. An edge's or face's
// swept box is the union of its corners' (the padding and outward rounding are monotone, so the
// union is exactly swept_edge_boxes' / swept_face_boxes' box): only the primitives of bodies
// near another one get a box at all.
template <class Rows>
void near(std::span<const int> ids, const Rows* rows, const std::vector<AABB>& vertex_boxes,
          const AABB& region, std::vector<Boxed>& out) {
    out.clear();
    for (int i : ids) {
        AABB box;
        if (rows) {
            for (Eigen::Index c = 0; c < rows->cols(); ++c)
                box.expand(vertex_boxes[static_cast<std::size_t>((*rows)(i, c))]);
        } else {
            box = vertex_boxes[static_cast<std::size_t>(i)];
        }
        if (box.overlaps(region)) out.push_back({i, box});
    }
}

// Whether some a in `as` and b in `bs` have overlapping boxes with accept(a, b): a sweep along x
// over both lists (sorted by their boxes' lower x), stopping at the first such pair.
template <typename Accept>
bool any_overlap(std::vector<Boxed>& as, std::vector<Boxed>& bs, Accept&& accept) {
    if (as.empty() || bs.empty()) return false;
    if (as.size() * bs.size() <= 256) {
        for (const Boxed& a : as)
            for (const Boxed& b : bs)
                if (a.box.overlaps(b.box) && accept(a.id, b.id)) return true;
        return false;
    }
    auto by_lower_x = [](const Boxed& x, const Boxed& y) { return x.box.min.x() < y.box.min.x(); };
    std::sort(as.begin(), as.end(), by_lower_x);
    std::sort(bs.begin(), bs.end(), by_lower_x);
    std::size_t i = 0, j = 0;
    while (i < as.size() && j < bs.size()) {
        // The box with the lower start meets every box of the other list that starts before
        // it ends.
        if (as[i].box.min.x() <= bs[j].box.min.x()) {
            const AABB& A = as[i].box;
            for (std::size_t k = j; k < bs.size() && bs[k].box.min.x() <= A.max.x(); ++k)
                if (A.overlaps(bs[k].box) && accept(as[i].id, bs[k].id)) return true;
            ++i;
        } else {
            const AABB& B = bs[j].box;
            for (std::size_t k = i; k < as.size() && as[k].box.min.x() <= B.max.x(); ++k)
                if (B.overlaps(as[k].box) && accept(as[k].id, bs[j].id)) return true;
            ++j;
        }
    }
    return false;
}

}  // namespace

MeshByBody::MeshByBody(const CollisionMesh& mesh) {
    for (const auto* ids : {&mesh.vertex_body, &mesh.edge_body, &mesh.face_body})
        for (int b : *ids) num_bodies = std::max(num_bodies, b + 1);
    tbb::parallel_invoke([&] { vertices = PrimitivesByBody(mesh.vertex_body, num_bodies); },
                         [&] { edges = PrimitivesByBody(mesh.edge_body, num_bodies); },
                         [&] { faces = PrimitivesByBody(mesh.face_body, num_bodies); });
}

std::vector<std::pair<int, int>> interacting_body_pairs(const CollisionMesh& mesh,
                                                        const Vertices& x0, const Vertices& x1,
                                                        const BroadPhaseParams& params) {
    validate_broad_phase_input(mesh, x0, x1, params.dhat);
    return interacting_body_pairs(mesh, MeshByBody(mesh), x0, x1, params);
}

std::vector<std::pair<int, int>> interacting_body_pairs(const CollisionMesh& mesh,
                                                        const MeshByBody& by_body,
                                                        const Vertices& x0, const Vertices& x1,
                                                        const BroadPhaseParams& params) {
    validate_broad_phase_input(mesh, x0, x1, params.dhat);
    const double inflation = 0.5 * params.dhat;
    std::vector<AABB> vertex_boxes;
    swept_vertex_boxes(x0, x1, inflation, vertex_boxes);
    const int num_bodies = by_body.num_bodies;
    const PrimitivesByBody &vertices = by_body.vertices, &edges = by_body.edges,
                           &faces = by_body.faces;

    // A body's box holds every box of its primitives (an edge's or face's box is the union of
    // its vertices' boxes).
    std::vector<AABB> body_box(static_cast<std::size_t>(num_bodies));
    tbb::parallel_for(0, num_bodies, [&](int b) {
        for (int v : vertices.of(b))
            body_box[static_cast<std::size_t>(b)].expand(vertex_boxes[static_cast<std::size_t>(v)]);
    });

    const BodyPairFilter& filter = params.body_pair_filter;
    auto allowed = [&](int a, int b) { return a != b && (!filter || filter(a, b)); };

    // Body pairs whose boxes overlap (sweep along x) and that the filter allows either way.
    std::vector<int> order;
    for (int b = 0; b < num_bodies; ++b)
        if (!body_box[static_cast<std::size_t>(b)].empty()) order.push_back(b);
    auto lo = [&](int b) { return body_box[static_cast<std::size_t>(b)].min.x(); };
    std::sort(order.begin(), order.end(), [&](int a, int b) { return lo(a) < lo(b) || (lo(a) == lo(b) && a < b); });
    std::vector<std::pair<int, int>> pairs;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const AABB& A = body_box[static_cast<std::size_t>(order[i])];
        for (std::size_t j = i + 1; j < order.size() && lo(order[j]) <= A.max.x(); ++j) {
            const int a = std::min(order[i], order[j]), b = std::max(order[i], order[j]);
            if (A.overlaps(body_box[static_cast<std::size_t>(order[j])]) &&
                (allowed(a, b) || allowed(b, a)))
                pairs.emplace_back(a, b);
        }
    }
    std::sort(pairs.begin(), pairs.end());

    // Per pair: one candidate of find_candidates, with its filter call (vertex's body, face's
    // body) and (body of the lower edge, body of the higher one).
    std::vector<std::uint8_t> keep(pairs.size(), 0);
    tbb::parallel_for(std::size_t(0), pairs.size(), [&](std::size_t k) {
        const auto [a, b] = pairs[k];
        const AABB& box_a = body_box[static_cast<std::size_t>(a)];
        const AABB& box_b = body_box[static_cast<std::size_t>(b)];
        std::vector<Boxed> s, t;
        auto any = [](int, int) { return true; };
        const Edges* no_rows = nullptr;  // vertices: their own boxes
        auto point_triangle = [&](int vb, const AABB& other, int fb, const AABB& mine) {
            if (!allowed(vb, fb)) return false;
            near(vertices.of(vb), no_rows, vertex_boxes, other, s);
            if (s.empty()) return false;
            near(faces.of(fb), &mesh.faces, vertex_boxes, mine, t);
            return any_overlap(s, t, any);
        };
        auto edge_edge = [&] {
            near(edges.of(a), &mesh.edges, vertex_boxes, box_b, s);
            if (s.empty()) return false;
            near(edges.of(b), &mesh.edges, vertex_boxes, box_a, t);
            return any_overlap(s, t, [&](int ea, int eb) {
                const int lo_edge = std::min(ea, eb), hi_edge = std::max(ea, eb);
                return allowed(mesh.edge_body[static_cast<std::size_t>(lo_edge)],
                               mesh.edge_body[static_cast<std::size_t>(hi_edge)]);
            });
        };
        keep[k] = point_triangle(a, box_b, b, box_a) || point_triangle(b, box_a, a, box_b) ||
                  edge_edge();
    });
    std::vector<std::pair<int, int>> out;
    for (std::size_t k = 0; k < pairs.size(); ++k)
        if (keep[k]) out.push_back(pairs[k]);
    return out;
}

}  // namespace concord
