// One query of the CCD benchmark of Wang, Ferguson, Schneider, Panozzo (2021): two primitives
// with linear vertex trajectories over [0, 1] and the exact answer.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "concord/collision/ccd/additive_ccd.hpp"
#include "concord/math/types.hpp"

namespace concord {

enum class CCDQueryType {
    VertexFace,  ///< vertices: v_t0, f0_t0, f1_t0, f2_t0, v_t1, f0_t1, f1_t1, f2_t1
    EdgeEdge,    ///< vertices: ea0_t0, ea1_t0, eb0_t0, eb1_t0, ea0_t1, ea1_t1, eb0_t1, eb1_t1
};

/// "vf" or "ee", the spelling used on the command line.
std::string_view to_string(CCDQueryType type);

/// Parses "vf" or "ee"; throws concord::InputError otherwise.
CCDQueryType parse_ccd_query_type(std::string_view text);

struct CCDQuery {
    CCDQueryType type = CCDQueryType::VertexFace;
    /// The four vertices at t = 0, then the same four at t = 1, in the benchmark's row order.
    std::array<Vec3, 8> vertices = {Vec3::Zero(), Vec3::Zero(), Vec3::Zero(), Vec3::Zero(),
                                    Vec3::Zero(), Vec3::Zero(), Vec3::Zero(), Vec3::Zero()};
    /// The primitives touch (distance exactly 0) at some t in [0, 1].
    bool ground_truth = false;
    /// Every coordinate was exactly representable as a double (see read_ccd_queries).
    bool exact = true;
    /// Line of the query's first row in the file it came from; 0 if it did not come from one.
    long line = 0;
};

/// Runs point_triangle_ccd or edge_edge_ccd on the query, as its type says.
CCDResult run_ccd_query(const CCDQuery& query, const CCDParams& params = {});

}  // namespace concord
