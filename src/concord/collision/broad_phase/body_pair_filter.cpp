#include "concord/collision/broad_phase/body_pair_filter.hpp"

#include <memory>
#include <utility>

namespace concord {

BodyPairFilter skip_static_pairs(std::vector<std::uint8_t> body_is_static) {
    // Shared so that copies of the filter (std::function copies its target) stay cheap.
    auto is_static = std::make_shared<const std::vector<std::uint8_t>>(std::move(body_is_static));
    return [is_static](int body_a, int body_b) {
        auto marked = [&](int body) {
            return body >= 0 && static_cast<std::size_t>(body) < is_static->size() &&
                   (*is_static)[static_cast<std::size_t>(body)] != 0;
        };
        return !(marked(body_a) && marked(body_b));
    };
}

}  // namespace concord
