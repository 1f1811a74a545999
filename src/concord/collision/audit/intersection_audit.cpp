#include "concord/collision/audit/intersection_audit.hpp"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <string>

#include "concord/collision/audit/exact_predicates.hpp"
#include "concord/collision/audit/overlapping_boxes.hpp"
#include "concord/collision/audit/triangle_intersection.hpp"
#include "concord/geometry/aabb.hpp"
#include "concord/math/error.hpp"

namespace concord {

namespace {

// Serial on purpose: with several bad elements the message must name the same (first) one on
// every run.
void validate(std::span<const AuditBody> bodies, std::span<const HalfSpace> planes) {
    for (std::size_t b = 0; b < bodies.size(); ++b) {
        const std::string body = "audit: body " + std::to_string(b);
        if (bodies[b].faces == nullptr || bodies[b].vertices == nullptr)
            throw InputError(body + " has no face or vertex matrix");
        const Vertices& vertices = *bodies[b].vertices;
        const Faces& faces = *bodies[b].faces;
        for (Eigen::Index v = 0; v < vertices.rows(); ++v)
            if (!vertices.row(v).allFinite())
                throw InputError(body + " vertex " + std::to_string(v) +
                                 " has a non-finite coordinate");
        for (Eigen::Index f = 0; f < faces.rows(); ++f)
            for (int k = 0; k < 3; ++k)
                if (faces(f, k) < 0 || faces(f, k) >= vertices.rows())
                    throw InputError(body + " face " + std::to_string(f) + " refers to vertex " +
                                     std::to_string(faces(f, k)) + ", but the body has " +
                                     std::to_string(vertices.rows()) + " vertices");
    }
    for (std::size_t p = 0; p < planes.size(); ++p)
        if (!planes[p].point.allFinite() || !planes[p].normal.allFinite() ||
            planes[p].normal.isZero(0.0))
            throw InputError("audit: plane " + std::to_string(p) +
                             " has a non-finite point or a zero or non-finite normal");
}

Vec3 vertex(const AuditBody& body, int v) {
    return body.vertices->row(v).transpose();
}

struct BodyBoxes {
    std::vector<AABB> faces;  ///< one closed box per triangle (min/max of doubles: exact)
    AABB surface;             ///< union of the triangle boxes
};

BodyBoxes body_boxes(const AuditBody& body) {
    const Faces& faces = *body.faces;
    BodyBoxes boxes;
    boxes.faces.resize(static_cast<std::size_t>(faces.rows()));
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, faces.rows(), 4096), [&](const auto& r) {
        for (Eigen::Index f = r.begin(); f != r.end(); ++f) {
            AABB box;
            for (int k = 0; k < 3; ++k) box.expand(vertex(body, faces(f, k)));
            boxes.faces[static_cast<std::size_t>(f)] = box;
        }
    });
    for (const AABB& box : boxes.faces) boxes.surface.expand(box);
    return boxes;
}

// Keeps at most `limit` of the smallest items seen, amortised O(1) per insertion.
template <class T>
void keep_smallest(std::vector<T>& kept, const T& item, std::size_t limit) {
    if (limit == 0) return;
    kept.push_back(item);
    if (kept.size() >= 2 * limit) {
        std::nth_element(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(limit),
                         kept.end());
        kept.resize(limit);
    }
}

template <class T>
void sort_and_truncate(std::vector<T>& items, std::size_t limit) {
    std::sort(items.begin(), items.end());
    if (items.size() > limit) items.resize(limit);
}

struct Hits {
    std::int64_t count = 0;
    std::vector<TriangleHit> first;
};

// Faces of one body whose boxes overlap `region`, with their boxes.
void faces_overlapping(const BodyBoxes& boxes, const AABB& region, std::vector<int>& ids,
                       std::vector<AABB>& selected) {
    for (std::size_t f = 0; f < boxes.faces.size(); ++f)
        if (boxes.faces[f].overlaps(region)) {
            ids.push_back(static_cast<int>(f));
            selected.push_back(boxes.faces[f]);
        }
}

