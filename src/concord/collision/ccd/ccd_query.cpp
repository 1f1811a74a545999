#include "concord/collision/ccd/ccd_query.hpp"

#include "concord/math/error.hpp"

namespace concord {

std::string_view to_string(CCDQueryType type) {
    return type == CCDQueryType::VertexFace ? "vf" : "ee";
}

CCDQueryType parse_ccd_query_type(std::string_view text) {
    if (text == "vf") return CCDQueryType::VertexFace;
    if (text == "ee") return CCDQueryType::EdgeEdge;
    throw InputError("unknown CCD query type '" + std::string(text) + "' (expected vf or ee)");
}

CCDResult run_ccd_query(const CCDQuery& query, const CCDParams& params) {
    const auto& v = query.vertices;
    if (query.type == CCDQueryType::VertexFace)
        return point_triangle_ccd(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], params);
    return edge_edge_ccd(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], params);
}

}  // namespace concord
