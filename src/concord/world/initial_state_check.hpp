// Refuses initial states the solver cannot start from: bodies that intersect or touch.
#pragma once

#include <utility>
#include <vector>

#include "concord/body/affine_body.hpp"
#include "concord/energy/contact_set.hpp"

namespace concord {

/// Bodies closer than this fraction of dhat count as touching: the barrier would start at an
/// enormous value and the first steps would be dominated by an artificial repulsion.
constexpr double kTouchingFractionOfDhat = 1e-3;

/// Throws InputError naming the two bodies (or the body and plane) when, in state q, the
/// surfaces of two different bodies intersect (exact test), a vertex is on or below a plane,
/// or two bodies (or a body and a plane) are closer than kTouchingFractionOfDhat * dhat.
/// Pairs of two static bodies are not checked: they never move; nor are the `excluded` pairs
/// ((a, b), a < b, sorted: the scene's contact.exclude), whose surfaces may overlap.
void check_initial_state(const std::vector<AffineBody>& bodies, const ContactSurface& surface,
                         const VecX& q, const std::vector<HalfSpace>& planes, double dhat,
                         const std::vector<std::pair<int, int>>& excluded = {});

}  // namespace concord