Hits audit_body_pair(const AuditBody& body_a, const BodyBoxes& boxes_a, int a,
                     const AuditBody& body_b, const BodyBoxes& boxes_b, int b, std::size_t limit) {
    // Only triangles whose boxes overlap the other body's box can touch it.
    std::vector<int> ids_a, ids_b;
    std::vector<AABB> selected_a, selected_b;
    faces_overlapping(boxes_a, boxes_b.surface, ids_a, selected_a);
    faces_overlapping(boxes_b, boxes_a.surface, ids_b, selected_b);

    tbb::enumerable_thread_specific<Hits> found;
    for_each_overlapping_box_pair(selected_a, selected_b, [&](int i, int j) {
        const int fa = ids_a[static_cast<std::size_t>(i)];
        const int fb = ids_b[static_cast<std::size_t>(j)];
        const Faces& faces_a = *body_a.faces;
        const Faces& faces_b = *body_b.faces;
        if (triangles_intersect(vertex(body_a, faces_a(fa, 0)), vertex(body_a, faces_a(fa, 1)),
                                vertex(body_a, faces_a(fa, 2)), vertex(body_b, faces_b(fb, 0)),
                                vertex(body_b, faces_b(fb, 1)), vertex(body_b, faces_b(fb, 2)))) {
            Hits& local = found.local();
            ++local.count;
            keep_smallest(local.first, TriangleHit{a, fa, b, fb}, limit);
        }
    });
    Hits hits;
    for (Hits& local : found) {
        hits.count += local.count;
        hits.first.insert(hits.first.end(), local.first.begin(), local.first.end());
    }
    sort_and_truncate(hits.first, limit);
    return hits;
}

struct PlaneHits {
    std::int64_t count = 0;
    std::vector<PlaneHit> first;
};

// A body's vertices against every plane. A plane is skipped when the exact value of
// dot(x - point, normal) is positive at the corner of the vertex box that minimises it: it is
// then positive at every vertex.
PlaneHits audit_body_planes(const AuditBody& body, int b, std::span<const HalfSpace> planes,
                            std::size_t limit) {
    PlaneHits hits;
    const Eigen::Index num_vertices = body.vertices->rows();
    if (num_vertices == 0) return hits;
    AABB box;
    for (Eigen::Index v = 0; v < num_vertices; ++v) box.expand(vertex(body, static_cast<int>(v)));
    std::vector<int> reachable;
    for (std::size_t p = 0; p < planes.size(); ++p) {
        Vec3 lowest;
        for (int k = 0; k < 3; ++k) lowest[k] = planes[p].normal[k] > 0 ? box.min[k] : box.max[k];
        if (plane_side(lowest, planes[p].point, planes[p].normal) <= 0)
            reachable.push_back(static_cast<int>(p));
    }
    if (reachable.empty()) return hits;
    for (Eigen::Index v = 0; v < num_vertices; ++v) {
        const Vec3 x = vertex(body, static_cast<int>(v));
        for (int p : reachable)
            if (point_below_plane(x, planes[static_cast<std::size_t>(p)].point,
                                  planes[static_cast<std::size_t>(p)].normal)) {
                // Loop order is already lexicographic (vertex, plane).
                if (hits.first.size() < limit) hits.first.push_back({b, static_cast<int>(v), p});
                ++hits.count;
            }
    }
    return hits;
}

}  // namespace

AuditResult audit_intersections(std::span<const AuditBody> bodies,
                                std::span<const HalfSpace> planes, int max_reports,
                                std::span<const std::pair<int, int>> excluded) {
    validate(bodies, planes);
    const std::size_t limit = static_cast<std::size_t>(std::max(max_reports, 0));
    const int num_bodies = static_cast<int>(bodies.size());

    std::vector<BodyBoxes> boxes(bodies.size());
    tbb::parallel_for(0, num_bodies, [&](int b) { boxes[b] = body_boxes(bodies[b]); });
    std::vector<AABB> surfaces(bodies.size());
    for (std::size_t b = 0; b < bodies.size(); ++b) surfaces[b] = boxes[b].surface;

    // Body pairs come sorted, so concatenating each pair's sorted hits keeps the global order.
    std::vector<std::pair<int, int>> body_pairs = overlapping_box_pairs(surfaces);
    if (!excluded.empty())
        std::erase_if(body_pairs, [&](const std::pair<int, int>& p) {
            return std::binary_search(excluded.begin(), excluded.end(), p);
        });
    std::vector<Hits> pair_hits(body_pairs.size());
    tbb::parallel_for(std::size_t{0}, body_pairs.size(), [&](std::size_t k) {
        const auto [a, b] = body_pairs[k];
        pair_hits[k] = audit_body_pair(bodies[a], boxes[a], a, bodies[b], boxes[b], b, limit);
    });

    std::vector<PlaneHits> body_plane_hits(bodies.size());
    if (!planes.empty())
        tbb::parallel_for(0, num_bodies, [&](int b) {
            body_plane_hits[b] = audit_body_planes(bodies[b], b, planes, limit);
        });

    AuditResult result;
    for (const Hits& hits : pair_hits) {
        result.triangle_hit_count += hits.count;
        for (const TriangleHit& hit : hits.first)
            if (result.triangle_hits.size() < limit) result.triangle_hits.push_back(hit);
    }
    for (const PlaneHits& hits : body_plane_hits) {
        result.plane_hit_count += hits.count;
        for (const PlaneHit& hit : hits.first)
            if (result.plane_hits.size() < limit) result.plane_hits.push_back(hit);
    }
    result.clean = result.triangle_hit_count == 0 && result.plane_hit_count == 0;
    return result;
}

}  // namespace concord
