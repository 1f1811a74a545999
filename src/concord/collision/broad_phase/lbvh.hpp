// Linear bounding volume hierarchy over axis-aligned boxes (Karras 2012), built in parallel.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "concord/geometry/aabb.hpp"

namespace concord {

/// A binary BVH whose leaves are the input boxes in Morton order of their centres.
///
/// Build: Morton codes of the box centres (63 bits) are radix-sorted; equal codes are ordered
/// by primitive index, which makes every key distinct and the tree a pure function of the
/// input. Each of the n-1 internal nodes finds its key range and split independently
/// (Karras 2012); boxes are then refitted bottom-up, the second thread to reach a node merging
/// its children (atomic counter per node). Every stage is a tbb::parallel_for and gives the
/// same tree on any number of threads.
///
/// Layout: an internal node stores the boxes of its two children in single precision, rounded
/// outward (so traversal never prunes a true overlap), and fits one 64-byte cache line. Leaf
/// tests use the exact double-precision input boxes, so `query` reports exactly the
/// primitives whose input box overlaps the query box (closed intervals, as AABB::overlaps).
/// Empty boxes (min > max) never overlap anything.
///
/// The object can be rebuilt any number of times; buffers are reused.
class LBVH {
  public:
    /// Builds the hierarchy over `boxes`; primitive i is boxes[i]. Throws InputError if a box
    /// has a NaN coordinate.
    void build(std::span<const AABB> boxes);

    int size() const { return static_cast<int>(leaf_boxes_.size()); }
    bool empty() const { return leaf_boxes_.empty(); }

    /// Calls visit(primitive) for every primitive whose box overlaps `box`, in leaf order.
    template <class F>
    void query(const AABB& box, F&& visit) const;

    /// Self-join step: calls visit(primitive) for every primitive at a leaf position after
    /// `position` whose box overlaps the box at `position`. Calling it for every position in
    /// [0, size()) reports each overlapping pair exactly once; subtrees lying entirely before
    /// `position` are pruned, which halves the work of a full self-query.
    template <class F>
    void query_self_after(int position, F&& visit) const;

    /// Primitive stored at a leaf position (positions follow the Morton order).
    int primitive_at(int position) const {
        return leaf_primitive_[static_cast<std::size_t>(position)];
    }
    /// Input box of the primitive at a leaf position.
    const AABB& box_at(int position) const {
        return leaf_boxes_[static_cast<std::size_t>(position)];
    }

    /// Box of all primitives (empty if there are none).
    const AABB& bounds() const { return bounds_; }

    /// Depth of the tree (0 for at most one primitive); for tests and statistics.
    int depth() const;

  private:
    struct FloatBox {
        float lo[3];
        float hi[3];
    };
    // Children: index >= 0 is an internal node, index < 0 is the leaf at position ~index.
    // The left child covers leaf positions up to `split`, the right one up to `last`.
    struct alignas(64) Node {
        FloatBox child_box[2];
        int child[2];
        int split;
        int last;
    };
    static_assert(sizeof(Node) == 64);

    // Depth is bounded by the key length (63 code bits + 32 index bits), and a depth-first
    // traversal holds at most one pending sibling per level.
    static constexpr int kStackSize = 128;

    static FloatBox to_float_outward(const AABB& box);
    static bool overlaps(const FloatBox& a, const FloatBox& b) {
        return a.lo[0] <= b.hi[0] && b.lo[0] <= a.hi[0] && a.lo[1] <= b.hi[1] &&
               b.lo[1] <= a.hi[1] && a.lo[2] <= b.hi[2] && b.lo[2] <= a.hi[2];
    }

    void build_hierarchy();
    void refit();

    std::vector<Node> nodes_;  // n-1 internal nodes, root at 0
    std::vector<AABB> leaf_boxes_;
    std::vector<int> leaf_primitive_;
    AABB bounds_;
    // Build scratch, kept to avoid reallocation on rebuild.
    std::vector<std::uint64_t> codes_;
    std::vector<std::uint32_t> order_;
    std::vector<int> node_parent_, leaf_parent_, arrivals_;
};

template <class F>
void LBVH::query(const AABB& box, F&& visit) const {
    const int n = size();
    if (n == 0 || box.empty()) return;
    if (n == 1) {
        if (leaf_boxes_[0].overlaps(box)) visit(leaf_primitive_[0]);
        return;
    }
    const FloatBox q = to_float_outward(box);
    int stack[kStackSize];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const Node& node = nodes_[static_cast<std::size_t>(stack[--top])];
        for (int c = 0; c < 2; ++c) {
            if (!overlaps(node.child_box[c], q)) continue;
            const int child = node.child[c];
            if (child >= 0) {
                stack[top++] = child;
            } else if (leaf_boxes_[static_cast<std::size_t>(~child)].overlaps(box)) {
                visit(leaf_primitive_[static_cast<std::size_t>(~child)]);
            }
        }
    }
}

template <class F>
void LBVH::query_self_after(int position, F&& visit) const {
    const int n = size();
    if (position + 1 >= n) return;
    const AABB& box = leaf_boxes_[static_cast<std::size_t>(position)];
    if (box.empty()) return;
    const FloatBox q = to_float_outward(box);
    int stack[kStackSize];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const Node& node = nodes_[static_cast<std::size_t>(stack[--top])];
        for (int c = 0; c < 2; ++c) {
            const int range_end = c == 0 ? node.split : node.last;
            if (range_end <= position || !overlaps(node.child_box[c], q)) continue;
            const int child = node.child[c];
            if (child >= 0) {
                stack[top++] = child;
            } else if (leaf_boxes_[static_cast<std::size_t>(~child)].overlaps(box)) {
                visit(leaf_primitive_[static_cast<std::size_t>(~child)]);
            }
        }
    }
}

}  // namespace concord
