// Brute-force reference for CCD tests: distances in long double, computed independently of the
// library's closest-feature classification, and a fine sampling of the trajectories.
#pragma once

#include <gmpxx.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "concord/collision/ccd/ccd_query.hpp"

namespace concord::test {

using LVec = Eigen::Matrix<long double, 3, 1>;

inline LVec widen(const Vec3& v) {
    return v.cast<long double>();
}

inline long double ref_point_segment(const LVec& p, const LVec& a, const LVec& b) {
    const LVec e = b - a;
    const long double ee = e.squaredNorm();
    const long double s = ee > 0 ? std::clamp(e.dot(p - a) / ee, 0.0L, 1.0L) : 0.0L;
    return (p - (a + s * e)).norm();
}

// The minimum over the edges, and over the face when p projects inside it: correct for any
// triangle, including zero-area ones, which are the union of their edges.
inline long double ref_point_triangle(const LVec& p, const LVec& a, const LVec& b, const LVec& c) {
    long double d = std::min(
        {ref_point_segment(p, a, b), ref_point_segment(p, b, c), ref_point_segment(p, c, a)});
    const LVec n = (b - a).cross(c - a);
    const long double nn = n.squaredNorm();
    if (nn > 0) {
        const LVec ap = p - a;
        const long double wb = ap.cross(c - a).dot(n), wc = (b - a).cross(ap).dot(n);
        if (wb >= 0 && wc >= 0 && wb + wc <= nn)
            d = std::min(d, std::abs(n.dot(ap)) / std::sqrt(nn));
    }
    return d;
}

// The minimum over the four endpoint-segment distances, and the distance between the interior
// closest points when the lines' closest points fall inside both segments.
inline long double ref_segment_segment(const LVec& a0, const LVec& a1, const LVec& b0,
                                       const LVec& b1) {
    long double d = std::min({ref_point_segment(a0, b0, b1), ref_point_segment(a1, b0, b1),
                              ref_point_segment(b0, a0, a1), ref_point_segment(b1, a0, a1)});
    const LVec u = a1 - a0, v = b1 - b0, w = a0 - b0;
    const long double a = u.dot(u), b = u.dot(v), c = v.dot(v), dd = u.dot(w), e = v.dot(w);
    const long double den = a * c - b * b;
    if (den > 1e-8L * a * c) {
        const long double s = (b * e - c * dd) / den, t = (a * e - b * dd) / den;
        if (s > 0 && s < 1 && t > 0 && t < 1) d = std::min(d, (w + s * u - t * v).norm());
    } else if (a > 0 && c > 0) {
        // Nearly parallel: the closed form is ill-conditioned. The distance from a0 + s u to
        // segment b is convex in s, so a golden-section search finds its minimum.
        const long double ratio = (std::sqrt(5.0L) - 1) / 2;
        auto f = [&](long double s) { return ref_point_segment(a0 + s * u, b0, b1); };
        long double lo = 0, hi = 1;
        long double x1 = hi - ratio * (hi - lo), x2 = lo + ratio * (hi - lo);
        long double f1 = f(x1), f2 = f(x2);
        for (int it = 0; it < 90; ++it) {
            if (f1 < f2) {
                hi = x2, x2 = x1, f2 = f1;
                x1 = hi - ratio * (hi - lo), f1 = f(x1);
            } else {
                lo = x1, x1 = x2, f1 = f2;
                x2 = lo + ratio * (hi - lo), f2 = f(x2);
            }
        }
        d = std::min({d, f1, f2});
    }
    return d;
}

// Exact rational arithmetic for slivers, where even long double loses the plane distance.
struct QVec {
    mpq_class x, y, z;
};
inline QVec exact(const Vec3& v) {
    return {mpq_class(v.x()), mpq_class(v.y()), mpq_class(v.z())};
}
inline QVec operator-(const QVec& a, const QVec& b) {
    return {a.x - b.x, a.y - b.y, a.z - b.z};
}
inline QVec operator+(const QVec& a, const QVec& b) {
    return {a.x + b.x, a.y + b.y, a.z + b.z};
}
inline QVec operator*(const mpq_class& s, const QVec& a) {
    return {s * a.x, s * a.y, s * a.z};
}
inline mpq_class dot(const QVec& a, const QVec& b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
inline QVec cross(const QVec& a, const QVec& b) {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

inline mpq_class exact_point_segment_sq(const QVec& p, const QVec& a, const QVec& b) {
    const QVec e = b - a;
    const mpq_class ee = dot(e, e);
    mpq_class s = 0;
    if (ee > 0) s = dot(e, p - a) / ee;
    if (s < 0) s = 0;
    if (s > 1) s = 1;
    const QVec d = p - (a + s * e);
    return dot(d, d);
}

/// Exact squared point-triangle distance.
inline mpq_class exact_point_triangle_sq(const QVec& p, const QVec& a, const QVec& b,
                                         const QVec& c) {
    mpq_class d = std::min({exact_point_segment_sq(p, a, b), exact_point_segment_sq(p, b, c),
                            exact_point_segment_sq(p, c, a)});
    const QVec n = cross(b - a, c - a);
    const mpq_class nn = dot(n, n);
    if (nn > 0) {
        const QVec ap = p - a;
        const mpq_class wb = dot(cross(ap, c - a), n), wc = dot(cross(b - a, ap), n);
        if (wb >= 0 && wc >= 0 && wb + wc <= nn) {
            const mpq_class s = dot(n, ap);
            d = std::min(d, mpq_class(s * s / nn));
        }
    }
    return d;
}

/// Distance of the query's primitives at time t (a double, so exactly representable), in long
/// double, exact for sliver triangles.
inline long double ref_distance(const CCDQuery& q, long double t) {
    std::array<LVec, 4> x;
    for (int i = 0; i < 4; ++i) {
        const LVec x0 = widen(q.vertices[i]), x1 = widen(q.vertices[i + 4]);
        x[i] = x0 + t * (x1 - x0);
    }
    if (q.type == CCDQueryType::EdgeEdge) return ref_segment_segment(x[0], x[1], x[2], x[3]);
    const long double longest = std::max(
        {(x[2] - x[1]).squaredNorm(), (x[3] - x[1]).squaredNorm(), (x[3] - x[2]).squaredNorm()});
    const long double area2 = (x[2] - x[1]).cross(x[3] - x[1]).squaredNorm();
    if (area2 == 0 || area2 > 1e-6L * longest * longest)
        return ref_point_triangle(x[0], x[1], x[2], x[3]);
    const mpq_class tq(static_cast<double>(t));
    std::array<QVec, 4> e;
    for (int i = 0; i < 4; ++i) {
        const QVec x0 = exact(q.vertices[i]), x1 = exact(q.vertices[i + 4]);
        e[i] = x0 + tq * (x1 - x0);
    }
    return std::sqrt(
        static_cast<long double>(exact_point_triangle_sq(e[0], e[1], e[2], e[3]).get_d()));
}

/// A length scale of the query: the largest coordinate difference to its first vertex.
inline double query_scale(const CCDQuery& q) {
    double s = 0;
    for (const Vec3& v : q.vertices) s = std::max(s, (v - q.vertices[0]).cwiseAbs().maxCoeff());
    return s;
}

/// The first of the times k / samples (k = 0..samples * tmax) at which the reference distance is
/// at most `threshold`, or a negative number when there is none.
inline double first_sampled_contact(const CCDQuery& q, long double threshold, int samples,
                                    double tmax = 1.0) {
    const long last = std::lround(samples * tmax);
    for (long k = 0; k <= last; ++k) {
        const long double t = static_cast<long double>(k) / samples;
        if (ref_distance(q, t) <= threshold) return static_cast<double>(t);
    }
    return -1.0;
}

}  // namespace concord::test
