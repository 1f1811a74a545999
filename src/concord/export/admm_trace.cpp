#include "concord/export/admm_trace.hpp"

#include <algorithm>
#include <fstream>
#include <limits>

#include "concord/math/error.hpp"
#include "concord/scene/json_file.hpp"
#include "concord/scene/json_node.hpp"

namespace concord {

AdmmTrace read_admm_trace(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot read file");
    AdmmTrace trace;
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const std::string source = path + ": line " + std::to_string(number);
        const nlohmann::json json = parse_json_text(line, source);
        JsonNode root(json, source);
        if (!json.is_object()) root.fail("expected a JSON object");
        AdmmIteration it;
        it.frame = root.child("frame").integer(0, std::numeric_limits<int>::max());
        it.iteration = root.child("iteration").integer(0, std::numeric_limits<int>::max());
        it.primal_residual = root.child("primal_residual").non_negative_number();
        it.dual_residual = root.child("dual_residual").non_negative_number();
        if (auto n = root.find("mse")) it.mse = n->non_negative_number();
        if (auto n = root.find("rho")) it.rho = n->positive_number();
        auto& frame = trace[it.frame];
        const bool repeated = std::any_of(frame.begin(), frame.end(), [&](const AdmmIteration& o) {
            return o.iteration == it.iteration;
        });
        if (repeated) {
            root.child("iteration")
                .fail("frame " + std::to_string(it.frame) + " already has iteration " +
                      std::to_string(it.iteration));
        }
        frame.push_back(it);
    }
    if (in.bad()) throw InputError(path + ": read error after line " + std::to_string(number));
    if (trace.empty()) throw InputError(path + ": no iterations (an empty ADMM trace)");
    for (auto& [frame, its] : trace) {
        std::sort(its.begin(), its.end(), [](const AdmmIteration& a, const AdmmIteration& b) {
            return a.iteration < b.iteration;
        });
    }
    return trace;
}

bool looks_like_admm_trace(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string line;
    while (std::getline(in, line)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        return line.find("\"iteration\"") != std::string::npos &&
               line.find("\"primal_residual\"") != std::string::npos;
    }
    return false;
}

}  // namespace concord
