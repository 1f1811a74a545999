// Exact geometric sign predicates on double inputs: orientation of four points in space, of
// three points in the plane, and the side of a plane a point lies on.
//
// Each predicate first evaluates its polynomial in floating point and accepts the sign when a
// rigorous forward error bound certifies it; otherwise it re-evaluates with GMP rationals, into
// which doubles convert exactly. The answer is always the sign of the exact real value for the
// given doubles, never an approximation.
//
// The bound (derived in exact_predicates.cpp): in the standard model fl(x op y) = (x op y)(1+d),
// |d| <= u = 2^-53, every monomial of the expanded polynomial passes through at most k roundings
// (k = 8 for orient3d, 4 for orient2d and plane_side), so the computed value differs from the
// exact one by at most ((1+u)^k - 1) times the exact permanent (the sum of the absolute values
// of the monomials). The permanent is itself computed with at most k roundings, so
//     |computed - exact| <= c_k * permanent_computed,   c_k = k u (1 + 2^-40),
// which covers the O(u^2) terms with a wide margin. The model needs every intermediate result to
// be a normal double; the filter therefore only runs when every nonzero coordinate difference
// (and normal component) lies in [2^-300, 2^340], which rules out underflow and overflow in all
// products and sums; outside that range, or when the bound does not decide, GMP decides.
// The same argument holds when the compiler fuses a multiply and an add (FMA contraction only
// removes roundings), so the result does not depend on -ffp-contract. It does assume IEEE
// double arithmetic in the default round-to-nearest mode, and code compiled without
// -ffast-math (which would let the compiler reassociate the sums).
//
// Inputs must be finite; a NaN or infinite coordinate raises concord::InputError.
#pragma once

#include <optional>

#include "concord/math/types.hpp"

namespace concord {

/// Sign of det[b - a, c - a, d - a] = dot((b - a) x (c - a), d - a): +1 when d lies on the side
/// that the normal of the counter-clockwise triangle abc points to, -1 on the other side, 0 when
/// the four points are coplanar (including every degenerate case: repeated or collinear points).
/// Note: this is the opposite sign of Shewchuk's orient3d.
int orient3d(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d);

/// Sign of (b - a) x (c - a): +1 when a, b, c turn counter-clockwise, -1 clockwise, 0 collinear.
int orient2d(const Vec2& a, const Vec2& b, const Vec2& c);

/// Sign of dot(p - plane_point, plane_normal), for the plane through plane_point with the given
/// normal exactly as stored (it need not be unit length: only its direction and the exact double
/// values matter). +1 on the side the normal points to, 0 on the plane, -1 behind it.
int plane_side(const Vec3& p, const Vec3& plane_point, const Vec3& plane_normal);

/// The floating-point stage alone: the certified sign, or nullopt when the error bound cannot
/// decide (or the inputs are outside the filter's range). Exposed so that tests can check that
/// the filter is never wrong and that it does decide well-conditioned inputs.
std::optional<int> orient3d_filtered(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d);
std::optional<int> orient2d_filtered(const Vec2& a, const Vec2& b, const Vec2& c);
std::optional<int> plane_side_filtered(const Vec3& p, const Vec3& plane_point,
                                       const Vec3& plane_normal);

}  // namespace concord
