// Coarse stand-ins for bodies' primitives in the broad phase: each body's primitives of one kind
// in a few parts (boxes), and per body the parts of its neighbours that reach into its box.
#pragma once

#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <cmath>
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

/// The cells of a body's box that BodyParts groups a large body's primitives by: the box halved
/// along its longest side (relative to the cells so far) until there are BodyParts::kCells; a
/// primitive belongs to the cell of its box's centre (clamped into the body's box).
struct BodyCells {
    static constexpr int kCells = 16;  ///< BodyParts::kCells
    Eigen::Vector3i cells = Eigen::Vector3i::Ones();
    Vec3 origin = Vec3::Zero(), scale = Vec3::Zero();
    explicit BodyCells(const AABB& body_box) {
        if (body_box.empty()) return;
        const Vec3 extent = body_box.extent();
        while (2 * cells.prod() <= kCells) {
            int axis = 0;
            for (int a = 1; a < 3; ++a)
                if (extent[a] / cells[a] > extent[axis] / cells[axis]) axis = a;
            cells[axis] *= 2;
        }
        origin = body_box.min;
        for (int a = 0; a < 3; ++a) scale[a] = extent[a] > 0.0 ? cells[a] / extent[a] : 0.0;
    }
    /// In [0, kCells).
    int cell(const AABB& box) const {
        const Vec3 c = (box.center() - origin).cwiseProduct(scale);
        int index = 0;
        for (int a = 2; a >= 0; --a)
            index =
                index * cells[a] + std::clamp(static_cast<int>(std::floor(c[a])), 0, cells[a] - 1);
        return index;
    }
};

/// One kind of primitive (vertices, edges or faces) of every body, in parts: a body with at
/// most kExactParts of them has one part per primitive (a container's few walls, each primitive
/// as large as a wall: grouped, they would cover the space the container holds); a larger one
/// has kCells parts by place: its box cut into cells (the longest side halved first), a
/// primitive in the cell of its box's centre when built, a part the union of its primitives'
/// boxes (empty for an empty cell). A primitive box that overlaps no part of a body overlaps
/// none of its primitives, and none of a part's primitives when it misses the part's box.
/// A refresh (update) keeps each primitive in its part and only unites the new boxes: the
/// parts stay exact bounds, only looser after the body turned. The slots of a body depend
/// only on its primitive count, so one body's parts can be refreshed alone.
class BodyParts {
  public:
    static constexpr int kCells = BodyCells::kCells;
    static constexpr int kExactParts = 64;

    /// body_of[i]: the body of primitive i, boxes[i] its box; body_boxes[b] contains the boxes
    /// of body b's primitives.
    void build(std::span<const int> body_of, std::span<const AABB> boxes,
               std::span<const AABB> body_boxes) {
        build_with(
            body_of, [boxes](int i) { return boxes[static_cast<std::size_t>(i)]; }, body_boxes);
    }
    /// The same with primitive i's box given by box_of(i) (e.g. an edge's as the union of its
    /// vertices' boxes, for a caller that keeps no edge boxes).
    template <class BoxOf>
    void build_with(std::span<const int> body_of, BoxOf&& box_of,
                    std::span<const AABB> body_boxes) {
        const int n = static_cast<int>(body_boxes.size());
        members_ = PrimitivesByBody(body_of, n);
        begin_.assign(static_cast<std::size_t>(n) + 1, 0);
        for (int b = 0; b < n; ++b) {
            const auto count = static_cast<int>(members_.of(b).size());
            begin_[static_cast<std::size_t>(b) + 1] =
                begin_[static_cast<std::size_t>(b)] + (count <= kExactParts ? count : kCells);
        }
        boxes_.resize(static_cast<std::size_t>(begin_.back()));
        part_first_.resize(boxes_.size() + 1);
        part_first_.back() = static_cast<int>(members_.items.size());
        // Each body sorts its own primitives into its own parts: in parallel.
        tbb::parallel_for(
            0, n, [&](int b) { assign(b, box_of, body_boxes[static_cast<std::size_t>(b)]); });
    }
    /// Refreshes the parts of the bodies flagged in `bodies` (same primitives as in build, new
    /// boxes).
    void update(std::span<const AABB> boxes, const std::vector<std::uint8_t>& bodies) {
        update_with([boxes](int i) { return boxes[static_cast<std::size_t>(i)]; }, bodies);
    }
    template <class BoxOf>
    void update_with(BoxOf&& box_of, const std::vector<std::uint8_t>& bodies) {
        // Each body fills its own parts: in parallel.
        tbb::parallel_for(0, num_bodies(), [&](int b) {
            if (bodies[static_cast<std::size_t>(b)] == 0) return;
            for (int s = begin_[static_cast<std::size_t>(b)];
                 s < begin_[static_cast<std::size_t>(b) + 1]; ++s) {
                AABB part;
                for (int i : slot_members(s)) part.expand(box_of(i));
                boxes_[static_cast<std::size_t>(s)] = part;
            }
        });
    }

