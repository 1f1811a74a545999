#include "concord/fluid/neighbor_grid.hpp"

#include "concord/geometry/aabb.hpp"

#include <algorithm>
#include <cmath>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace concord {

namespace {

std::int64_t cell_coordinate(double x, double cell) {
    // Clamped before the cast (a NaN to 0): a point far away or not finite lands in some cell
    // and is never within the radius of a finite query.
    const double f = std::floor(x / cell);
    constexpr double kFar = 4.0e18;
    if (!(f > -kFar)) return f != f ? 0 : static_cast<std::int64_t>(-kFar);
    return f < kFar ? static_cast<std::int64_t>(f) : static_cast<std::int64_t>(kFar);
}

constexpr std::size_t kBlock = NeighborGrid::kQueryBlock;

}  // namespace

std::int64_t NeighborGrid::bucket(std::int64_t ix, std::int64_t iy, std::int64_t iz) const {
    const auto h = static_cast<std::uint64_t>(ix) * 73856093ULL ^
                   static_cast<std::uint64_t>(iy) * 19349663ULL ^
                   static_cast<std::uint64_t>(iz) * 83492791ULL;
    return static_cast<std::int64_t>(h % static_cast<std::uint64_t>(table_size_));
}

void NeighborGrid::build(const std::vector<Vec3>& points, double cell) {
    points_ = &points;
    const std::size_t n = points.size();
    // Dense when the bounding box in cells of cell / 2 has at most 8 cells per point.
    AABB box;
    for (const Vec3& x : points) box.expand(x);
    dense_ = false;
    if (n > 0 && box.max.allFinite() && box.min.allFinite()) {
        const double half = 0.5 * cell;
        double cells = 1.0;
        std::array<std::int64_t, 3> dims{};
        for (int a = 0; a < 3; ++a) {
            const double d = std::floor((box.max[a] - box.min[a]) / half) + 1.0;
            cells *= d;
            dims[static_cast<std::size_t>(a)] = static_cast<std::int64_t>(std::min(d, 1e15));
        }
        if (cells <= 8.0 * static_cast<double>(n) + 4096.0) {
            dense_ = true;
            dims_ = dims;
            origin_ = box.min;
            cell_ = half;
            table_size_ = dims[0] * dims[1] * dims[2];
        }
    }
    if (!dense_) {
        cell_ = cell;
        table_size_ = static_cast<std::int64_t>(2 * n + 1);
    }
    std::vector<std::int64_t> key(n);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, kBlock), [&](const auto& r) {
        for (std::size_t i = r.begin(); i < r.end(); ++i) {
            const Vec3& x = points[i];
            if (dense_) {
                std::array<std::int64_t, 3> c{};
                for (int a = 0; a < 3; ++a)
                    c[static_cast<std::size_t>(a)] = std::clamp<std::int64_t>(
                        cell_coordinate(x[a] - origin_[a], cell_), 0,
                        dims_[static_cast<std::size_t>(a)] - 1);
                key[i] = (c[2] * dims_[1] + c[1]) * dims_[0] + c[0];
            } else {
                key[i] = bucket(cell_coordinate(x.x(), cell_), cell_coordinate(x.y(), cell_),
                                cell_coordinate(x.z(), cell_));
            }
        }
    });
    start_.assign(static_cast<std::size_t>(table_size_) + 1, 0);
    for (std::size_t i = 0; i < n; ++i) ++start_[static_cast<std::size_t>(key[i]) + 1];
    for (std::size_t b = 0; b < static_cast<std::size_t>(table_size_); ++b)
        start_[b + 1] += start_[b];
    sorted_.resize(n);
    std::vector<std::int64_t> fill(start_.begin(), start_.end() - 1);
    for (std::size_t i = 0; i < n; ++i)  // stable: increasing point index within a bucket
        sorted_[static_cast<std::size_t>(fill[static_cast<std::size_t>(key[i])]++)] =
            static_cast<int>(i);
    if (dense_) {
        // near_: the occupied cells dilated by kNearReach along x, then y, then z.
        const auto nx = dims_[0], ny = dims_[1], nz = dims_[2];
        const auto cells = static_cast<std::size_t>(table_size_);
        std::vector<std::uint8_t> a(cells), b(cells);
        for (std::size_t c = 0; c < cells; ++c) a[c] = start_[c + 1] > start_[c];
        const std::array<std::int64_t, 3> stride{1, nx, nx * ny};
        for (int axis = 0; axis < 3; ++axis) {
            const std::int64_t st = stride[static_cast<std::size_t>(axis)];
            const std::int64_t len = dims_[static_cast<std::size_t>(axis)];
            tbb::parallel_for(std::int64_t(0), nz * ny * nx / len, [&](std::int64_t line) {
                // The line's first cell: the other two coordinates from `line`.
                std::int64_t base = 0;
                if (axis == 0) base = line * nx;
                else if (axis == 1) base = (line / nx) * nx * ny + line % nx;
                else base = line;
                for (std::int64_t k = 0; k < len; ++k) {
                    std::uint8_t v = 0;
                    for (std::int64_t d = std::max<std::int64_t>(k - kNearReach, 0);
                         d <= std::min(k + kNearReach, len - 1) && !v; ++d)
                        v = a[static_cast<std::size_t>(base + d * st)];
                    b[static_cast<std::size_t>(base + k * st)] = v;
                }
            });
            std::swap(a, b);
        }
        near_ = std::move(a);
    } else {
        near_.clear();
    }
    sorted_x_.resize(n);
    position_.resize(n);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, kBlock), [&](const auto& r) {
        for (std::size_t s = r.begin(); s < r.end(); ++s) {
            sorted_x_[s] = points[static_cast<std::size_t>(sorted_[s])];
            position_[static_cast<std::size_t>(sorted_[s])] = static_cast<std::int64_t>(s);
        }
    });
}

std::array<std::int64_t, 3> NeighborGrid::cell_of(const Vec3& x) const {
    return {cell_coordinate(x.x(), cell_), cell_coordinate(x.y(), cell_),
            cell_coordinate(x.z(), cell_)};
}

int NeighborGrid::buckets_around(const Vec3& x, std::array<std::int64_t, 27>& out) const {
    return buckets_around(cell_of(x), out);
}

int NeighborGrid::buckets_around(const std::array<std::int64_t, 3>& cell,
                                 std::array<std::int64_t, 27>& out) const {
    const auto [cx, cy, cz] = cell;
    // In the fixed order of the cell offsets; a bucket that two cells share (a hash collision,
    // rare) is kept once, at its first cell.
    int n = 0;
    for (std::int64_t dx = -1; dx <= 1; ++dx)
        for (std::int64_t dy = -1; dy <= 1; ++dy)
            for (std::int64_t dz = -1; dz <= 1; ++dz) {
                const std::int64_t b = bucket(cx + dx, cy + dy, cz + dz);
                bool seen = false;
                for (int k = 0; k < n; ++k) seen |= out[static_cast<std::size_t>(k)] == b;
                if (!seen) out[static_cast<std::size_t>(n++)] = b;
            }
    return n;
}

NeighborLists NeighborGrid::neighbors(const std::vector<Vec3>& queries, double radius,
                                      bool self) const {
    NeighborLists lists;
    neighbors(queries, radius, self, lists);
    return lists;
}

void NeighborGrid::neighbors(const std::vector<Vec3>& queries, double radius, bool self,
                             NeighborLists& lists, std::size_t count) const {
    neighbors(queries, radius, self, lists, count,
              [](std::size_t, std::size_t, int, const Vec3&) {});
}

}  // namespace concord
