#include "concord/collision/audit/overlapping_boxes.hpp"

#include <tbb/enumerable_thread_specific.h>

namespace concord {

int longest_axis(std::span<const AABB> a, std::span<const AABB> b) {
    AABB all;
    for (const AABB& box : a)
        if (!box.empty()) all.expand(box);
    for (const AABB& box : b)
        if (!box.empty()) all.expand(box);
    if (all.empty()) return 0;
    int axis = 0;
    all.extent().maxCoeff(&axis);
    return axis;
}

std::vector<std::pair<int, int>> overlapping_box_pairs(std::span<const AABB> boxes) {
    const int axis = longest_axis(boxes, {});
    std::vector<int> order(boxes.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int i, int j) {
        return boxes[i].min[axis] < boxes[j].min[axis] ||
               (boxes[i].min[axis] == boxes[j].min[axis] && i < j);
    });

    // In min-sorted order, box order[p] can only overlap later boxes that start before it ends.
    tbb::enumerable_thread_specific<std::vector<std::pair<int, int>>> found;
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, order.size(), 64), [&](const auto& r) {
        auto& local = found.local();
        for (std::size_t p = r.begin(); p != r.end(); ++p) {
            const AABB& box = boxes[order[p]];
            for (std::size_t q = p + 1; q < order.size(); ++q) {
                const AABB& other = boxes[order[q]];
                if (!(other.min[axis] <= box.max[axis])) break;
                if (box.overlaps(other))
                    local.emplace_back(std::min(order[p], order[q]), std::max(order[p], order[q]));
            }
        }
    });
    std::vector<std::pair<int, int>> pairs;
    for (auto& local : found) pairs.insert(pairs.end(), local.begin(), local.end());
    std::sort(pairs.begin(), pairs.end());
    return pairs;
}

}  // namespace concord
