#include "concord/world/islands.hpp"

#include <algorithm>
#include <numeric>

#include <tbb/parallel_for.h>

namespace concord {

std::vector<int> Island::bodies() const {
    std::vector<int> all;
    all.reserve(movable.size() + obstacles.size());
    std::merge(movable.begin(), movable.end(), obstacles.begin(), obstacles.end(),
               std::back_inserter(all));
    return all;
}

namespace {

struct UnionFind {
    std::vector<int> parent;
    explicit UnionFind(int n) : parent(static_cast<std::size_t>(n)) {
        std::iota(parent.begin(), parent.end(), 0);
    }
    int find(int a) {
        while (parent[static_cast<std::size_t>(a)] != a) {
            parent[static_cast<std::size_t>(a)] =
                parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(a)])];
            a = parent[static_cast<std::size_t>(a)];
        }
        return a;
    }
    // The smaller index becomes the root, so roots are the smallest body of their component.
    void unite(int a, int b) {
        a = find(a);
        b = find(b);
        if (a == b) return;
        if (b < a) std::swap(a, b);
        parent[static_cast<std::size_t>(b)] = a;
    }
};

}  // namespace

std::vector<Island> find_islands(const std::vector<bool>& movable,
                                 const std::vector<std::pair<int, int>>& pairs) {
    const int n = static_cast<int>(movable.size());
    UnionFind uf(n);
    for (const auto& [a, b] : pairs)
        if (movable[static_cast<std::size_t>(a)] && movable[static_cast<std::size_t>(b)])
            uf.unite(a, b);
    std::vector<int> island_of(static_cast<std::size_t>(n), -1);
    std::vector<Island> islands;
    for (int b = 0; b < n; ++b) {
        if (!movable[static_cast<std::size_t>(b)]) continue;
        const int root = uf.find(b);
        if (island_of[static_cast<std::size_t>(root)] < 0) {
            island_of[static_cast<std::size_t>(root)] = static_cast<int>(islands.size());
            islands.emplace_back();
        }
        islands[static_cast<std::size_t>(island_of[static_cast<std::size_t>(root)])]
            .movable.push_back(b);
    }
    for (const auto& [a, b] : pairs) {
        const bool ma = movable[static_cast<std::size_t>(a)],
                   mb = movable[static_cast<std::size_t>(b)];
        if (ma == mb) continue;
        const int body = ma ? a : b, obstacle = ma ? b : a;
        islands[static_cast<std::size_t>(island_of[static_cast<std::size_t>(uf.find(body))])]
            .obstacles.push_back(obstacle);
    }
    for (auto& island : islands) {
        std::sort(island.obstacles.begin(), island.obstacles.end());
        island.obstacles.erase(std::unique(island.obstacles.begin(), island.obstacles.end()),
                               island.obstacles.end());
    }
    return islands;
}

MotionBounds step_motion_bounds(const ContactSurface& surface, const VecX& q_start,
                                const VecX& q_predicted, double min_margin) {
    const Vertices x0 = surface.positions(q_start);
    const Vertices x1 = surface.positions(q_predicted);
    MotionBounds bounds;
    bounds.lo.resize(x0.rows(), 3);
    bounds.hi.resize(x0.rows(), 3);
    const int num_bodies = static_cast<int>(surface.body_vertex_begin.size()) - 1;
    tbb::parallel_for(0, num_bodies, [&](int b) {
        const int begin = surface.body_vertex_begin[static_cast<std::size_t>(b)];
        const int count = surface.body_vertex_begin[static_cast<std::size_t>(b) + 1] - begin;
        if (count == 0) return;
        const auto from = x0.middleRows(begin, count), to = x1.middleRows(begin, count);
        const double displacement = (to - from).rowwise().norm().maxCoeff();
        const double margin = std::max(displacement, min_margin);
        bounds.lo.middleRows(begin, count) = from.cwiseMin(to);
        bounds.hi.middleRows(begin, count) = from.cwiseMax(to);
        bounds.lo.middleRows(begin, count).array() -= margin;
        bounds.hi.middleRows(begin, count).array() += margin;
    });
    return bounds;
}

bool within_bounds(const MotionBounds& bounds, const Vertices& x) {
    return (x.array() >= bounds.lo.array()).all() && (x.array() <= bounds.hi.array()).all();
}

}  // namespace concord
