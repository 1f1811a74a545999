// Slow, independent exact references for the audit tests, written with GMP rationals only and
// sharing no code with src/concord/collision/audit.
#pragma once

#include <gmpxx.h>

#include <array>
#include <vector>

#include "concord/math/types.hpp"

namespace concord::test {

using Rational = mpq_class;
using RVec3 = std::array<Rational, 3>;

inline RVec3 to_rational(const Vec3& p) {
    return {Rational(p.x()), Rational(p.y()), Rational(p.z())};
}

inline RVec3 operator-(const RVec3& a, const RVec3& b) {
    return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
inline RVec3 operator+(const RVec3& a, const RVec3& b) {
    return {a[0] + b[0], a[1] + b[1], a[2] + b[2]};
}
inline RVec3 cross(const RVec3& a, const RVec3& b) {
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
inline Rational dot(const RVec3& a, const RVec3& b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
inline bool is_zero(const RVec3& a) {
    return sgn(a[0]) == 0 && sgn(a[1]) == 0 && sgn(a[2]) == 0;
}

/// Sign of the 4x4 determinant |a 1; b 1; c 1; d 1|, by Gaussian elimination on rationals.
/// It is minus dot((b - a) x (c - a), d - a).
inline int homogeneous_det4_sign(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
    std::array<std::array<Rational, 4>, 4> m;
    const std::array<const Vec3*, 4> rows = {&a, &b, &c, &d};
    for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 3; ++j) m[i][j] = (*rows[i])[j];
        m[i][3] = 1;
    }
    int sign = 1;
    for (int col = 0; col < 4; ++col) {
        int pivot = col;
        while (pivot < 4 && sgn(m[pivot][col]) == 0) ++pivot;
        if (pivot == 4) return 0;
        if (pivot != col) {
            std::swap(m[pivot], m[col]);
            sign = -sign;
        }
        for (int r = col + 1; r < 4; ++r) {
            const Rational f = m[r][col] / m[col][col];
            for (int j = col; j < 4; ++j) m[r][j] -= f * m[col][j];
        }
    }
    for (int i = 0; i < 4; ++i) sign *= sgn(m[i][i]);
    return sign;
}

/// Reference for orient3d's convention: sign of dot((b - a) x (c - a), d - a).
inline int reference_orient3d(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
    return -homogeneous_det4_sign(a, b, c, d);
}

inline int reference_orient2d(const Vec2& a, const Vec2& b, const Vec2& c) {
    // |a 1; b 1; c 1| expanded along the last column equals (b - a) x (c - a).
    const Rational ax(a.x()), ay(a.y()), bx(b.x()), by(b.y()), cx(c.x()), cy(c.y());
    return sgn(ax * by - ay * bx - ax * cy + ay * cx + bx * cy - by * cx);
}

inline int reference_plane_side(const Vec3& p, const Vec3& o, const Vec3& n) {
    const RVec3 rn = to_rational(n);
    return sgn(dot(to_rational(p), rn) - dot(to_rational(o), rn));
}

/// Do the closed triangles A and B share a point? Independently of any orientation logic: they
/// do exactly when the origin lies in the Minkowski difference A - B = conv{a_i - b_j}, and by
/// Caratheodory's theorem then in the simplex of an affinely independent subset of at most four
/// of those nine points. Every such subset is tested with exact barycentric signs.
inline bool reference_triangles_intersect(const std::array<Vec3, 3>& a,
                                          const std::array<Vec3, 3>& b) {
    std::array<RVec3, 9> p;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) p[3 * i + j] = to_rational(a[i]) - to_rational(b[j]);

    // Only the entries with i < j (< k) are filled and read.
    std::array<std::array<RVec3, 9>, 9> cr;  // p_i x p_j
    std::array<std::array<std::array<int, 9>, 9>, 9> slot{};
    int num_slots = 0;
    for (int i = 0; i < 9; ++i)
        for (int j = i + 1; j < 9; ++j)
            for (int k = j + 1; k < 9; ++k) slot[i][j][k] = num_slots++;
    std::vector<Rational> det_storage(static_cast<std::size_t>(num_slots));
    auto det_value = [&](int i, int j, int k) -> Rational& {
        return det_storage[static_cast<std::size_t>(slot[i][j][k])];
    };
    for (int i = 0; i < 9; ++i)
        for (int j = i + 1; j < 9; ++j) cr[i][j] = cross(p[i], p[j]);
    for (int i = 0; i < 9; ++i)
        for (int j = i + 1; j < 9; ++j)
            for (int k = j + 1; k < 9; ++k) det_value(i, j, k) = dot(p[i], cr[j][k]);

    // One point: the origin itself.
    for (int i = 0; i < 9; ++i)
        if (is_zero(p[i])) return true;
    // Two points: parallel and pointing apart.
    for (int i = 0; i < 9; ++i)
        for (int j = i + 1; j < 9; ++j)
            if (is_zero(cr[i][j]) && sgn(dot(p[i], p[j])) <= 0) return true;
    // Three non-collinear points with the origin in their plane: barycentric signs from the
    // areas of the sub-triangles at the origin, measured along n = (q - p) x (r - p).
    for (int i = 0; i < 9; ++i)
        for (int j = i + 1; j < 9; ++j)
            for (int k = j + 1; k < 9; ++k) {
                if (sgn(det_value(i, j, k)) != 0) continue;
                const RVec3 n = cr[j][k] + cross(p[k], p[i]) + cr[i][j];
                if (is_zero(n)) continue;
                if (sgn(dot(n, cr[j][k])) >= 0 && sgn(dot(n, cross(p[k], p[i]))) >= 0 &&
                    sgn(dot(n, cr[i][j])) >= 0)
                    return true;
            }
    // Four non-coplanar points: Cramer's rule on [p q r s; 1 1 1 1] lambda = [0; 1]. The
    // numerators are the cofactors of the row of ones; their sum is the determinant.
    for (int i = 0; i < 9; ++i)
        for (int j = i + 1; j < 9; ++j)
            for (int k = j + 1; k < 9; ++k)
                for (int l = k + 1; l < 9; ++l) {
                    const std::array<Rational, 4> num = {-det_value(j, k, l), det_value(i, k, l),
                                                         -det_value(i, j, l), det_value(i, j, k)};
                    const int d = sgn(num[0] + num[1] + num[2] + num[3]);
                    if (d == 0) continue;
                    bool inside = true;
                    for (const Rational& x : num) inside = inside && sgn(x) * d >= 0;
                    if (inside) return true;
                }
    return false;
}

}  // namespace concord::test
