// Coarse stand-ins for bodies' primitives in the broad phase: each body's primitives of one kind
// in a few parts (boxes), and per body the parts of its neighbours that reach into its box.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "concord/geometry/aabb.hpp"

namespace concord {

/// Primitives grouped by body (index order kept within a body): body b's are
/// items[begin[b] .. begin[b + 1]).
struct PrimitivesByBody {
    std::vector<int> begin, items;
    PrimitivesByBody() = default;
    PrimitivesByBody(std::span<const int> body_of, int num_bodies);
    std::span<const int> of(int b) const {
        const auto i = static_cast<std::size_t>(b);
        return {items.data() + begin[i], static_cast<std::size_t>(begin[i + 1] - begin[i])};
    }
};

/// One kind of primitive (vertices, edges or faces) of every body, in parts: a body with at
/// most kExactParts of them has one part per primitive (a container's few walls, each primitive
/// as large as a wall: grouped, they would cover the space the container holds); a larger one
/// has kCells parts by place: its box cut into cells (the longest side halved first), a
/// primitive in the cell of its box's centre, a part the union of a cell's boxes (empty for an
/// empty cell). A primitive box that overlaps no part of a body overlaps none of its primitives.
/// The slots of a body depend only on its primitive count, so one body's parts can be refreshed
/// alone.
class BodyParts {
  public:
    static constexpr int kCells = 16;
    static constexpr int kExactParts = 64;

    /// body_of[i]: the body of primitive i, boxes[i] its box; body_boxes[b] contains the boxes
    /// of body b's primitives.
    void build(std::span<const int> body_of, std::span<const AABB> boxes,
               std::span<const AABB> body_boxes);
    /// Refills the parts of the bodies flagged in `bodies` (same primitives as in build, new
    /// boxes).
    void update(std::span<const AABB> boxes, std::span<const AABB> body_boxes,
                const std::vector<std::uint8_t>& bodies);

    int num_bodies() const { return static_cast<int>(begin_.size()) - 1; }
    /// Body b's primitives (as built).
    std::span<const int> members(int b) const { return members_.of(b); }
    /// Body b's parts.
    std::span<const AABB> of(int b) const {
        return std::span<const AABB>(boxes_).subspan(
            static_cast<std::size_t>(begin_[static_cast<std::size_t>(b)]),
            static_cast<std::size_t>(begin_[static_cast<std::size_t>(b) + 1] -
                                     begin_[static_cast<std::size_t>(b)]));
    }

  private:
    void fill(int b, std::span<const AABB> boxes, const AABB& body_box);

    PrimitivesByBody members_;
    std::vector<int> begin_;
    std::vector<AABB> boxes_;
};

/// Per body, the parts of other bodies that overlap its box, grouped by the other body under
/// their union: a primitive of the body can only meet a primitive of those bodies when its box
/// overlaps one of them. Listing them per body first tests a container's walls once per body,
/// not once per primitive.
class NearParts {
  public:
    /// `others(b, visit)` calls visit(c) for each body c that b's primitives may meet; only the
    /// bodies flagged in `bodies` get lists (all when it is empty).
    template <class Others>
    void build(const BodyParts& parts, std::span<const AABB> body_boxes, Others&& others,
               const std::vector<std::uint8_t>& bodies = {}) {
        const int n = static_cast<int>(body_boxes.size());
        body_begin_.assign(static_cast<std::size_t>(n) + 1, 0);
        group_box_.clear();
        group_begin_.assign(1, 0);
        parts_.clear();
        for (int b = 0; b < n; ++b) {
            if (bodies.empty() || bodies[static_cast<std::size_t>(b)] != 0)
                others(b, [&](int c) {
                    add_group(body_boxes[static_cast<std::size_t>(b)], parts.of(c));
                });
            body_begin_[static_cast<std::size_t>(b) + 1] = static_cast<int>(group_box_.size());
        }
    }
    /// Whether `box` (of a primitive of body b) overlaps one of the parts listed for b.
    bool overlaps(int b, const AABB& box) const {
        for (int g = body_begin_[static_cast<std::size_t>(b)];
             g < body_begin_[static_cast<std::size_t>(b) + 1]; ++g) {
            if (!box.overlaps(group_box_[static_cast<std::size_t>(g)])) continue;
            for (int p = group_begin_[static_cast<std::size_t>(g)];
                 p < group_begin_[static_cast<std::size_t>(g) + 1]; ++p)
                if (box.overlaps(parts_[static_cast<std::size_t>(p)])) return true;
        }
        return false;
    }
  private:
    void add_group(const AABB& box, std::span<const AABB> parts);

    std::vector<int> body_begin_, group_begin_;
    std::vector<AABB> group_box_, parts_;
};

}  // namespace concord
