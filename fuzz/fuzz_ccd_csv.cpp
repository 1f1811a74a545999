// The CCD benchmark CSV reader (`concord ccd`): the first byte picks the query type.
#include <cstdint>
#include <sstream>
#include <string>

#include "concord/collision/ccd/ccd_query_io.hpp"
#include "concord/math/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const auto type = data[0] % 2 ? concord::CCDQueryType::EdgeEdge : concord::CCDQueryType::VertexFace;
    std::istringstream in(std::string(reinterpret_cast<const char*>(data + 1), size - 1));
    try {
        (void)concord::read_ccd_queries(in, "fuzz.csv", type);
    } catch (const concord::InputError&) {
    }
    return 0;
}
