// Which pairs of bodies may produce contact candidates.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace concord {

/// Decides whether two different bodies may produce candidates (e.g. false for two static
/// bodies). Called with (body of the vertex, body of the face) for point-triangle pairs and
/// with (body of edge_a, body of edge_b), edge_a < edge_b, for edge-edge pairs. Must be
/// thread-safe; an empty filter allows every pair of different bodies.
using BodyPairFilter = std::function<bool(int body_a, int body_b)>;

/// A filter that rejects pairs in which both bodies are marked static (non-zero entry).
/// Bodies beyond the end of the vector count as dynamic.
BodyPairFilter skip_static_pairs(std::vector<std::uint8_t> body_is_static);

/// The contact filter of a scene: skip_static_pairs, and also the `excluded` body pairs (the
/// scene's contact.exclude, e.g. a robot's adjacent links), each in either order.
BodyPairFilter contact_pair_filter(std::vector<std::uint8_t> body_is_static,
                                   std::vector<std::pair<int, int>> excluded);

/// The pairs of `pairs` (world body indices) whose two bodies are both in `ids`, renumbered to
/// positions in `ids` (a system's bodies), each with a < b, sorted.
std::vector<std::pair<int, int>> pairs_within(const std::vector<std::pair<int, int>>& pairs,
                                              const std::vector<int>& ids);

}  // namespace concord
