#include "concord/body/body_motion.hpp"

#include <algorithm>
#include <cmath>

#include "concord/body/modal_part.hpp"

namespace concord {

double body_displacement(const AffineBody& body, const VecX& d) {
    double out = affine_displacement(d.head<12>(), body.bounding_radius);
    if (body.is_elastic())
        for (int k = 0; k < body.modal->num_modes; ++k)
            out = std::max(out, std::abs(d[12 + k]) * body.modal->mode_scale[k]);
    return out;
}

}  // namespace concord
