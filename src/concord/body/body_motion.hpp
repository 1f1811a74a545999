// How far a change of a body's coordinates moves its vertices (a bound): the measure of the
// single-machine step criterion, the distributed residuals and the step's sanity check.
#pragma once

#include "concord/body/affine_body.hpp"
#include "concord/math/types.hpp"

namespace concord {

/// A displacement bound of an affine change dq of a body with radius r: |dp|_inf + |dA|_max r.
inline double affine_displacement(const Vec12& dq, double radius) {
    return dq.head<3>().cwiseAbs().maxCoeff() + dq.tail<9>().cwiseAbs().maxCoeff() * radius;
}

/// The same measure for a change of a body's whole coordinate block (12 affine numbers, then
/// its modal coordinates): the affine measure or the largest |d eta_k| times the mode's largest
/// displacement, whichever is larger.
double body_displacement(const AffineBody& body, const VecX& d);

}  // namespace concord
