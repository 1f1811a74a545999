#include "concord/collision/ccd/ccd_ground_truth.hpp"

#include <gmpxx.h>

#include <algorithm>
#include <array>

namespace concord {
namespace {

struct Q3 {
    mpq_class x, y, z;
};

Q3 exact(const Vec3& v) {
    return {mpq_class(v.x()), mpq_class(v.y()), mpq_class(v.z())};
}
Q3 operator-(const Q3& a, const Q3& b) {
    return {a.x - b.x, a.y - b.y, a.z - b.z};
}
Q3 operator+(const Q3& a, const Q3& b) {
    return {a.x + b.x, a.y + b.y, a.z + b.z};
}
Q3 operator*(const mpq_class& s, const Q3& a) {
    return {s * a.x, s * a.y, s * a.z};
}
mpq_class dot(const Q3& a, const Q3& b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
Q3 cross(const Q3& a, const Q3& b) {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
bool is_zero(const Q3& a) {
    return a.x == 0 && a.y == 0 && a.z == 0;
}
bool operator==(const Q3& a, const Q3& b) {
    return a.x == b.x && a.y == b.y && a.z == b.z;
}

bool point_on_segment(const Q3& p, const Q3& e0, const Q3& e1) {
    const Q3 e = e1 - e0, w = p - e0;
    if (is_zero(e)) return p == e0;
    if (!is_zero(cross(w, e))) return false;
    const mpq_class s = dot(w, e);
    return s >= 0 && s <= dot(e, e);
}

bool point_on_triangle(const Q3& p, const Q3& a, const Q3& b, const Q3& c) {
    const Q3 ab = b - a, ac = c - a, ap = p - a;
    const Q3 n = cross(ab, ac);
    if (is_zero(n))  // zero area: the triangle is the union of its edges
        return point_on_segment(p, a, b) || point_on_segment(p, b, c) || point_on_segment(p, c, a);
    if (dot(n, ap) != 0) return false;
    // Barycentric coordinates of p, each multiplied by |n|^2 > 0.
    const mpq_class wb = dot(cross(ap, ac), n), wc = dot(cross(ab, ap), n);
    return wb >= 0 && wc >= 0 && wb + wc <= dot(n, n);
}

bool segments_touch(const Q3& a0, const Q3& a1, const Q3& b0, const Q3& b1) {
    const Q3 u = a1 - a0, v = b1 - b0, w = b0 - a0;
    const Q3 n = cross(u, v);
    if (is_zero(n))  // parallel or degenerate: any contact includes an endpoint of one edge
        return point_on_segment(a0, b0, b1) || point_on_segment(a1, b0, b1) ||
               point_on_segment(b0, a0, a1) || point_on_segment(b1, a0, a1);
    if (dot(w, n) != 0) return false;  // not coplanar
    // a0 + s u = b0 + r v, each parameter multiplied by |n|^2 > 0.
    const mpq_class nn = dot(n, n), s = dot(cross(w, v), n), r = dot(cross(w, u), n);
    return s >= 0 && s <= nn && r >= 0 && r <= nn;
}

}  // namespace

bool primitives_touch_at(const CCDQuery& query, double t) {
    const mpq_class tq(t);
    std::array<Q3, 4> x;
    for (int i = 0; i < 4; ++i) {
        const Q3 x0 = exact(query.vertices[i]), x1 = exact(query.vertices[i + 4]);
        x[i] = x0 + tq * (x1 - x0);
    }
    if (query.type == CCDQueryType::VertexFace) return point_on_triangle(x[0], x[1], x[2], x[3]);
    return segments_touch(x[0], x[1], x[2], x[3]);
}

bool separated_by_moving_plane(const CCDQuery& query, const Vec3& normal) {
    const Q3 n = exact(normal);
    if (is_zero(n)) return false;
    const int first_of_b = query.type == CCDQueryType::VertexFace ? 1 : 2;
    bool a_above = true, a_below = true;  // the two orientations the plane may have
    for (int time = 0; time < 2; ++time) {
        std::array<mpq_class, 4> h;
        for (int i = 0; i < 4; ++i) h[i] = dot(n, exact(query.vertices[4 * time + i]));
        const auto a = std::minmax_element(h.begin(), h.begin() + first_of_b);
        const auto b = std::minmax_element(h.begin() + first_of_b, h.end());
        a_above = a_above && *a.first > *b.second;
        a_below = a_below && *a.second < *b.first;
    }
    return a_above || a_below;
}

}  // namespace concord
