// Uniform-grid neighbour search for particles (SPH fluids and their boundary samples).
//
// Two layouts, chosen at build time:
//  - dense (the usual case): cells of half the build's `cell` over the points' bounding box,
//    when it has at most 8 cells per point. A query visits, for each row of cells along x
//    within reach in y and z, only the cells of that row that the ball of the radius can touch
//    (its x extent at the row's nearest y and z), one contiguous range of points per row:
//    about 2.5 times fewer candidates than 27 cells of the full size;
//  - hashed (points spread far apart): cells of `cell`, bucketed by a hash of their
//    coordinates (O(n) memory however far particles fly), the 27 cells around a query.
// Points are binned by a counting sort. Lists are built in parallel (TBB) in fixed blocks of
// query points, and every list comes out in the same order whatever the thread count: dense,
// rows in (z, y) offset order and along x, points of a cell in increasing index; hashed, the
// buckets of the 27 cells in the order of the cell offsets, points of a bucket in increasing
// index.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "concord/math/types.hpp"

namespace concord {

/// Compressed lists: the neighbours of query i are index[offsets[i] .. offsets[i + 1]).
struct NeighborLists {
    std::vector<std::int64_t> offsets{0};
    std::vector<int> index;

    std::size_t size() const { return offsets.size() - 1; }
    std::int64_t begin(std::size_t i) const { return offsets[i]; }
    std::int64_t end(std::size_t i) const { return offsets[i + 1]; }
    std::int64_t count(std::size_t i) const { return offsets[i + 1] - offsets[i]; }
};

class NeighborGrid {
  public:
    /// Bins `points` (which the grid keeps a pointer to: they must outlive it and stay put).
    /// `cell` > 0.
    void build(const std::vector<Vec3>& points, double cell);

    /// The points within `radius` (<= cell) of each query point, itself excluded when the
    /// queries are the grid's own points (`self`), in the order described above.
    NeighborLists neighbors(const std::vector<Vec3>& queries, double radius, bool self) const;
    /// The same into `out`, reusing its storage (and the grid's scratch space: one call at a
    /// time per grid), for the first `count` queries only when count < queries.size().
    void neighbors(const std::vector<Vec3>& queries, double radius, bool self, NeighborLists& out,
                   std::size_t count = static_cast<std::size_t>(-1)) const;
    /// Queries are handled in blocks of this many, one task each.
    static constexpr std::size_t kQueryBlock = 1024;
    /// The same, calling on_pair(block, i, j, d) for every neighbour j of query i as it is
    /// listed, d = query - point (the vector the search measured): within a block
    /// (i / kQueryBlock) the calls come in list order, one task per block, so a caller can fill
    /// per-pair values alongside the lists without computing d again.
    template <class OnPair>
    void neighbors(const std::vector<Vec3>& queries, double radius, bool self, NeighborLists& out,
                   std::size_t count, OnPair&& on_pair) const;

    /// Symmetric lists of the grid's own points, each pair found and evaluated once: the
    /// neighbours within `radius` (<= cell) of each of the first `owned` points, among all the
    /// grid's points (the rest are ghosts: they get no list, and pairs of two ghosts are not
    /// looked for). A pair is found from the point of the two that comes first in the grid's
    /// cell order, which scans only the candidates after itself (about half of them), and
    /// value(d) computes its T once, d = x_a - x_b (a the finder). Once the lists' length is
    /// known, resize(entries) is called (size the caller's per-entry arrays). Then store(slot, v,
    /// mirrored) is called for every list entry: `mirrored` is false in a's list (the value
    /// of d) and true in b's (the pair seen from b, -d). Point i's list holds first the points
    /// that found i, in increasing index, then the points i found, in the search's order: the
    /// same lists and calls whatever the thread count. `scratch` holds the values between the
    /// search and the stores (reused between calls).
    template <class T, class Value, class Resize, class Store>
    void pair_lists(double radius, std::size_t owned, NeighborLists& lists,
                    std::vector<std::vector<T>>& scratch, Value&& value, Resize&& resize,
                    Store&& store) const;

