#include "concord/collision/distance/distance_type.hpp"

#include <algorithm>
#include <array>
#include <limits>

namespace concord {

PointEdgeDistanceType point_edge_distance_type(const Vec3& p, const Vec3& e0, const Vec3& e1) {
    const Vec3 e = e1 - e0;
    const double ee = e.squaredNorm();
    if (ee == 0.0) return PointEdgeDistanceType::P_E0;  // degenerate edge: a point
    const double s = e.dot(p - e0) / ee;
    if (s <= 0.0) return PointEdgeDistanceType::P_E0;
    if (s >= 1.0) return PointEdgeDistanceType::P_E1;
    return PointEdgeDistanceType::P_E;
}

namespace {

// Zero-area triangle (collinear or coincident vertices): the triangle is the union of its
// edges, so the closest feature is the best of the three point-edge features. Zero-length
// edges classify as their endpoint, so no type ever names a degenerate edge's line.
PointTriangleDistanceType degenerate_triangle_distance_type(const Vec3& p, const Vec3& t0,
                                                            const Vec3& t1, const Vec3& t2) {
    using T = PointTriangleDistanceType;
    const Vec3* v[3] = {&t0, &t1, &t2};
    double best = std::numeric_limits<double>::infinity();
    T best_type = T::P_T0;
    for (int k = 0; k < 3; ++k) {
        const Vec3& a = *v[k];
        const Vec3& b = *v[(k + 1) % 3];
        T type = T::P_T0;
        double d = 0.0;
        switch (point_edge_distance_type(p, a, b)) {
            case PointEdgeDistanceType::P_E0:
                type = static_cast<T>(static_cast<int>(T::P_T0) + k);
                d = (p - a).squaredNorm();
                break;
            case PointEdgeDistanceType::P_E1:
                type = static_cast<T>(static_cast<int>(T::P_T0) + (k + 1) % 3);
                d = (p - b).squaredNorm();
                break;
            case PointEdgeDistanceType::P_E:
                type = static_cast<T>(static_cast<int>(T::P_E0) + k);
                d = (a - p).cross(b - p).squaredNorm() / (b - a).squaredNorm();
                break;
        }
        if (d < best) {
            best = d;
            best_type = type;
        }
    }
    return best_type;
}

}  // namespace

PointTriangleDistanceType point_triangle_distance_type(const Vec3& p, const Vec3& t0,
                                                       const Vec3& t1, const Vec3& t2) {
    // Region classification by the signs of the barycentric-like quantities of the Voronoi
    // regions of the triangle's vertices, edges and face (Ericson, Real-Time Collision
    // Detection, Sec. 5.1.5).
    using T = PointTriangleDistanceType;
    const Vec3 ab = t1 - t0, ac = t2 - t0, ap = p - t0;
    // Without area the region tests below can name a zero-length edge (whose line distance is
    // 0/0), so degenerate triangles are classified by their edges instead.
    if (ab.cross(ac).squaredNorm() == 0.0) return degenerate_triangle_distance_type(p, t0, t1, t2);
    const double d1 = ab.dot(ap), d2 = ac.dot(ap);
    if (d1 <= 0.0 && d2 <= 0.0) return T::P_T0;
    const Vec3 bp = p - t1;
    const double d3 = ab.dot(bp), d4 = ac.dot(bp);
    if (d3 >= 0.0 && d4 <= d3) return T::P_T1;
    const double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) return T::P_E0;
    const Vec3 cp = p - t2;
    const double d5 = ab.dot(cp), d6 = ac.dot(cp);
    if (d6 >= 0.0 && d5 <= d6) return T::P_T2;
    const double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) return T::P_E2;
    const double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) return T::P_E1;
    return T::P_T;
}

EdgeEdgeDistanceType edge_edge_distance_type(const Vec3& ea0, const Vec3& ea1, const Vec3& eb0,
                                             const Vec3& eb1) {
    using T = EdgeEdgeDistanceType;
    const Vec3 u = ea1 - ea0, v = eb1 - eb0, w = ea0 - eb0;
    const double a = u.squaredNorm(), b = u.dot(v), c = v.squaredNorm();
    const double d = u.dot(w), e = v.dot(w);
    // D = ac - b² = |u × v|², taken from the cross product: the difference of dot products
    // loses all digits for nearly parallel edges (relative error ε/sin²θ instead of ε/sinθ),
    // which misclassified edges a few 1e-8 rad from parallel.
    const Vec3 n = u.cross(v);
    const double D = n.squaredNorm();

    // Nearly parallel (or degenerate) edges: the closest pair is realised by an endpoint of one
    // edge against the other edge; take the best of the four point-edge distances.
    constexpr double kParallelThreshold = 1e-20;
    if (a == 0.0 || c == 0.0 || D <= kParallelThreshold * a * c) {
        struct Option {
            double dist;
            T type;
        };
        auto pe = [](const Vec3& p, const Vec3& e0, const Vec3& e1, T t0, T t1, T te) -> Option {
            const auto type = point_edge_distance_type(p, e0, e1);
            const Vec3 edge = e1 - e0;
            switch (type) {
                case PointEdgeDistanceType::P_E0:
                    return {(p - e0).squaredNorm(), t0};
                case PointEdgeDistanceType::P_E1:
                    return {(p - e1).squaredNorm(), t1};
                default:
                    return {(p - e0).cross(edge).squaredNorm() / edge.squaredNorm(), te};
            }
        };
        const std::array<Option, 4> options = {
            pe(ea0, eb0, eb1, T::EA0_EB0, T::EA0_EB1, T::EA0_EB),
            pe(ea1, eb0, eb1, T::EA1_EB0, T::EA1_EB1, T::EA1_EB),
            pe(eb0, ea0, ea1, T::EA0_EB0, T::EA1_EB0, T::EA_EB0),
            pe(eb1, ea0, ea1, T::EA0_EB1, T::EA1_EB1, T::EA_EB1),
        };
        return std::min_element(options.begin(), options.end(),
                                [](const Option& x, const Option& y) { return x.dist < y.dist; })
            ->type;
    }

    // Closest points of the two segments (Ericson Sec. 5.1.9): s on edge a, t on edge b.
    // The numerator b e - c d of the line parameter is -(u × v)·(w × v), again from cross
    // products for the same reason.
    double s = std::clamp(-n.dot(w.cross(v)) / D, 0.0, 1.0);
    double t = (b * s + e) / c;
    if (t <= 0.0) {
        t = 0.0;
        s = std::clamp(-d / a, 0.0, 1.0);
    } else if (t >= 1.0) {
        t = 1.0;
        s = std::clamp((b - d) / a, 0.0, 1.0);
    }
    const bool s0 = s <= 0.0, s1 = s >= 1.0, t0 = t <= 0.0, t1 = t >= 1.0;
    if (s0) return t0 ? T::EA0_EB0 : (t1 ? T::EA0_EB1 : T::EA0_EB);
    if (s1) return t0 ? T::EA1_EB0 : (t1 ? T::EA1_EB1 : T::EA1_EB);
    if (t0) return T::EA_EB0;
    if (t1) return T::EA_EB1;
    return T::EA_EB;
}

}  // namespace concord
