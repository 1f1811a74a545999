#include "concord/collision/broad_phase/sweep_and_prune.hpp"

#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>
#include <tbb/parallel_sort.h>

#include <algorithm>
#include <vector>

#include "concord/collision/broad_phase/candidate_blocks.hpp"

namespace concord {

using broad_phase_detail::kQueryBlock;

namespace {

// A non-empty box with its primitive index, ordered by its minimum on the sweep axis.
struct SweepEntry {
    double lo, hi;
    int index;
};

struct SweepList {
    std::vector<SweepEntry> entries;  // sorted by (lo, index)
    std::vector<AABB> boxes;          // boxes in the same order, for locality while scanning
};

SweepList sorted_along(std::span<const AABB> boxes, int axis) {
    SweepList list;
    for (std::size_t i = 0; i < boxes.size(); ++i)
        if (!boxes[i].empty())
            list.entries.push_back({boxes[i].min[axis], boxes[i].max[axis], static_cast<int>(i)});
    tbb::parallel_sort(list.entries.begin(), list.entries.end(),
                       [](const SweepEntry& a, const SweepEntry& b) {
                           return a.lo < b.lo || (a.lo == b.lo && a.index < b.index);
                       });
    list.boxes.resize(list.entries.size());
    for (std::size_t k = 0; k < list.entries.size(); ++k)
        list.boxes[k] = boxes[static_cast<std::size_t>(list.entries[k].index)];
    return list;
}

int sweep_axis(std::span<const AABB> a, std::span<const AABB> b, std::span<const AABB> c) {
    AABB all;
    for (const auto boxes : {a, b, c})
        for (const AABB& box : boxes)
            if (!box.empty()) all.expand(box);
    if (all.empty()) return 0;
    int axis = 0;
    all.extent().maxCoeff(&axis);
    return axis;
}

// Runs scan(k, found) for every sorted position k, block by block, and gathers the keys.
template <class Scan>
std::vector<std::uint64_t> scan_blocks(std::size_t count, Scan&& scan) {
    std::vector<std::vector<std::uint64_t>> blocks(
        static_cast<std::size_t>(broad_phase_detail::num_blocks(static_cast<int>(count))));
    tbb::parallel_for(std::size_t{0}, blocks.size(), [&](std::size_t b) {
        const std::size_t end = std::min(count, (b + 1) * kQueryBlock);
        for (std::size_t k = b * kQueryBlock; k < end; ++k) scan(k, blocks[b]);
    });
    return broad_phase_detail::concatenate(blocks);
}

std::vector<PointTriangleCandidate> point_triangle_sweep(const CollisionMesh& mesh,
                                                         const SweepList& vertices,
                                                         const SweepList& faces,
                                                         const BodyPairFilter& filter) {
    const int face_bits = broad_phase_detail::index_bits(mesh.num_faces());
    const int vertex_bits = broad_phase_detail::index_bits(mesh.num_vertices());
    auto emit = [&](int v, int f, std::vector<std::uint64_t>& found) {
        const int body_v = mesh.vertex_body[static_cast<std::size_t>(v)];
        const int body_f = mesh.face_body[static_cast<std::size_t>(f)];
        if (body_v != body_f && (!filter || filter(body_v, body_f)))
            found.push_back(broad_phase_detail::pack_pair(v, f, face_bits));
    };
    auto by_lo = [](const SweepEntry& e, double lo) { return e.lo < lo; };
    // A pair overlapping on the axis has either the face starting inside the vertex interval
    // (found from the vertex, ties included) or the vertex starting strictly inside the face
    // interval (found from the face): each pair is reported once.
    std::vector<std::uint64_t> keys =
        scan_blocks(vertices.entries.size(), [&](std::size_t k, auto& found) {
            const SweepEntry& v = vertices.entries[k];
            auto it = std::lower_bound(faces.entries.begin(), faces.entries.end(), v.lo, by_lo);
            for (; it != faces.entries.end() && it->lo <= v.hi; ++it) {
                const std::size_t j = static_cast<std::size_t>(it - faces.entries.begin());
                if (vertices.boxes[k].overlaps(faces.boxes[j])) emit(v.index, it->index, found);
            }
        });
    std::vector<std::uint64_t> from_faces =
        scan_blocks(faces.entries.size(), [&](std::size_t k, auto& found) {
            const SweepEntry& f = faces.entries[k];
            auto it = std::upper_bound(vertices.entries.begin(), vertices.entries.end(), f.lo,
                                       [](double lo, const SweepEntry& e) { return lo < e.lo; });
            for (; it != vertices.entries.end() && it->lo <= f.hi; ++it) {
                const std::size_t j = static_cast<std::size_t>(it - vertices.entries.begin());
                if (faces.boxes[k].overlaps(vertices.boxes[j])) emit(it->index, f.index, found);
            }
        });
    keys.insert(keys.end(), from_faces.begin(), from_faces.end());
    return broad_phase_detail::sorted_unique_pairs<PointTriangleCandidate>(std::move(keys),
                                                                           vertex_bits, face_bits);
}

std::vector<EdgeEdgeCandidate> edge_edge_sweep(const CollisionMesh& mesh, const SweepList& edges,
                                               const BodyPairFilter& filter) {
    const int bits = broad_phase_detail::index_bits(mesh.num_edges());
    std::vector<std::uint64_t> keys = scan_blocks(edges.entries.size(), [&](std::size_t k,
                                                                            auto& found) {
        const SweepEntry& e = edges.entries[k];
        for (std::size_t j = k + 1; j < edges.entries.size() && edges.entries[j].lo <= e.hi; ++j) {
            if (!edges.boxes[k].overlaps(edges.boxes[j])) continue;
            const int a = std::min(e.index, edges.entries[j].index);
            const int b = std::max(e.index, edges.entries[j].index);
            const int body_a = mesh.edge_body[static_cast<std::size_t>(a)];
            const int body_b = mesh.edge_body[static_cast<std::size_t>(b)];
            if (body_a != body_b && (!filter || filter(body_a, body_b)))
                found.push_back(broad_phase_detail::pack_pair(a, b, bits));
        }
    });
    return broad_phase_detail::sorted_unique_pairs<EdgeEdgeCandidate>(std::move(keys), bits, bits);
}

}  // namespace

Candidates sweep_and_prune_candidates(const CollisionMesh& mesh, std::span<const AABB> vertex_boxes,
                                      std::span<const AABB> edge_boxes,
                                      std::span<const AABB> face_boxes,
                                      const BodyPairFilter& filter) {
    const int axis = sweep_axis(vertex_boxes, edge_boxes, face_boxes);
    SweepList vertices, edges, faces;
    tbb::parallel_invoke([&] { vertices = sorted_along(vertex_boxes, axis); },
                         [&] { edges = sorted_along(edge_boxes, axis); },
                         [&] { faces = sorted_along(face_boxes, axis); });
    Candidates candidates;
    tbb::parallel_invoke(
        [&] { candidates.point_triangle = point_triangle_sweep(mesh, vertices, faces, filter); },
        [&] { candidates.edge_edge = edge_edge_sweep(mesh, edges, filter); });
    return candidates;
}

}  // namespace concord