    /// Calls visit(j) for every point j within `radius` (<= cell) of x, in the order of
    /// neighbors() (x's own index included when x is one of the points), without building
    /// lists; stops at the first visit that returns false. Returns false when stopped.
    template <class Visit>
    bool for_each_near(const Vec3& x, double radius, Visit&& visit) const {
        const double r2 = radius * radius;
        if (dense_)
            return for_each_dense_range(x, radius, [&](std::int64_t s0, std::int64_t s1) {
                for (std::int64_t s = s0; s < s1; ++s)
                    if ((sorted_x_[static_cast<std::size_t>(s)] - x).squaredNorm() < r2 &&
                        !visit(sorted_[static_cast<std::size_t>(s)]))
                        return false;
                return true;
            });
        std::array<std::int64_t, 27> b{};
        const int nb = buckets_around(x, b);
        for (int k = 0; k < nb; ++k) {
            const auto bk = static_cast<std::size_t>(b[static_cast<std::size_t>(k)]);
            for (std::int64_t s = start_[bk]; s < start_[bk + 1]; ++s)
                if ((sorted_x_[static_cast<std::size_t>(s)] - x).squaredNorm() < r2 &&
                    !visit(sorted_[static_cast<std::size_t>(s)]))
                    return false;
        }
        return true;
    }

    std::size_t num_points() const { return points_ ? points_->size() : 0; }
    /// Whether the last build chose the dense layout.
    bool dense() const { return dense_; }

  private:
    /// Dense layout: visit(s0, s1) for each contiguous range of sorted points that may lie
    /// within `radius` of x, in the fixed row order.
    template <class Range>
    bool for_each_dense_range(const Vec3& x, double radius, Range&& range) const;
    std::int64_t bucket(std::int64_t ix, std::int64_t iy, std::int64_t iz) const;
    /// The distinct buckets of the 27 cells around x, in the order of the cells (x, then y,
    /// then z offsets -1, 0, 1).
    int buckets_around(const Vec3& x, std::array<std::int64_t, 27>& out) const;
    int buckets_around(const std::array<std::int64_t, 3>& cell,
                       std::array<std::int64_t, 27>& out) const;
    std::array<std::int64_t, 3> cell_of(const Vec3& x) const;

