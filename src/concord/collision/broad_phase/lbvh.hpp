// Linear bounding volume hierarchy over axis-aligned boxes (Karras 2012), built in parallel.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "concord/collision/broad_phase/outward_rounding.hpp"
#include "concord/collision/broad_phase/radix_sort.hpp"
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
    /// Builds the hierarchy over `boxes`; primitive i is boxes[i]. `groups` (empty, or one
    /// non-negative id per box, e.g. the body of each primitive) lets queries skip a whole
    /// group: every node records the group of its subtree when it holds a single one, so a
    /// query from inside a body stops at the root of that body's subtree instead of walking
    /// down to its own neighbours. Throws InputError if a box has a NaN coordinate, a group is
    /// negative, or the sizes differ.
    void build(std::span<const AABB> boxes, std::span<const int> groups = {});

    int size() const { return static_cast<int>(leaf_boxes_.size()); }
    bool empty() const { return leaf_boxes_.empty(); }

    /// Calls visit(primitive) for every primitive whose box overlaps `box` (in a fixed order
    /// that depends on the tree only).
    template <class F>
    void query(const AABB& box, F&& visit) const {
        query(box, kNoGroup, std::forward<F>(visit));
    }

    /// Same, leaving out the primitives of group `skip_group` (nothing is left out when the
    /// tree was built without groups or skip_group is negative).
    template <class F>
    void query(const AABB& box, int skip_group, F&& visit) const;

    /// Self-join step: calls visit(primitive) for every primitive at a leaf position after
    /// `position` whose box overlaps the box at `position` and whose group differs from its
    /// group (all pairs when built without groups). Calling it for every position in
    /// [0, size()) reports each such pair exactly once; subtrees lying entirely before
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

    /// Group of the primitive at a leaf position (-1 when built without groups).
    int group_at(int position) const { return leaf_group_[static_cast<std::size_t>(position)]; }

    /// Depth of the tree (0 for at most one primitive); for tests and statistics.
    int depth() const;

  private:
    struct FloatBox {
        float lo[3];
        float hi[3];
    };
    static constexpr int kNoGroup = -1;  // also marks a subtree holding several groups

    // Children: index >= 0 is an internal node, index < 0 is the leaf at position ~index.
    // The left child covers leaf positions up to its own index (Karras: an internal node's
    // index is one end of its range, the right end for a left child), the right child up to
    // `last`. `group` is the single group of the whole subtree, or kNoGroup.
    struct alignas(64) Node {
        FloatBox child_box[2];
        int child[2];
        int last;
        int group;
    };
    static_assert(sizeof(Node) == 64);

    static int position_of(int child) { return child >= 0 ? child : ~child; }

    // Depth is bounded by the key length (63 code bits + 32 index bits), and a depth-first
    // traversal holds at most one pending sibling per level.
    static constexpr int kStackSize = 128;

    static FloatBox to_float_outward(const AABB& box) {
        return {{float_below(box.min[0]), float_below(box.min[1]), float_below(box.min[2])},
                {float_above(box.max[0]), float_above(box.max[1]), float_above(box.max[2])}};
    }
    static bool overlaps(const FloatBox& a, const FloatBox& b) {
        return a.lo[0] <= b.hi[0] && b.lo[0] <= a.hi[0] && a.lo[1] <= b.hi[1] &&
               b.lo[1] <= a.hi[1] && a.lo[2] <= b.hi[2] && b.lo[2] <= a.hi[2];
    }

    void build_hierarchy();
    // Records the parent of a child and returns its encoding in Node::child.
    int link_child(int index, bool is_leaf, int parent);
    void refit();

    std::vector<Node> nodes_;  // n-1 internal nodes, root at 0
    std::vector<AABB> leaf_boxes_;
    std::vector<int> leaf_primitive_;
    std::vector<int> leaf_group_;
    AABB bounds_;
    // Build scratch, kept to avoid reallocation on rebuild.
    std::vector<std::uint64_t> codes_;
    std::vector<std::uint32_t> order_;
    RadixSortScratch sort_scratch_;
    std::vector<int> node_parent_, leaf_parent_, arrivals_;
};

template <class F>
void LBVH::query(const AABB& box, int skip_group, F&& visit) const {
    const int n = size();
    if (n == 0 || box.empty()) return;
    if (skip_group < 0) skip_group = kNoGroup - 1;  // matches no node and no leaf
    if (n == 1) {
        if (leaf_group_[0] != skip_group && leaf_boxes_[0].overlaps(box)) visit(leaf_primitive_[0]);
        return;
    }
    const FloatBox q = to_float_outward(box);
    int stack[kStackSize];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const Node& node = nodes_[static_cast<std::size_t>(stack[--top])];
        if (node.group == skip_group) continue;
        for (int c = 0; c < 2; ++c) {
            if (!overlaps(node.child_box[c], q)) continue;
            const int child = node.child[c];
            if (child >= 0) {
                stack[top++] = child;
                continue;
            }
            const auto k = static_cast<std::size_t>(~child);
            if (leaf_group_[k] != skip_group && leaf_boxes_[k].overlaps(box))
                visit(leaf_primitive_[k]);
        }
    }
}

template <class F>
void LBVH::query_self_after(int position, F&& visit) const {
    const int n = size();
    if (position + 1 >= n) return;
    const AABB& box = leaf_boxes_[static_cast<std::size_t>(position)];
    if (box.empty()) return;
    const int own = leaf_group_[static_cast<std::size_t>(position)];
    const int skip_group = own >= 0 ? own : kNoGroup - 1;
    const FloatBox q = to_float_outward(box);
    int stack[kStackSize];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const Node& node = nodes_[static_cast<std::size_t>(stack[--top])];
        if (node.group == skip_group) continue;
        for (int c = 0; c < 2; ++c) {
            const int child = node.child[c];
            const int range_end = c == 0 ? position_of(child) : node.last;
            if (range_end <= position || !overlaps(node.child_box[c], q)) continue;
            if (child >= 0) {
                stack[top++] = child;
                continue;
            }
            const auto k = static_cast<std::size_t>(~child);
            if (leaf_group_[k] != skip_group && leaf_boxes_[k].overlaps(box))
                visit(leaf_primitive_[k]);
        }
    }
}

}  // namespace concord
