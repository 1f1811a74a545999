#include "concord/distributed/partition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

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

Partition initial_partition(const DistributedSpec& spec, const Vec3& lo, const Vec3& hi,
                            const std::vector<Vec3>& centres) {
    Partition p = initial_partition(spec, lo, hi);
    if (spec.initial_planes != InitialPlanes::Quantile) return p;
    for (int a = 0; a < 3; ++a) {
        const int n = p.cells[static_cast<std::size_t>(a)];
        if (n < 2) continue;
        std::vector<double> c;
        c.reserve(centres.size());
        for (const Vec3& x : centres) c.push_back(x[a]);
        std::sort(c.begin(), c.end());
        // Distinct coordinates with how many centres lie at or below each.
        std::vector<double> value;
        std::vector<std::size_t> upto;
        for (std::size_t k = 0; k < c.size(); ++k) {
            if (value.empty() || c[k] > value.back()) {
                value.push_back(c[k]);
                upto.push_back(k + 1);
            } else {
                upto.back() = k + 1;
            }
        }
        if (static_cast<int>(value.size()) < n) continue;  // keep the even planes
        std::vector<double> planes;
        std::size_t from = 0;  // planes take distinct gaps, in order
        for (int i = 1; i < n; ++i) {
            const double want = static_cast<double>(c.size()) * i / n;
            // The gap after value[g] whose count is closest to the quantile; gaps already used
            // are skipped, and enough are left for the planes that follow.
            const std::size_t last = value.size() - 1 - static_cast<std::size_t>(n - 1 - i);
            std::size_t best = from;
            for (std::size_t g = from; g < last; ++g)
                if (std::abs(static_cast<double>(upto[g]) - want) <
                    std::abs(static_cast<double>(upto[best]) - want))
                    best = g;
            planes.push_back(0.5 * (value[best] + value[best + 1]));
            from = best + 1;
        }
        p.planes[static_cast<std::size_t>(a)] = std::move(planes);
    }
    return p;
}

double quietest_position(const std::vector<std::pair<double, double>>& extents, double target,
                         double lo, double hi) {
    if (!(lo < hi)) return target;
    // Count at lo, and the points in (lo, hi) where the count changes.
    int count = 0;
    std::vector<std::pair<double, int>> events;
    for (const auto& [a, b] : extents) {
        if (b <= lo || a >= hi) continue;
        if (a <= lo) {
            ++count;
        } else {
            events.emplace_back(a, +1);
        }
        if (b < hi) events.emplace_back(b, -1);
    }
    std::sort(events.begin(), events.end());
    events.emplace_back(hi, 0);
    int best = std::numeric_limits<int>::max();
    double best_distance = std::numeric_limits<double>::infinity(), best_lo = lo, best_hi = hi;
    double from = lo;
    for (const auto& [x, delta] : events) {
        if (x > from) {  // the open stretch (from, x) has `count` extents across it
            const double d = target < from ? from - target : target > x ? target - x : 0.0;
            if (count < best || (count == best && d < best_distance)) {
                best = count;
                best_distance = d;
                best_lo = from;
                best_hi = x;
            }
            from = x;
        }
        count += delta;
    }
    const double margin = 0.25 * (best_hi - best_lo);
    return std::clamp(target, best_lo + margin, best_hi - margin);
}

std::vector<int> joint_groups(const std::vector<JointSpec>& joints,
                              const std::vector<bool>& movable) {
    std::vector<int> root(movable.size());
    for (std::size_t b = 0; b < root.size(); ++b) root[b] = static_cast<int>(b);
    const auto find = [&](int b) {
        while (root[static_cast<std::size_t>(b)] != b)
            b = root[static_cast<std::size_t>(b)] =
                root[static_cast<std::size_t>(root[static_cast<std::size_t>(b)])];
        return b;
    };
    const auto joins = [&](int b) {
        return b >= 0 && static_cast<std::size_t>(b) < movable.size() &&
               movable[static_cast<std::size_t>(b)];
    };
    for (const JointSpec& j : joints) {
        if (!joins(j.parent) || !joins(j.child)) continue;
        const int ra = find(j.parent), rb = find(j.child);
        root[static_cast<std::size_t>(std::max(ra, rb))] = std::min(ra, rb);
    }
    std::vector<int> out(root.size());
    for (std::size_t b = 0; b < out.size(); ++b) out[b] = find(static_cast<int>(b));
    return out;
}

}  // namespace concord
