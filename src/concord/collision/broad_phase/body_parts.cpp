#include "concord/collision/broad_phase/body_parts.hpp"

#include <numeric>

namespace concord {

PrimitivesByBody::PrimitivesByBody(std::span<const int> body_of, int num_bodies)
    : begin(static_cast<std::size_t>(num_bodies) + 1, 0), items(body_of.size()) {
    for (int b : body_of) ++begin[static_cast<std::size_t>(b) + 1];
    std::partial_sum(begin.begin(), begin.end(), begin.begin());
    std::vector<int> next(begin.begin(), begin.end() - 1);
    for (std::size_t i = 0; i < body_of.size(); ++i)
        items[static_cast<std::size_t>(next[static_cast<std::size_t>(body_of[i])]++)] =
            static_cast<int>(i);
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
