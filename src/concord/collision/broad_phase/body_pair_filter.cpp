#include "concord/collision/broad_phase/body_pair_filter.hpp"

#include <algorithm>
#include <memory>
#include <unordered_map>
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

BodyPairFilter contact_pair_filter(std::vector<std::uint8_t> body_is_static,
                                   std::vector<std::pair<int, int>> excluded) {
    BodyPairFilter statics = skip_static_pairs(std::move(body_is_static));
    if (excluded.empty()) return statics;
    for (auto& [a, b] : excluded)
        if (a > b) std::swap(a, b);
    std::sort(excluded.begin(), excluded.end());
    auto pairs = std::make_shared<const std::vector<std::pair<int, int>>>(std::move(excluded));
    return [statics = std::move(statics), pairs](int body_a, int body_b) {
        if (!statics(body_a, body_b)) return false;
        const std::pair<int, int> key{std::min(body_a, body_b), std::max(body_a, body_b)};
        return !std::binary_search(pairs->begin(), pairs->end(), key);
    };
}

std::vector<std::pair<int, int>> pairs_within(const std::vector<std::pair<int, int>>& pairs,
                                              const std::vector<int>& ids) {
    std::vector<std::pair<int, int>> out;
    if (pairs.empty()) return out;
    std::unordered_map<int, int> position;
    for (std::size_t k = 0; k < ids.size(); ++k) position[ids[k]] = static_cast<int>(k);
    for (const auto& [a, b] : pairs) {
        const auto ia = position.find(a), ib = position.find(b);
        if (ia == position.end() || ib == position.end()) continue;
        out.emplace_back(std::min(ia->second, ib->second), std::max(ia->second, ib->second));
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace concord
