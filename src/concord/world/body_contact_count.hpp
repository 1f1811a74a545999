// Per-body contact counts (frames.jsonl stats.body_contacts): how many active contact pairs each
// body takes part in. What counts, in docs/cli.md "Output directory":
//   - a point-triangle pair counts once for the vertex's body and once for the face's body;
//   - an edge-edge pair counts once for each edge's body;
//   - a point-plane pair counts once for the vertex's body (a scene plane is not a body);
//   - a pair whose two elements lie on the same body counts once for that body.
// So the counts of a step add up to contacts + (pairs between two different bodies).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "concord/energy/contact_set.hpp"
#include "concord/energy/contact_surface.hpp"

namespace concord {

/// One body's count (sparse lists hold only bodies with at least one pair).
struct BodyContactCount {
    std::int32_t body = 0;   ///< world body index
    std::int32_t count = 0;  ///< active pairs the body takes part in
    friend bool operator==(const BodyContactCount&, const BodyContactCount&) = default;
};

/// Counts the pairs of `set` per body. Bodies are numbered as in `surface` (system indices);
/// `world_index` maps them to world indices. `keep(a, b)` decides whether a pair between
/// system bodies a and b (b = -1 for a plane) is counted here (a distributed worker counts only
/// the pairs it is responsible for). `scratch` is a zeroed work array that is grown as needed
/// and left zeroed, so the cost is O(pairs + touched bodies log touched bodies) per call, not
/// O(bodies). The result is sorted by world body index: deterministic whatever the order of
/// the pairs.
template <typename Keep>
std::vector<BodyContactCount> count_body_contacts(const ContactSet& set,
                                                  const ContactSurface& surface,
                                                  const std::vector<int>& world_index, Keep&& keep,
                                                  std::vector<int>& scratch) {
    if (scratch.size() < world_index.size()) scratch.resize(world_index.size(), 0);
    std::vector<int> touched;
    auto bump = [&](int k) {
        if (scratch[static_cast<std::size_t>(k)]++ == 0) touched.push_back(k);
    };
    auto add = [&](int a, int b) {
        if (!keep(a, b)) return;
        bump(a);
        if (b >= 0 && b != a) bump(b);
    };
    const auto& faces = surface.mesh.faces;
    const auto& edges = surface.mesh.edges;
    for (const PointTriangleContact& c : set.point_triangle)
        add(surface.body_of_vertex(c.vertex), surface.body_of_vertex(faces(c.face, 0)));
    for (const EdgeEdgeContact& c : set.edge_edge)
        add(surface.body_of_vertex(edges(c.edge_a, 0)), surface.body_of_vertex(edges(c.edge_b, 0)));
    for (const PointPlaneContact& c : set.point_plane) add(surface.body_of_vertex(c.vertex), -1);

    std::vector<BodyContactCount> out;
    out.reserve(touched.size());
    for (int k : touched) {
        int& n = scratch[static_cast<std::size_t>(k)];
        out.push_back({world_index[static_cast<std::size_t>(k)], n});
        n = 0;
    }
    std::sort(out.begin(), out.end(),
              [](const BodyContactCount& x, const BodyContactCount& y) { return x.body < y.body; });
    return out;
}

/// Adds sparse counts into a dense per-body array (one entry per world body).
inline void add_body_contacts(const std::vector<BodyContactCount>& counts,
                              std::vector<int>& per_body) {
    for (const BodyContactCount& c : counts) per_body[static_cast<std::size_t>(c.body)] += c.count;
}

}  // namespace concord
