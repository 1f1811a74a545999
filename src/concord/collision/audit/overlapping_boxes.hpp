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
    auto sorted_by_min = [axis](std::span<const AABB> boxes, std::vector<int>& order,
                                std::vector<double>& mins) {
        order.resize(boxes.size());
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(), [&](int i, int j) {
            return boxes[i].min[axis] < boxes[j].min[axis] ||
                   (boxes[i].min[axis] == boxes[j].min[axis] && i < j);
        });
        mins.resize(boxes.size());
        for (std::size_t k = 0; k < order.size(); ++k) mins[k] = boxes[order[k]].min[axis];
    };
    std::vector<int> a_order, b_order;
    std::vector<double> a_mins, b_mins;
    sorted_by_min(a, a_order, a_mins);
    sorted_by_min(b, b_order, b_mins);

    // Two closed intervals overlap exactly when the later-starting one starts inside the other.
    // Pairs whose b box starts at or after the a box's start are found from a (b.min in
    // [a.min, a.max]); those whose a box starts strictly later are found from b (a.min in
    // (b.min, b.max]). Each overlapping pair is therefore visited exactly once.
    constexpr std::size_t kGrain = 256;
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, a.size(), kGrain), [&](const auto& r) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) {
            const AABB& box = a[i];
            auto k = std::lower_bound(b_mins.begin(), b_mins.end(), box.min[axis]) - b_mins.begin();
            for (; k < static_cast<std::ptrdiff_t>(b_mins.size()) && b_mins[k] <= box.max[axis];
                 ++k)
                if (box.overlaps(b[b_order[k]])) visit(static_cast<int>(i), b_order[k]);
        }
    });
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, b.size(), kGrain), [&](const auto& r) {
        for (std::size_t j = r.begin(); j != r.end(); ++j) {
            const AABB& box = b[j];
            auto k = std::upper_bound(a_mins.begin(), a_mins.end(), box.min[axis]) - a_mins.begin();
            for (; k < static_cast<std::ptrdiff_t>(a_mins.size()) && a_mins[k] <= box.max[axis];
                 ++k)
                if (box.overlaps(a[a_order[k]])) visit(a_order[k], static_cast<int>(j));
        }
    });
}

}  // namespace concord
