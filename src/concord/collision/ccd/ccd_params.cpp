#include "concord/collision/ccd/ccd_params.hpp"

#include <cmath>
#include <sstream>
#include <string>

#include "concord/math/error.hpp"

namespace concord {
namespace {

[[noreturn]] void reject(const std::string& name, double value, const std::string& requirement) {
    std::ostringstream message;
    message << "CCD parameter " << name << " = " << value << " must be " << requirement;
    throw InputError(message.str());
}

}  // namespace

void validate_ccd_params(const CCDParams& params) {
    if (!(params.min_separation >= 0.0) || !std::isfinite(params.min_separation))
        reject("min_separation", params.min_separation, "finite and >= 0");
    if (!(params.tmax > 0.0) || !std::isfinite(params.tmax))
        reject("tmax", params.tmax, "finite and > 0");
    if (!(params.conservative_rescaling > 0.0 && params.conservative_rescaling < 1.0))
        reject("conservative_rescaling", params.conservative_rescaling, "in (0, 1)");
    if (params.max_iterations < 1)
        reject("max_iterations", static_cast<double>(params.max_iterations), ">= 1");
    if (!(params.rounding_tolerance >= 0.0) || !std::isfinite(params.rounding_tolerance))
        reject("rounding_tolerance", params.rounding_tolerance, "finite and >= 0");
}

}  // namespace concord
