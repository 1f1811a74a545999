#include "concord/collision/audit/exact_predicates.hpp"

#include <gmpxx.h>

#include <array>
#include <cmath>

#include "concord/math/error.hpp"

namespace concord {

namespace {

// Error-bound derivation (see also the header). Write u = 2^-53 for the unit roundoff and let
// every floating-point operation return (x op y)(1 + d) with |d| <= u, which holds for normal
// results under round-to-nearest.
//
// orient3d is evaluated as w_x (u_y v_z - u_z v_y) + w_y (u_z v_x - u_x v_z) + w_z (u_x v_y -
// u_y v_x) with u = b - a, v = c - a, w = d - a. A monomial such as w_x u_y v_z collects one
// factor (1 + d) from each of its three coordinate differences, one from u_y v_z, one from the
// subtraction, one from the multiplication by w_x and at most two from the two additions: at
// most 8. Hence computed - exact = sum_i m_i (prod_j (1 + d_ij) - 1), bounded by
// ((1+u)^8 - 1) P, where P = sum_i |m_i| is the exact permanent. The permanent is computed by
// the same expression with absolute values, again with at most 8 roundings per monomial, so
// P <= P_computed / (1-u)^8; the final product c * P_computed costs one more factor (1 - u).
// It suffices that c >= ((1+u)^8 - 1) / (1-u)^9 = 8u + 100u^2 + O(u^3), and
// c = 8u (1 + 2^-40) exceeds that by a factor ~2^9 in the second-order term.
// orient2d (u_x v_y - u_y v_x) and plane_side (w_x n_x + w_y n_y + w_z n_z) have at most 4
// roundings per monomial: c >= ((1+u)^4 - 1) / (1-u)^5 = 4u + 26u^2 + O(u^3) < 4u (1 + 2^-40).
// A fused multiply-add rounds once where the model above rounds twice, so contraction only
// removes factors and the bounds still hold.
//
// Range: the model fails for subnormal or overflowing results. When every nonzero difference
// (and normal component) has magnitude in [2^-300, 2^340], a product of two is >= 2^-600 in
// magnitude and is a multiple of 2^-652, so a nonzero difference of two such products is
// >= 2^-652; its product with a third factor is >= 2^-952 and a multiple of 2^-1004, so every
// nonzero partial sum is >= 2^-1004, still normal. At the top, |products of three| <= 2^1020
// and sums of six of them stay below 2^1023. Differences of doubles that round to zero are
// exactly zero, so zero factors contribute exactly zero. Under the same range condition a
// computed permanent of zero means every exact monomial is zero, so the exact value is zero.
constexpr double kUnitRoundoff = 0x1p-53;
constexpr double kBound8 = 8.0 * kUnitRoundoff * (1.0 + 0x1p-40);
constexpr double kBound4 = 4.0 * kUnitRoundoff * (1.0 + 0x1p-40);
constexpr double kSmallestFiltered = 0x1p-300;
constexpr double kLargestFiltered = 0x1p340;

// False for NaN and infinities too, which then reach the exact stage and are reported there.
bool in_filter_range(double x) {
    const double m = std::abs(x);
    return m == 0.0 || (m >= kSmallestFiltered && m <= kLargestFiltered);
}

template <std::size_t N>
bool all_in_filter_range(const std::array<double, N>& xs) {
    for (double x : xs)
        if (!in_filter_range(x)) return false;
    return true;
}

std::optional<int> certified_sign(double value, double permanent, double bound_factor) {
    if (permanent == 0.0) return 0;
    const double error_bound = bound_factor * permanent;
    if (value > error_bound) return 1;
    if (-value > error_bound) return -1;
    return std::nullopt;
}

void require_finite(std::initializer_list<double> xs) {
    for (double x : xs)
        if (!std::isfinite(x))
            throw InputError("exact predicate: non-finite coordinate " + std::to_string(x));
}

// Doubles convert to rationals exactly, so these are the signs of the true real values.
int orient3d_exact(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
    require_finite(
        {a.x(), a.y(), a.z(), b.x(), b.y(), b.z(), c.x(), c.y(), c.z(), d.x(), d.y(), d.z()});
    const mpq_class ax(a.x()), ay(a.y()), az(a.z());
    const mpq_class ux = mpq_class(b.x()) - ax, uy = mpq_class(b.y()) - ay,
                    uz = mpq_class(b.z()) - az;
    const mpq_class vx = mpq_class(c.x()) - ax, vy = mpq_class(c.y()) - ay,
                    vz = mpq_class(c.z()) - az;
    const mpq_class wx = mpq_class(d.x()) - ax, wy = mpq_class(d.y()) - ay,
                    wz = mpq_class(d.z()) - az;
    const mpq_class det =
        wx * (uy * vz - uz * vy) + wy * (uz * vx - ux * vz) + wz * (ux * vy - uy * vx);
    return sgn(det);
}

int orient2d_exact(const Vec2& a, const Vec2& b, const Vec2& c) {
    require_finite({a.x(), a.y(), b.x(), b.y(), c.x(), c.y()});
    const mpq_class ax(a.x()), ay(a.y());
    const mpq_class ux = mpq_class(b.x()) - ax, uy = mpq_class(b.y()) - ay;
    const mpq_class vx = mpq_class(c.x()) - ax, vy = mpq_class(c.y()) - ay;
    const mpq_class det = ux * vy - uy * vx;
    return sgn(det);
}

int plane_side_exact(const Vec3& p, const Vec3& o, const Vec3& n) {
    require_finite({p.x(), p.y(), p.z(), o.x(), o.y(), o.z(), n.x(), n.y(), n.z()});
    const mpq_class s = (mpq_class(p.x()) - mpq_class(o.x())) * mpq_class(n.x()) +
                        (mpq_class(p.y()) - mpq_class(o.y())) * mpq_class(n.y()) +
                        (mpq_class(p.z()) - mpq_class(o.z())) * mpq_class(n.z());
    return sgn(s);
}

}  // namespace

std::optional<int> orient3d_filtered(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
    const double ux = b.x() - a.x(), uy = b.y() - a.y(), uz = b.z() - a.z();
    const double vx = c.x() - a.x(), vy = c.y() - a.y(), vz = c.z() - a.z();
    const double wx = d.x() - a.x(), wy = d.y() - a.y(), wz = d.z() - a.z();
    if (!all_in_filter_range(std::array{ux, uy, uz, vx, vy, vz, wx, wy, wz})) return std::nullopt;

    const double uyvz = uy * vz, uzvy = uz * vy;
    const double uzvx = uz * vx, uxvz = ux * vz;
    const double uxvy = ux * vy, uyvx = uy * vx;
    const double det = wx * (uyvz - uzvy) + wy * (uzvx - uxvz) + wz * (uxvy - uyvx);
    const double permanent = (std::abs(uyvz) + std::abs(uzvy)) * std::abs(wx) +
                             (std::abs(uzvx) + std::abs(uxvz)) * std::abs(wy) +
                             (std::abs(uxvy) + std::abs(uyvx)) * std::abs(wz);
    return certified_sign(det, permanent, kBound8);
}

std::optional<int> orient2d_filtered(const Vec2& a, const Vec2& b, const Vec2& c) {
    const double ux = b.x() - a.x(), uy = b.y() - a.y();
    const double vx = c.x() - a.x(), vy = c.y() - a.y();
    if (!all_in_filter_range(std::array{ux, uy, vx, vy})) return std::nullopt;

    const double uxvy = ux * vy, uyvx = uy * vx;
    return certified_sign(uxvy - uyvx, std::abs(uxvy) + std::abs(uyvx), kBound4);
}

std::optional<int> plane_side_filtered(const Vec3& p, const Vec3& plane_point,
                                       const Vec3& plane_normal) {
    const double wx = p.x() - plane_point.x(), wy = p.y() - plane_point.y(),
                 wz = p.z() - plane_point.z();
    const double nx = plane_normal.x(), ny = plane_normal.y(), nz = plane_normal.z();
    if (!all_in_filter_range(std::array{wx, wy, wz, nx, ny, nz})) return std::nullopt;

    const double tx = wx * nx, ty = wy * ny, tz = wz * nz;
    return certified_sign(tx + ty + tz, std::abs(tx) + std::abs(ty) + std::abs(tz), kBound4);
}

int orient3d(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
    if (const auto s = orient3d_filtered(a, b, c, d)) return *s;
    return orient3d_exact(a, b, c, d);
}

int orient2d(const Vec2& a, const Vec2& b, const Vec2& c) {
    if (const auto s = orient2d_filtered(a, b, c)) return *s;
    return orient2d_exact(a, b, c);
}

int plane_side(const Vec3& p, const Vec3& plane_point, const Vec3& plane_normal) {
    if (const auto s = plane_side_filtered(p, plane_point, plane_normal)) return *s;
    return plane_side_exact(p, plane_point, plane_normal);
}

}  // namespace concord
