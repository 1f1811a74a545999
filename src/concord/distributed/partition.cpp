#include "concord/distributed/partition.hpp"

#include <algorithm>

namespace concord {

namespace {

// Cell of coordinate x along one axis = the number of planes below it; cell i spans
// (p_{i-1}, p_i], so a point on a plane belongs to the lower cell.
int cell_of(const std::vector<double>& planes, double x) {
    return static_cast<int>(std::lower_bound(planes.begin(), planes.end(), x) - planes.begin());
}

}  // namespace

int Partition::worker_of_point(const Vec3& x) const {
    std::array<int, 3> c{};
    for (int a = 0; a < 3; ++a)
        c[static_cast<std::size_t>(a)] = cell_of(planes[static_cast<std::size_t>(a)], x[a]);
    return c[0] + cells[0] * (c[1] + cells[1] * c[2]);
}

std::uint64_t Partition::holders(const Vec3& lo, const Vec3& hi, double w_half) const {
    // Along each axis, cell i spans (p_{i-1} - w/2, p_i + w/2]: the range of cells the box meets.
    std::array<int, 3> first{}, last{};
    for (int a = 0; a < 3; ++a) {
        const auto& p = planes[static_cast<std::size_t>(a)];
        const int n = cells[static_cast<std::size_t>(a)];
        int f = 0;
        while (f < n - 1 && lo[a] > p[static_cast<std::size_t>(f)] + w_half) ++f;
        int l = n - 1;
        while (l > 0 && hi[a] < p[static_cast<std::size_t>(l - 1)] - w_half) --l;
        first[static_cast<std::size_t>(a)] = f;
        last[static_cast<std::size_t>(a)] = std::max(f, l);
    }
    std::uint64_t mask = 0;
    for (int z = first[2]; z <= last[2]; ++z)
        for (int y = first[1]; y <= last[1]; ++y)
            for (int x = first[0]; x <= last[0]; ++x)
                mask |= std::uint64_t(1) << (x + cells[0] * (y + cells[1] * z));
    return mask;
}

std::vector<int> Partition::neighbours(int w) const {
    const int cx = w % cells[0], cy = (w / cells[0]) % cells[1], cz = w / (cells[0] * cells[1]);
    std::vector<int> out;
    for (int z = std::max(0, cz - 1); z <= std::min(cells[2] - 1, cz + 1); ++z)
        for (int y = std::max(0, cy - 1); y <= std::min(cells[1] - 1, cy + 1); ++y)
            for (int x = std::max(0, cx - 1); x <= std::min(cells[0] - 1, cx + 1); ++x) {
                const int v = x + cells[0] * (y + cells[1] * z);
                if (v != w) out.push_back(v);
            }
    return out;
}

Partition initial_partition(const DistributedSpec& spec, const Vec3& lo, const Vec3& hi) {
    Partition p;
    if (spec.uses_grid()) {
        p.cells = spec.grid;
    } else {
        p.cells[static_cast<std::size_t>(spec.axis)] = spec.workers;
    }
    for (int a = 0; a < 3; ++a) {
        const int n = p.cells[static_cast<std::size_t>(a)];
        for (int i = 1; i < n; ++i)
            p.planes[static_cast<std::size_t>(a)].push_back(lo[a] + (hi[a] - lo[a]) * i / n);
    }
    return p;
}

}  // namespace concord
