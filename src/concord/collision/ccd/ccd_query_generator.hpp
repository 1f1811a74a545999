// Generated CCD queries whose ground truth is proven, not estimated: every query is either built
// to touch at a chosen time (checked exactly by primitives_touch_at) or certified to miss by a
// moving separating plane (separated_by_moving_plane). Used by `concord ccd-generate`, the
// tests and the benchmarks.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "concord/collision/ccd/ccd_query.hpp"

namespace concord {

enum class CCDQueryKind {
    /// Like a simulation's candidate set: primitives of size 0.05-0.3 near each other (gaps
    /// from about 1e-5 to 0.1), small motions; about 15% are built to touch.
    Ordinary,
    /// Degenerate and borderline cases: touching at a vertex, an edge, at t = 1 or t = 0,
    /// coplanar and collinear motion, grazing, zero-area triangles and zero-length edges,
    /// near-parallel edges, misses by margins down to 2^-24, no motion at all.
    Hard,
};

/// "ordinary" or "hard".
std::string_view to_string(CCDQueryKind kind);

/// Parses "ordinary" or "hard"; throws concord::InputError otherwise.
CCDQueryKind parse_ccd_query_kind(std::string_view text);

struct GeneratedCCDQuery {
    CCDQuery query;
    /// For a query built to touch, the time of contact it was built with (a multiple of
    /// 2^-10 in [0, 1]); -1 for a query built to miss.
    double contact_time = -1.0;
    /// Name of the construction, e.g. "vertex-hit" or "parallel-slide-miss".
    std::string_view scenario;
};

/// `count` queries, deterministic in `seed` on every platform. Throws concord::InputError
/// for a negative count.
std::vector<GeneratedCCDQuery> generate_ccd_queries(CCDQueryType type, CCDQueryKind kind,
                                                    long count, std::uint64_t seed);

}  // namespace concord
