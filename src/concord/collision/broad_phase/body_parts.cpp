#include "concord/collision/broad_phase/body_parts.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace concord {

namespace {

// Cells per axis of a body's box and the scale from a point to its cell.
struct Grid {
    Eigen::Vector3i cells = Eigen::Vector3i::Ones();
    Vec3 origin = Vec3::Zero(), scale = Vec3::Zero();

    explicit Grid(const AABB& box) {
        if (box.empty()) return;
        const Vec3 extent = box.extent();
        while (2 * cells.prod() <= BodyParts::kCells) {
            int axis = 0;
            for (int a = 1; a < 3; ++a)
                if (extent[a] / cells[a] > extent[axis] / cells[axis]) axis = a;
            cells[axis] *= 2;
        }
        origin = box.min;
        for (int a = 0; a < 3; ++a) scale[a] = extent[a] > 0.0 ? cells[a] / extent[a] : 0.0;
    }
    int cell(const AABB& box) const {
        const Vec3 c = (box.center() - origin).cwiseProduct(scale);
        int index = 0;
        for (int a = 2; a >= 0; --a)
            index =
                index * cells[a] + std::clamp(static_cast<int>(std::floor(c[a])), 0, cells[a] - 1);
        return index;
    }
};

}  // namespace

PrimitivesByBody::PrimitivesByBody(std::span<const int> body_of, int num_bodies)
    : begin(static_cast<std::size_t>(num_bodies) + 1, 0), items(body_of.size()) {
    for (int b : body_of) ++begin[static_cast<std::size_t>(b) + 1];
    std::partial_sum(begin.begin(), begin.end(), begin.begin());
    std::vector<int> next(begin.begin(), begin.end() - 1);
    for (std::size_t i = 0; i < body_of.size(); ++i)
        items[static_cast<std::size_t>(next[static_cast<std::size_t>(body_of[i])]++)] =
            static_cast<int>(i);
}

void BodyParts::build(std::span<const int> body_of, std::span<const AABB> boxes,
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
    for (int b = 0; b < n; ++b) fill(b, boxes, body_boxes[static_cast<std::size_t>(b)]);
}

void BodyParts::update(std::span<const AABB> boxes, std::span<const AABB> body_boxes,
                       const std::vector<std::uint8_t>& bodies) {
    // Each body fills its own parts: in parallel.
    tbb::parallel_for(0, num_bodies(), [&](int b) {
        if (bodies[static_cast<std::size_t>(b)] != 0)
            fill(b, boxes, body_boxes[static_cast<std::size_t>(b)]);
    });
}

void BodyParts::fill(int b, std::span<const AABB> boxes, const AABB& body_box) {
    const std::span<const int> members = members_.of(b);
    AABB* parts = boxes_.data() + begin_[static_cast<std::size_t>(b)];
    if (members.size() <= static_cast<std::size_t>(kExactParts)) {
        for (std::size_t k = 0; k < members.size(); ++k)
            parts[k] = boxes[static_cast<std::size_t>(members[k])];
        return;
    }
    std::fill(parts, parts + kCells, AABB{});
    const Grid grid(body_box);
    for (int i : members) {
        const AABB& box = boxes[static_cast<std::size_t>(i)];
        parts[grid.cell(box)].expand(box);
    }
}

void NearParts::add_group(const AABB& box, std::span<const AABB> parts) {
    AABB group;
    for (const AABB& part : parts)
        if (box.overlaps(part)) {
            parts_.push_back(part);
            group.expand(part);
        }
    if (group.empty()) return;
    group_box_.push_back(group);
    group_begin_.push_back(static_cast<int>(parts_.size()));
}

}  // namespace concord
