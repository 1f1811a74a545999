// Uniform-grid neighbour search for particles (SPH fluids and their boundary samples).
//
// Points are binned into cubic cells of side `cell` (the kernel's support radius) by a
// counting sort over a hash of the cell coordinates, so the grid costs O(n) memory however far
// particles spread. Lists are built in parallel (TBB) in fixed blocks of query points, and every
// list comes out in the same order whatever the thread count: the buckets of the 27 cells
// around the query in the order of the cell offsets, points of a bucket in increasing point index.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

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

    /// Calls visit(j) for every point j within `radius` (<= cell) of x, in the order of
    /// neighbors() (x's own index included when x is one of the points), without building
    /// lists; stops at the first visit that returns false. Returns false when stopped.
    template <class Visit>
    bool for_each_near(const Vec3& x, double radius, Visit&& visit) const {
        std::array<std::int64_t, 27> b{};
        const int nb = buckets_around(x, b);
        const double r2 = radius * radius;
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

  private:
    std::int64_t bucket(std::int64_t ix, std::int64_t iy, std::int64_t iz) const;
    /// The distinct buckets of the 27 cells around x, in the order of the cells (x, then y,
    /// then z offsets -1, 0, 1).
    int buckets_around(const Vec3& x, std::array<std::int64_t, 27>& out) const;
    int buckets_around(const std::array<std::int64_t, 3>& cell,
                       std::array<std::int64_t, 27>& out) const;
    std::array<std::int64_t, 3> cell_of(const Vec3& x) const;

    const std::vector<Vec3>* points_ = nullptr;
    double cell_ = 1.0;
    std::int64_t table_size_ = 1;
    std::vector<std::int64_t> start_;  ///< bucket b holds sorted_[start_[b] .. start_[b + 1])
    std::vector<int> sorted_;
    std::vector<Vec3> sorted_x_;  ///< the points in sorted_ order: candidates read contiguously
    mutable std::vector<std::vector<int>> found_;  ///< per block of queries (scratch)
};

}  // namespace concord
