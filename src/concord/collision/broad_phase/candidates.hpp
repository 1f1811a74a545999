// Broad-phase contact candidates between different bodies.
#pragma once

#include <cstdint>
#include <vector>

#include "concord/collision/broad_phase/collision_mesh.hpp"

namespace concord {

/// Point-triangle candidate: global vertex index and global face index (different bodies).
struct PointTriangleCandidate {
    int vertex;
    int face;
    friend bool operator==(const PointTriangleCandidate&, const PointTriangleCandidate&) = default;
    friend auto operator<=>(const PointTriangleCandidate&, const PointTriangleCandidate&) = default;
};

/// Edge-edge candidate: global edge indices with edge_a < edge_b (different bodies).
struct EdgeEdgeCandidate {
    int edge_a;
    int edge_b;
    friend bool operator==(const EdgeEdgeCandidate&, const EdgeEdgeCandidate&) = default;
    friend auto operator<=>(const EdgeEdgeCandidate&, const EdgeEdgeCandidate&) = default;
};

/// Deduplicated candidate sets, each sorted lexicographically, so that results do not depend
/// on the thread count or the broad-phase method.
struct Candidates {
    std::vector<PointTriangleCandidate> point_triangle;
    std::vector<EdgeEdgeCandidate> edge_edge;
    std::size_t size() const { return point_triangle.size() + edge_edge.size(); }
    void clear() {
        point_triangle.clear();
        edge_edge.clear();
    }
};

}  // namespace concord