    int num_bodies() const { return static_cast<int>(begin_.size()) - 1; }
    /// Body b's primitives, part by part.
    std::span<const int> members(int b) const { return members_.of(b); }
    /// Body b's parts.
    std::span<const AABB> of(int b) const {
        return std::span<const AABB>(boxes_).subspan(
            static_cast<std::size_t>(begin_[static_cast<std::size_t>(b)]),
            static_cast<std::size_t>(begin_[static_cast<std::size_t>(b) + 1] -
                                     begin_[static_cast<std::size_t>(b)]));
    }
    /// Calls f(part box, its primitives) for each part of body b.
    template <class F>
    void for_each_part(int b, F&& f) const {
        for (int s = begin_[static_cast<std::size_t>(b)];
             s < begin_[static_cast<std::size_t>(b) + 1]; ++s)
            f(boxes_[static_cast<std::size_t>(s)], slot_members(s));
    }

  private:
    /// The primitives of part slot s.
    std::span<const int> slot_members(int s) const {
        const int first = part_first_[static_cast<std::size_t>(s)];
        return {members_.items.data() + first,
                static_cast<std::size_t>(part_first_[static_cast<std::size_t>(s) + 1] - first)};
    }
    /// Sorts body b's primitives into its parts (members_ reordered within b) and sets the parts.
    template <class BoxOf>
    void assign(int b, BoxOf& box_of, const AABB& body_box) {
        const auto bi = static_cast<std::size_t>(b);
        int* items = members_.items.data() + members_.begin[bi];
        const int count = members_.begin[bi + 1] - members_.begin[bi];
        AABB* parts = boxes_.data() + begin_[bi];
        int* first = part_first_.data() + begin_[bi];
        if (count <= kExactParts) {
            for (int k = 0; k < count; ++k) {
                parts[k] = box_of(items[k]);
                first[k] = members_.begin[bi] + k;
            }
            return;
        }
        std::fill(parts, parts + kCells, AABB{});
        const BodyCells grid(body_box);
        std::vector<int> cell(static_cast<std::size_t>(count));
        std::array<int, kCells + 1> start{};
        for (int k = 0; k < count; ++k) {
            const AABB box = box_of(items[k]);
            const int c = grid.cell(box);
            parts[c].expand(box);
            cell[static_cast<std::size_t>(k)] = c;
            ++start[static_cast<std::size_t>(c) + 1];
        }
        for (int c = 0; c < kCells; ++c) {
            start[static_cast<std::size_t>(c) + 1] += start[static_cast<std::size_t>(c)];
            first[c] = members_.begin[bi] + start[static_cast<std::size_t>(c)];
        }
        // A stable counting sort: within a part, index order.
        const std::vector<int> old(items, items + count);
        for (int k = 0; k < count; ++k)
            items[start[static_cast<std::size_t>(cell[static_cast<std::size_t>(k)])]++] =
                old[static_cast<std::size_t>(k)];
    }

    PrimitivesByBody members_;     // each body's primitives, by part
    std::vector<int> begin_;       // body b's part slots: [begin_[b], begin_[b + 1])
    std::vector<AABB> boxes_;      // per slot, its part's box
    std::vector<int> part_first_;  // per slot, where its primitives start in members_.items
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
