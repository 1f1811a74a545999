// The audit's culling stage: which pairs of closed axis-aligned boxes overlap. It is a plain
// sort-and-sweep along one axis, kept behind these two functions so that a BVH (e.g. the broad
// phase's LBVH) can replace it without touching the audit.
//
// Boxes are compared exactly and as closed sets (touching boxes overlap), so no pair whose
// contents could share a point is ever culled. Boxes must be finite; an empty box (min > max,
// as a default AABB) overlaps nothing.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <numeric>
#include <span>
#include <utility>
#include <vector>

#include "concord/geometry/aabb.hpp"

namespace concord {

/// Every pair (i, j), i < j, of overlapping boxes, sorted lexicographically.
std::vector<std::pair<int, int>> overlapping_box_pairs(std::span<const AABB> boxes);

/// The axis along which the union of all the boxes is longest: sweeping along it leaves the
/// fewest boxes overlapping by chance.
int longest_axis(std::span<const AABB> a, std::span<const AABB> b);

/// Calls visit(i, j) once for every i indexing `a` and j indexing `b` with a[i] and b[j]
/// overlapping. Calls run concurrently and in no particular order, so `visit` must be
/// thread-safe and its results made deterministic by the caller.
template <class Visit>
void for_each_overlapping_box_pair(std::span<const AABB> a, std::span<const AABB> b,
                                   const Visit& visit) {
    if (a.empty() || b.empty()) return;
    const int axis = longest_axis(a, b);
    // Sorted copies, so that the sweeps below read memory in order.
    struct Sorted {
        std::vector<int> ids;
        std::vector<AABB> boxes;
        std::vector<double> mins;
    };
    auto sorted_by_min = [axis](std::span<const AABB> boxes) {
        Sorted s;
        s.ids.resize(boxes.size());
        std::iota(s.ids.begin(), s.ids.end(), 0);
        std::sort(s.ids.begin(), s.ids.end(), [&](int i, int j) {
            return boxes[i].min[axis] < boxes[j].min[axis] ||
                   (boxes[i].min[axis] == boxes[j].min[axis] && i < j);
        });
        s.boxes.reserve(boxes.size());
        s.mins.reserve(boxes.size());
        for (int i : s.ids) {
            s.boxes.push_back(boxes[i]);
            s.mins.push_back(boxes[i].min[axis]);
        }
        return s;
    };
    const Sorted sa = sorted_by_min(a), sb = sorted_by_min(b);

    // Two closed intervals overlap exactly when the later-starting one starts inside the other.
    // Pairs whose b box starts at or after the a box's start are found from a (b.min in
    // [a.min, a.max]); those whose a box starts strictly later are found from b (a.min in
    // (b.min, b.max]). Each overlapping pair is therefore visited exactly once.
    auto sweep = [axis](const Sorted& from, const Sorted& over, bool include_equal_starts,
                        auto&& emit) {
        constexpr std::size_t kGrain = 256;
        tbb::parallel_for(
            tbb::blocked_range<std::size_t>(0, from.boxes.size(), kGrain), [&](const auto& r) {
                for (std::size_t i = r.begin(); i != r.end(); ++i) {
                    const AABB& box = from.boxes[i];
                    const double lo = box.min[axis], hi = box.max[axis];
                    auto k = include_equal_starts
                                 ? std::lower_bound(over.mins.begin(), over.mins.end(), lo)
                                 : std::upper_bound(over.mins.begin(), over.mins.end(), lo);
                    for (; k != over.mins.end() && *k <= hi; ++k) {
                        const std::size_t j = static_cast<std::size_t>(k - over.mins.begin());
                        if (box.overlaps(over.boxes[j])) emit(from.ids[i], over.ids[j]);
                    }
                }
            });
    };
    sweep(sa, sb, true, [&](int i, int j) { visit(i, j); });
    sweep(sb, sa, false, [&](int j, int i) { visit(i, j); });
}

}  // namespace concord