    const std::vector<Vec3>* points_ = nullptr;
    double cell_ = 1.0;
    bool dense_ = false;
    Vec3 origin_ = Vec3::Zero();         ///< dense: the lowest corner of the grid
    std::array<std::int64_t, 3> dims_{};  ///< dense: cells along x, y, z (x fastest)
    static constexpr std::int64_t kNearReach = 3;
    /// dense: per cell, whether a point lies in a cell at most kNearReach cells away along
    /// each axis
    std::vector<std::uint8_t> near_;
    std::int64_t table_size_ = 1;
    std::vector<std::int64_t> start_;  ///< bucket b holds sorted_[start_[b] .. start_[b + 1])
    std::vector<int> sorted_;
    std::vector<Vec3> sorted_x_;  ///< the points in sorted_ order: candidates read contiguously
    std::vector<std::int64_t> position_;  ///< point i is sorted_[position_[i]]
    mutable std::vector<std::vector<int>> found_;  ///< per block of queries (scratch)
    mutable std::vector<std::int64_t> found_count_, incoming_, cursor_;  ///< pair_lists (scratch)
};

template <class Range>
bool NeighborGrid::for_each_dense_range(const Vec3& x, double radius, Range&& range) const {
    const double c = cell_, inv_c = 1.0 / cell_;
    // The row and range tests are widened by a hair so that a point the exact distance test
    // keeps is never left out by rounding in them.
    const double r2 = radius * radius * (1.0 + 1e-12) + 1e-300;
    // A cell coordinate along axis a, clamped to [-1, dims] before the cast (queries may lie
    // anywhere, even at +-1e300; a NaN coordinate gives -1, and its query finds nothing).
    auto cell_at = [&](double v, int a) -> std::int64_t {
        const std::int64_t d = dims_[static_cast<std::size_t>(a)];
        const double f = std::floor((v - origin_[a]) * inv_c);
        if (f >= static_cast<double>(d)) return d;
        return f >= -1.0 ? static_cast<std::int64_t>(f) : -1;
    };
    const std::int64_t ix = cell_at(x.x(), 0), iy = cell_at(x.y(), 1), iz = cell_at(x.z(), 2);
    // Rows from the ball's extent (widened): a point on a cell's edge may round either way.
    const double wide = radius * (1.0 + 1e-12);
    // Nothing within reach of the query's cell (most queries against a boundary's samples):
    // the ball spans at most ceil(radius / cell) + 1 cells on each side once rounded.
    if (ix >= 0 && iy >= 0 && iz >= 0 && ix < dims_[0] && iy < dims_[1] && iz < dims_[2] &&
        std::ceil(radius * inv_c) + 1.0 <= static_cast<double>(kNearReach) &&
        !near_[static_cast<std::size_t>((iz * dims_[1] + iy) * dims_[0] + ix)])
        return true;
    std::array<double, 2 * kNearReach + 1> dy2{};
    const std::int64_t y0 = std::max<std::int64_t>(cell_at(x.y() - wide, 1), 0),
                       y1 = std::min<std::int64_t>(cell_at(x.y() + wide, 1), dims_[1] - 1);
    for (std::int64_t y = y0; y <= y1; ++y) {
        const double dy = std::max({0.0, origin_.y() + static_cast<double>(y) * c - x.y(),
                                    x.y() - (origin_.y() + static_cast<double>(y + 1) * c)});
        if (y - y0 < static_cast<std::int64_t>(dy2.size()))
            dy2[static_cast<std::size_t>(y - y0)] = dy * dy;
    }
    for (std::int64_t z = std::max<std::int64_t>(cell_at(x.z() - wide, 2), 0);
         z <= std::min<std::int64_t>(cell_at(x.z() + wide, 2), dims_[2] - 1); ++z) {
        // Distance from x to the row's slab in z, then in y: what is left of the radius in x.
        const double dz = std::max({0.0, origin_.z() + static_cast<double>(z) * c - x.z(),
                                    x.z() - (origin_.z() + static_cast<double>(z + 1) * c)});
        if (dz * dz >= r2) continue;
        for (std::int64_t y = y0; y <= y1; ++y) {
            double dyy;
            if (y - y0 < static_cast<std::int64_t>(dy2.size())) {
                dyy = dy2[static_cast<std::size_t>(y - y0)];
            } else {
                const double dy =
                    std::max({0.0, origin_.y() + static_cast<double>(y) * c - x.y(),
                              x.y() - (origin_.y() + static_cast<double>(y + 1) * c)});
                dyy = dy * dy;
            }
            const double left = r2 - dz * dz - dyy;
            if (left <= 0.0) continue;
            const double half = std::sqrt(left) * (1.0 + 1e-12);
            const std::int64_t x0 = std::max<std::int64_t>(cell_at(x.x() - half, 0), 0);
            const std::int64_t x1 = std::min<std::int64_t>(cell_at(x.x() + half, 0), dims_[0] - 1);
            if (x0 > x1) continue;
            const auto row = static_cast<std::size_t>((z * dims_[1] + y) * dims_[0]);
            if (!range(start_[row + static_cast<std::size_t>(x0)],
                       start_[row + static_cast<std::size_t>(x1) + 1]))
                return false;
        }
    }
    return true;
}

template <class OnPair>
void NeighborGrid::neighbors(const std::vector<Vec3>& queries, double radius, bool self,
                             NeighborLists& lists, std::size_t count, OnPair&& on_pair) const {
    const std::size_t n = std::min(count, queries.size());
    lists.offsets.assign(n + 1, 0);
    lists.index.clear();
    if (n == 0 || num_points() == 0) return;
    const double r2 = radius * radius;
    const std::size_t blocks = (n + kQueryBlock - 1) / kQueryBlock;
    if (found_.size() < blocks) found_.resize(blocks);
    tbb::parallel_for(std::size_t(0), blocks, [&](std::size_t blk) {
        std::array<std::int64_t, 27> b{};
        std::array<std::int64_t, 3> last_cell{};
        int nb = -1;
        std::vector<int>& out = found_[blk];
        out.clear();
        const std::size_t end = std::min(n, (blk + 1) * kQueryBlock);
        for (std::size_t i = blk * kQueryBlock; i < end; ++i) {
            const Vec3& x = queries[i];
            const std::size_t before = out.size();
            auto scan = [&](std::int64_t s0, std::int64_t s1) {
                for (std::int64_t s = s0; s < s1; ++s) {
                    const Vec3 d = x - sorted_x_[static_cast<std::size_t>(s)];
                    if (d.squaredNorm() >= r2) continue;
                    const int j = sorted_[static_cast<std::size_t>(s)];
                    if (self && static_cast<std::size_t>(j) == i) continue;
                    out.push_back(j);
                    on_pair(blk, i, j, d);
                }
                return true;
            };
            if (dense_) {
                for_each_dense_range(x, radius, scan);
            } else {
                // Consecutive queries often share a cell (lattices, particles that stay
                // together).
                const std::array<std::int64_t, 3> cell = cell_of(x);
                if (nb < 0 || cell != last_cell) {
                    nb = buckets_around(cell, b);
                    last_cell = cell;
                }
                for (int k = 0; k < nb; ++k) {
                    const auto bk = static_cast<std::size_t>(b[static_cast<std::size_t>(k)]);
                    scan(start_[bk], start_[bk + 1]);
                }
            }
            lists.offsets[i + 1] = static_cast<std::int64_t>(out.size() - before);
        }
    });
    for (std::size_t i = 0; i < n; ++i) lists.offsets[i + 1] += lists.offsets[i];
    lists.index.resize(static_cast<std::size_t>(lists.offsets[n]));
    tbb::parallel_for(std::size_t(0), blocks, [&](std::size_t blk) {
        std::copy(found_[blk].begin(), found_[blk].end(),
                  lists.index.begin() + lists.offsets[blk * kQueryBlock]);
    });
}

template <class T, class Value, class Resize, class Store>
void NeighborGrid::pair_lists(double radius, std::size_t owned, NeighborLists& lists,
                              std::vector<std::vector<T>>& scratch, Value&& value,
                              Resize&& resize, Store&& store) const {
    const std::size_t all = num_points();
    const std::size_t n = std::min(owned, all);
    lists.offsets.assign(n + 1, 0);
    lists.index.clear();
    if (n == 0) {
        resize(std::size_t(0));
        return;
    }
    const std::vector<Vec3>& points = *points_;
    const double r2 = radius * radius;
    const std::size_t blocks = (all + kQueryBlock - 1) / kQueryBlock;
    if (found_.size() < blocks) found_.resize(blocks);
    if (scratch.size() < blocks) scratch.resize(blocks);
    found_count_.resize(all);
    // 1. Every point (ghosts too, for their pairs with owned points) looks for the points
    // after it in the grid's order.
    tbb::parallel_for(std::size_t(0), blocks, [&](std::size_t blk) {
        std::vector<int>& out = found_[blk];
        std::vector<T>& values = scratch[blk];
        out.clear();
        values.clear();
        const std::size_t end = std::min(all, (blk + 1) * kQueryBlock);
        for (std::size_t a = blk * kQueryBlock; a < end; ++a) {
            const Vec3& x = points[a];
            const std::int64_t first = position_[a] + 1;
            const bool ghost = a >= n;
            const std::size_t before = out.size();
            auto scan = [&](std::int64_t s0, std::int64_t s1) {
                for (std::int64_t s = std::max(s0, first); s < s1; ++s) {
                    // Two ghosts: nobody's pair (tested first: a ghost's neighbours are
                    // mostly ghosts).
                    if (ghost &&
                        static_cast<std::size_t>(sorted_[static_cast<std::size_t>(s)]) >= n)
                        continue;
                    const Vec3 d = x - sorted_x_[static_cast<std::size_t>(s)];
                    if (d.squaredNorm() >= r2) continue;
                    const int b = sorted_[static_cast<std::size_t>(s)];
                    out.push_back(b);
                    values.push_back(value(d));
                }
                return true;
            };
            if (dense_) {
                for_each_dense_range(x, radius, scan);
            } else {
                std::array<std::int64_t, 27> bk{};
                const int nb = buckets_around(x, bk);
                for (int k = 0; k < nb; ++k) {
                    const auto c = static_cast<std::size_t>(bk[static_cast<std::size_t>(k)]);
                    scan(start_[c], start_[c + 1]);
                }
            }
            found_count_[a] = static_cast<std::int64_t>(out.size() - before);
        }
    });
    // 2. Per owned point, the pairs that name it (found by another point), counted and then
    // stored by ranges of points, each range reading every pair in query order: a point's
    // incoming entries come in increasing index of their finder whatever the ranges.
    const auto ranges = static_cast<std::size_t>(
        std::max(1, tbb::this_task_arena::max_concurrency()));
    auto for_each_incoming = [&](auto&& on) {
        tbb::parallel_for(std::size_t(0), ranges, [&](std::size_t r) {
            const auto lo = static_cast<int>(n * r / ranges);
            const auto hi = static_cast<int>(n * (r + 1) / ranges);
            for (std::size_t blk = 0; blk < blocks; ++blk) {
                const std::vector<int>& found = found_[blk];
                const std::size_t end = std::min(all, (blk + 1) * kQueryBlock);
                std::size_t k = 0;
                for (std::size_t a = blk * kQueryBlock; a < end; ++a)
                    for (std::int64_t e = 0; e < found_count_[a]; ++e, ++k) {
                        const int b = found[k];
                        if (b >= lo && b < hi) on(blk, k, static_cast<int>(a), b);
                    }
            }
        });
    };
    incoming_.assign(n, 0);
    for_each_incoming([&](std::size_t, std::size_t, int, int b) {
        ++incoming_[static_cast<std::size_t>(b)];
    });
    for (std::size_t i = 0; i < n; ++i)
        lists.offsets[i + 1] = lists.offsets[i] + incoming_[i] + found_count_[i];
    lists.index.resize(static_cast<std::size_t>(lists.offsets[n]));
    resize(lists.index.size());
    // 3. Each owned finder's own pairs after its incoming ones, then the incoming ones.
    tbb::parallel_for(std::size_t(0), blocks, [&](std::size_t blk) {
        const std::vector<int>& found = found_[blk];
        const std::size_t end = std::min(all, (blk + 1) * kQueryBlock);
        std::size_t k = 0;
        for (std::size_t a = blk * kQueryBlock; a < end; ++a) {
            if (a >= n) break;  // ghosts own no list (and come after every owned point)
            auto slot = lists.offsets[a] + incoming_[a];
            for (std::int64_t e = 0; e < found_count_[a]; ++e, ++k, ++slot) {
                lists.index[static_cast<std::size_t>(slot)] = found[k];
                store(static_cast<std::size_t>(slot), scratch[blk][k], false);
            }
        }
    });
    cursor_.assign(lists.offsets.begin(), lists.offsets.end() - 1);
    for_each_incoming([&](std::size_t blk, std::size_t k, int a, int b) {
        const auto slot = static_cast<std::size_t>(cursor_[static_cast<std::size_t>(b)]++);
        lists.index[slot] = a;
        store(slot, scratch[blk][k], true);
    });
}

}  // namespace concord
