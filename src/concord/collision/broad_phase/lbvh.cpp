#include "concord/collision/broad_phase/lbvh.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "concord/collision/broad_phase/morton.hpp"
#include "concord/collision/broad_phase/radix_sort.hpp"
#include "concord/math/error.hpp"

namespace concord {

namespace {

constexpr std::size_t kGrain = 2048;

// What one pass over the input boxes learns: the bounds of all boxes, of their centres (for
// quantising Morton codes), and the first box with a NaN coordinate (-1 if none).
struct InputSummary {
    AABB boxes;
    AABB centres;
    std::ptrdiff_t first_nan = -1;

    void merge(const InputSummary& other) {
        boxes.expand(other.boxes);
        centres.expand(other.centres);
        if (other.first_nan >= 0 && (first_nan < 0 || other.first_nan < first_nan))
            first_nan = other.first_nan;
    }
};

InputSummary summarise(std::span<const AABB> boxes) {
    return tbb::parallel_reduce(
        tbb::blocked_range<std::size_t>(0, boxes.size(), kGrain), InputSummary{},
        [&](const tbb::blocked_range<std::size_t>& range, InputSummary summary) {
            for (std::size_t i = range.begin(); i != range.end(); ++i) {
                const AABB& box = boxes[i];
                if (box.min.hasNaN() || box.max.hasNaN()) {
                    if (summary.first_nan < 0) summary.first_nan = static_cast<std::ptrdiff_t>(i);
                    continue;
                }
                if (box.empty()) continue;
                summary.boxes.expand(box);
                // An unbounded box has no meaningful centre; it gets Morton code 0.
                const Vec3 centre = box.center();
                if (centre.allFinite()) summary.centres.expand(centre);
            }
            return summary;
        },
        [](InputSummary a, const InputSummary& b) {
            a.merge(b);
            return a;
        });
}

// Length of the common prefix of the keys (code_i, i) and (code_j, j), which are distinct even
// where codes repeat; -1 when j is outside the leaves.
int common_prefix(const std::uint64_t* codes, int n, int i, std::int64_t j) {
    if (j < 0 || j >= n) return -1;
    const std::uint64_t x = codes[i] ^ codes[j];
    if (x != 0) return std::countl_zero(x);
    return 64 + std::countl_zero(static_cast<std::uint32_t>(i) ^ static_cast<std::uint32_t>(j));
}

// The leaf range [first, last] covered by internal node i, and its split: leaves first..split
// go to the left child, split+1..last to the right one (Karras 2012, figure 4). Internal node i
// is always one end of its own range, which is what lets all nodes be found independently.
struct NodeRange {
    int first, last, split;
};

NodeRange node_range(const std::uint64_t* codes, int n, int i) {
    auto delta = [&](std::int64_t j) { return common_prefix(codes, n, i, j); };
    // The range extends towards the neighbour sharing the longer prefix; exponential then
    // binary search for its other end j.
    const int d = delta(i + 1) > delta(i - 1) ? 1 : -1;
    const int delta_min = delta(i - d);
    std::int64_t l_max = 2;
    while (delta(i + l_max * d) > delta_min) l_max *= 2;
    std::int64_t l = 0;
    for (std::int64_t t = l_max / 2; t >= 1; t /= 2)
        if (delta(i + (l + t) * d) > delta_min) l += t;
    const int j = static_cast<int>(i + l * d);

    // Binary search for the last leaf sharing more than delta(j) leading bits with i.
    const int delta_node = delta(j);
    std::int64_t s = 0;
    std::int64_t t = l;
    do {
        t = (t + 1) / 2;
        if (delta(i + (s + t) * d) > delta_node) s += t;
    } while (t > 1);
    const int split = static_cast<int>(i + s * d + std::min(d, 0));
    return {std::min(i, j), std::max(i, j), split};
}

}  // namespace

void LBVH::build(std::span<const AABB> boxes, std::span<const int> groups) {
    if (boxes.size() >= static_cast<std::size_t>(std::numeric_limits<int>::max() / 2))
        throw InputError("LBVH::build: " + std::to_string(boxes.size()) +
                         " boxes exceed the supported count");
    if (!groups.empty() && groups.size() != boxes.size())
        throw InputError("LBVH::build: " + std::to_string(groups.size()) + " groups for " +
                         std::to_string(boxes.size()) + " boxes");
    const int n = static_cast<int>(boxes.size());
    const auto negative = std::find_if(groups.begin(), groups.end(), [](int g) { return g < 0; });
    if (negative != groups.end())
        throw InputError("LBVH::build: box " + std::to_string(negative - groups.begin()) +
                         " has negative group " + std::to_string(*negative));
    const InputSummary summary = summarise(boxes);
    if (summary.first_nan >= 0)
        throw InputError("LBVH::build: box " + std::to_string(summary.first_nan) +
                         " has a NaN coordinate");
    bounds_ = summary.boxes;

    // Morton codes of the centres, quantised per axis over the centres' bounds.
    constexpr double kCells = static_cast<double>((1u << kMortonBitsPerAxis) - 1);
    const Vec3 origin = summary.centres.empty() ? Vec3::Zero() : summary.centres.min;
    Vec3 scale = Vec3::Zero();
    if (!summary.centres.empty())
        for (int k = 0; k < 3; ++k) {
            const double extent = summary.centres.max[k] - summary.centres.min[k];
            if (extent > 0) scale[k] = kCells / extent;
        }
    codes_.resize(static_cast<std::size_t>(n));
    order_.resize(static_cast<std::size_t>(n));
    tbb::parallel_for(tbb::blocked_range<int>(0, n, kGrain), [&](const tbb::blocked_range<int>& r) {
        for (int i = r.begin(); i != r.end(); ++i) {
            const AABB& box = boxes[static_cast<std::size_t>(i)];
            std::uint32_t cell[3] = {0, 0, 0};
            const Vec3 c = box.center();
            if (!box.empty() && c.allFinite()) {
                for (int k = 0; k < 3; ++k)
                    cell[k] = static_cast<std::uint32_t>(
                        std::clamp((c[k] - origin[k]) * scale[k], 0.0, kCells));
            }
            codes_[static_cast<std::size_t>(i)] = morton_code(cell[0], cell[1], cell[2]);
            order_[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(i);
        }
    });
    radix_sort_pairs(codes_, order_, 3 * kMortonBitsPerAxis, &sort_scratch_);

    leaf_boxes_.resize(static_cast<std::size_t>(n));
    leaf_primitive_.resize(static_cast<std::size_t>(n));
    leaf_group_.resize(static_cast<std::size_t>(n));
    tbb::parallel_for(tbb::blocked_range<int>(0, n, kGrain), [&](const tbb::blocked_range<int>& r) {
        for (int k = r.begin(); k != r.end(); ++k) {
            const std::uint32_t i = order_[static_cast<std::size_t>(k)];
            leaf_boxes_[static_cast<std::size_t>(k)] = boxes[i];
            leaf_primitive_[static_cast<std::size_t>(k)] = static_cast<int>(i);
            leaf_group_[static_cast<std::size_t>(k)] = groups.empty() ? kNoGroup : groups[i];
        }
    });

    nodes_.resize(n > 1 ? static_cast<std::size_t>(n - 1) : 0);
    if (n < 2) return;
    build_hierarchy();
    refit();
}

void LBVH::build_hierarchy() {
    const int n = size();
    node_parent_.assign(static_cast<std::size_t>(n - 1), -1);
    leaf_parent_.assign(static_cast<std::size_t>(n), -1);
    const std::uint64_t* codes = codes_.data();
    tbb::parallel_for(
        tbb::blocked_range<int>(0, n - 1, kGrain), [&](const tbb::blocked_range<int>& r) {
            for (int i = r.begin(); i != r.end(); ++i) {
                const NodeRange range = node_range(codes, n, i);
                Node& node = nodes_[static_cast<std::size_t>(i)];
                node.last = range.last;
                node.child[0] = link_child(range.split, range.first == range.split, i);
                node.child[1] = link_child(range.split + 1, range.last == range.split + 1, i);
            }
        });
}

int LBVH::link_child(int index, bool is_leaf, int parent) {
    if (is_leaf) {
        leaf_parent_[static_cast<std::size_t>(index)] = parent;
        return ~index;
    }
    node_parent_[static_cast<std::size_t>(index)] = parent;
    return index;
}

void LBVH::refit() {
    const int n = size();
    arrivals_.assign(static_cast<std::size_t>(n - 1), 0);
    auto child_group = [this](int child) {
        return child < 0 ? leaf_group_[static_cast<std::size_t>(~child)]
                         : nodes_[static_cast<std::size_t>(child)].group;
    };
    auto child_box = [this](int child) -> FloatBox {
        if (child < 0) return to_float_outward(leaf_boxes_[static_cast<std::size_t>(~child)]);
        const Node& c = nodes_[static_cast<std::size_t>(child)];
        FloatBox box;
        for (int k = 0; k < 3; ++k) {
            box.lo[k] = std::min(c.child_box[0].lo[k], c.child_box[1].lo[k]);
            box.hi[k] = std::max(c.child_box[0].hi[k], c.child_box[1].hi[k]);
        }
        return box;
    };
    // Each leaf walks towards the root; the first arrival at a node stops, the second (which
    // then sees both subtrees finished, thanks to acquire-release ordering) merges and goes on.
    tbb::parallel_for(tbb::blocked_range<int>(0, n, kGrain), [&](const tbb::blocked_range<int>& r) {
        for (int k = r.begin(); k != r.end(); ++k) {
            int p = leaf_parent_[static_cast<std::size_t>(k)];
            while (p >= 0) {
                std::atomic_ref<int> arrivals(arrivals_[static_cast<std::size_t>(p)]);
                if (arrivals.fetch_add(1, std::memory_order_acq_rel) == 0) break;
                Node& node = nodes_[static_cast<std::size_t>(p)];
                node.child_box[0] = child_box(node.child[0]);
                node.child_box[1] = child_box(node.child[1]);
                const int left = child_group(node.child[0]), right = child_group(node.child[1]);
                node.group = left == right ? left : kNoGroup;
                p = node_parent_[static_cast<std::size_t>(p)];
            }
        }
    });
}

int LBVH::depth() const {
    if (nodes_.empty()) return 0;
    int deepest = 0;
    std::vector<std::pair<int, int>> stack{{0, 1}};
    while (!stack.empty()) {
        const auto [index, level] = stack.back();
        stack.pop_back();
        deepest = std::max(deepest, level);
        for (const int child : nodes_[static_cast<std::size_t>(index)].child)
            if (child >= 0) stack.emplace_back(child, level + 1);
    }
    return deepest;
}

}  // namespace concord
