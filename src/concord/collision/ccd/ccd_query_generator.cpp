#include "concord/collision/ccd/ccd_query_generator.hpp"

#include <array>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "concord/collision/ccd/ccd_ground_truth.hpp"
#include "concord/collision/distance/distance_type.hpp"
#include "concord/math/error.hpp"

namespace concord {
namespace {

using Stencil = std::array<Vec3, 4>;
using Triangle = std::array<Vec3, 3>;

// Eigen leaves fixed-size vectors uninitialised, so `Stencil{}` would not be zero.
Stencil no_motion() {
    return {Vec3::Zero(), Vec3::Zero(), Vec3::Zero(), Vec3::Zero()};
}

// Coordinates are multiples of 2^-24 of magnitude below 16, barycentric weights multiples of
// 2^-8 and contact times multiples of 2^-10, so that building a query from its configuration at
// the contact time is exact in double (fewer than 53 significant bits everywhere). The exact
// check that follows every construction is what the ground truth rests on; this only makes it
// pass.
constexpr int kGridBits = 24;
constexpr int kCoarseGridBits = 4;
constexpr long kTimeSteps = 1024;
constexpr long kWeightSteps = 256;
constexpr int kMaxAttempts = 1000;

double snap(double x, int bits = kGridBits) {
    return std::ldexp(std::nearbyint(std::ldexp(x, bits)), -bits);
}
Vec3 snap(const Vec3& v, int bits = kGridBits) {
    return {snap(v.x(), bits), snap(v.y(), bits), snap(v.z(), bits)};
}

// Random numbers from the raw 64-bit output of mt19937_64, which the standard fixes exactly
// (the standard distributions are not portable).
class Sampler {
  public:
    explicit Sampler(std::uint64_t seed) : rng_(seed) {}

    double unit() { return static_cast<double>(rng_() >> 11) * 0x1p-53; }  // [0, 1)
    double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }
    long integer(long lo, long hi) {  // inclusive
        return lo + static_cast<long>(rng_() % static_cast<std::uint64_t>(hi - lo + 1));
    }
    bool coin(double p = 0.5) { return unit() < p; }
    Vec3 in_cube(double half) {
        return {uniform(-half, half), uniform(-half, half), uniform(-half, half)};
    }
    Vec3 in_square(double half) { return {uniform(-half, half), uniform(-half, half), 0.0}; }
    Vec3 direction() {
        while (true) {
            const Vec3 v = in_cube(1.0);
            const double n = v.norm();
            if (n > 0.1 && n <= 1.0) return v / n;
        }
    }
    /// 2^-k times a factor in [1, 2), k uniform in [lo, hi]: log-uniform without libm.
    double binary_scale(int lo, int hi) { return std::ldexp(1.0 + unit(), -integer(lo, hi)); }
    /// A margin of exactly 2^-k.
    double power_of_two(int lo, int hi) { return std::ldexp(1.0, -integer(lo, hi)); }
    double time(long lo = 0, long hi = kTimeSteps) {
        return static_cast<double>(integer(lo, hi)) / kTimeSteps;
    }

  private:
    std::mt19937_64 rng_;
};

// What a scenario builds: a query plus the evidence for its ground truth.
struct Construction {
    Stencil at0 = no_motion(), at1 = no_motion();
    double contact_time = -1.0;             // >= 0: built to touch then
    Vec3 separating_normal = Vec3::Zero();  // for a miss; zero: try generic candidates only
    std::string_view scenario;
};

Construction hit(std::string_view scenario, const Stencil& at_contact, const Stencil& displacement,
                 double t) {
    Construction c;
    c.scenario = scenario;
    c.contact_time = t;
    for (int i = 0; i < 4; ++i) {
        c.at0[i] = at_contact[i] - t * displacement[i];
        c.at1[i] = at_contact[i] + (1 - t) * displacement[i];
    }
    return c;
}

Construction miss(std::string_view scenario, const Stencil& at0, const Stencil& displacement,
                  const Vec3& normal) {
    Construction c;
    c.scenario = scenario;
    c.separating_normal = normal;
    c.at0 = at0;
    for (int i = 0; i < 4; ++i) c.at1[i] = at0[i] + displacement[i];
    return c;
}

Stencil snapped_displacements(Sampler& s, double magnitude) {
    Stencil d;
    for (auto& v : d) v = snap(s.in_cube(magnitude));
    return d;
}

Stencil common_displacement(const Vec3& first, const Vec3& rest, int first_count) {
    Stencil d;
    for (int i = 0; i < 4; ++i) d[i] = i < first_count ? first : rest;
    return d;
}

std::array<double, 3> barycentric(Sampler& s, int zeros) {
    std::array<double, 3> b{};
    if (zeros == 0) {
        const long i = s.integer(1, kWeightSteps - 2);
        const long j = s.integer(1, kWeightSteps - 1 - i);
        b = {double(kWeightSteps - i - j), double(i), double(j)};
    } else if (zeros == 1) {
        const long i = s.integer(1, kWeightSteps - 1);
        b = {double(kWeightSteps - i), double(i), 0.0};
    } else {
        b = {double(kWeightSteps), 0.0, 0.0};
    }
    const long rotate = s.integer(0, 2);
    std::array<double, 3> r;
    for (int k = 0; k < 3; ++k) r[k] = b[(k + rotate) % 3] / kWeightSteps;
    return r;
}

double edge_parameter(Sampler& s, bool endpoint) {
    if (endpoint) return s.coin() ? 0.0 : 1.0;
    return static_cast<double>(s.integer(1, kWeightSteps - 1)) / kWeightSteps;
}

Vec3 triangle_point(const Triangle& t, const std::array<double, 3>& b) {
    return b[0] * t[0] + b[1] * t[1] + b[2] * t[2];
}

// A triangle that is not too thin: |n| >= quality * size^2.
Triangle random_triangle(Sampler& s, const Vec3& centre, double size, bool planar,
                         double quality = 0.05) {
    while (true) {
        Triangle t;
        for (auto& v : t) v = snap(centre + size * (planar ? s.in_square(1.0) : s.in_cube(1.0)));
        if ((t[1] - t[0]).cross(t[2] - t[0]).norm() >= quality * size * size) return t;
    }
}

Stencil with_point(const Vec3& p, const Triangle& t) {
    return {p, t[0], t[1], t[2]};
}

// ---------------------------------------------------------------------------------------------
// Vertex-face constructions.

Construction vf_ordinary_hit(Sampler& s) {
    const Vec3 centre = snap(s.in_cube(3.0));
    const double size = s.uniform(0.05, 0.3);
    const Triangle tri = random_triangle(s, centre, size, false);
    const Vec3 p = triangle_point(tri, barycentric(s, 0));
    const double motion = size * s.binary_scale(2, 8);
    const Vec3 body = snap(s.in_cube(motion));
    Stencil d;
    d[0] = snap(s.in_cube(motion));
    for (int i = 1; i < 4; ++i) d[i] = body + snap(s.in_cube(0.05 * motion));
    return hit("ordinary-hit", with_point(p, tri), d, s.time(1, kTimeSteps));
}

Construction vf_ordinary_near(Sampler& s) {
    const Vec3 centre = snap(s.in_cube(3.0));
    const double size = s.uniform(0.05, 0.3);
    const Triangle tri = random_triangle(s, centre, size, false);
    const Vec3 n = (tri[1] - tri[0]).cross(tri[2] - tri[0]).normalized();
    const double b1 = s.uniform(-0.3, 1.1), b2 = s.uniform(-0.3, 1.3 - b1);
    const double height = (s.coin() ? 1 : -1) * size * s.binary_scale(1, 12);
    const Vec3 p = snap(tri[0] + b1 * (tri[1] - tri[0]) + b2 * (tri[2] - tri[0]) + height * n);
    const double motion = size * s.binary_scale(2, 10);
    const Vec3 body = snap(s.in_cube(motion));
    Stencil d;
    d[0] = snap(s.in_cube(motion));
    for (int i = 1; i < 4; ++i) d[i] = body + snap(s.in_cube(0.05 * motion));
    return miss("ordinary-near", with_point(p, tri), d, Vec3::Zero());
}

Construction vf_hard(Sampler& s, int scenario) {
    const double size = snap(s.uniform(0.25, 2.0));
    const double motion = s.uniform(0.1, 2.0);
    const Vec3 origin = Vec3::Zero();
    const Vec3 up(0, 0, 1);
    switch (scenario) {
        case 0: {  // through the interior, every vertex moving on its own
            const Triangle t = random_triangle(s, origin, size, false);
            return hit("face-hit", with_point(triangle_point(t, barycentric(s, 0)), t),
                       snapped_displacements(s, motion), s.time(1, kTimeSteps - 1));
        }
        case 1: {
            const Triangle t = random_triangle(s, origin, size, false);
            return hit("vertex-hit", with_point(triangle_point(t, barycentric(s, 2)), t),
                       snapped_displacements(s, motion), s.time());
        }
        case 2: {
            const Triangle t = random_triangle(s, origin, size, false);
            return hit("edge-hit", with_point(triangle_point(t, barycentric(s, 1)), t),
                       snapped_displacements(s, motion), s.time());
        }
        case 3: {  // approaching along the normal in the triangle's frame, first touch at t = 1
            const Triangle t = random_triangle(s, origin, size, false);
            const Vec3 n = (t[1] - t[0]).cross(t[2] - t[0]).normalized();
            const Vec3 body = snap(s.in_cube(motion));
            return hit("touch-at-t1",
                       with_point(triangle_point(t, barycentric(s, s.integer(0, 2))), t),
                       common_displacement(body + snap(-motion * n), body, 1), 1.0);
        }
        case 4: {
            const Triangle t = random_triangle(s, origin, size, false);
            return hit("start-in-contact",
                       with_point(triangle_point(t, barycentric(s, s.integer(0, 2))), t),
                       snapped_displacements(s, motion), 0.0);
        }
        case 5: {  // everything moves within the plane z = 0
            const Triangle t = random_triangle(s, origin, size, true);
            Stencil d = snapped_displacements(s, motion);
            for (auto& v : d) v.z() = 0;
            return hit("coplanar-hit", with_point(triangle_point(t, barycentric(s, 0)), t), d,
                       s.time());
        }
        case 6: {  // in-plane line through vertex t0 that stays outside the triangle's angle
            const Triangle t = {origin, Vec3(size, snap(s.uniform(0, 0.5 * size)), 0),
                                Vec3(snap(s.uniform(0, 0.5 * size)), size, 0)};
            const Vec3 body = snap(s.in_cube(motion));
            const double m = snap(motion);
            return hit("coplanar-vertex-graze", with_point(origin, t),
                       common_displacement(body + Vec3(m, -m, 0), body, 1), s.time());
        }
        case 7: {  // sliding along the line of an edge into the edge
            const Triangle t = random_triangle(s, origin, size, false);
            const Vec3 body = snap(s.in_cube(motion));
            const double along = snap(s.uniform(0.5, 2.0), 6);
            const double w = static_cast<double>(s.integer(0, kWeightSteps)) / kWeightSteps;
            return hit("edge-slide-hit", with_point(triangle_point(t, {1 - w, w, 0}), t),
                       common_displacement(body + along * (t[1] - t[0]), body, 1), s.time());
        }
        case 8: {  // parallel to the face at a tiny height, triangle deforming in its plane
            const Triangle t = random_triangle(s, origin, size, true);
            const double h = s.power_of_two(4, 24);
            const Vec3 p =
                snap(triangle_point(t, barycentric(s, 0)) - 0.5 * motion * Vec3(1, 0, 0)) + h * up;
            Stencil d = snapped_displacements(s, motion);
            for (auto& v : d) v.z() = 0;
            d[0].x() = snap(motion);
            return miss("parallel-slide-miss", with_point(p, t), d, up);
        }
        case 9: {  // falls towards the face and stops 2^-k short at t = 1
            const Triangle t = random_triangle(s, origin, size, true);
            const double h = s.power_of_two(4, 24), start = snap(s.uniform(0.25, 1.0));
            const Vec3 target = triangle_point(t, barycentric(s, 0));
            const Vec3 body = snap(s.in_square(motion));
            return miss("stop-short-miss", with_point(target + start * up, t),
                        common_displacement(body - (start - h) * up, body, 1), up);
        }
        case 10: {  // zero-area triangle: t2 is the midpoint of t0 t1; it only translates
            Triangle t;
            t[0] = snap(s.in_cube(size));
            t[1] = snap(s.in_cube(size));
            t[2] = 0.5 * (t[0] + t[1]);
            const Vec3 body = snap(s.in_cube(motion));
            return hit("degenerate-segment-hit",
                       with_point(triangle_point(t, barycentric(s, 0)), t),
                       common_displacement(snap(s.in_cube(motion)), body, 1), s.time());
        }
        case 11: {  // all three triangle vertices coincide
            const Vec3 q = snap(s.in_cube(size));
            const Triangle t = {q, q, q};
            return hit("degenerate-point-hit", with_point(q, t),
                       common_displacement(snap(s.in_cube(motion)), snap(s.in_cube(motion)), 1),
                       s.time());
        }
        case 12: {  // collinear triangle along x, point passing 2^-k above it
            const double a = snap(s.uniform(-size, 0)), b = snap(s.uniform(0, size));
            const Triangle t = {Vec3(a, 0, 0), Vec3(b, 0, 0), Vec3(0.5 * (a + b), 0, 0)};
            const double h = s.power_of_two(4, 24);
            const Vec3 p = Vec3(snap(s.uniform(-size, size)), -snap(0.5 * motion), h);
            const Vec3 dp(snap(s.uniform(-motion, motion)), snap(motion), 0);
            return miss("degenerate-miss", with_point(p, t),
                        common_displacement(dp, snap(s.in_square(motion)), 1), up);
        }
        case 13: {
            const Triangle t = random_triangle(s, origin, size, true);
            const Vec3 p = triangle_point(t, barycentric(s, 0)) + s.power_of_two(4, 24) * up;
            return miss("zero-motion-miss", with_point(p, t), no_motion(), up);
        }
        case 14: {
            const Triangle t = random_triangle(s, origin, size, false);
            return hit("zero-motion-contact",
                       with_point(triangle_point(t, barycentric(s, s.integer(0, 2))), t),
                       no_motion(), s.time());
        }
        default: {  // in the plane, sliding along the outside of edge t0 t1 at distance 2^-k
            const Triangle t = {
                origin, Vec3(size, 0, 0),
                Vec3(snap(s.uniform(-0.5, 1.5) * size), snap(s.uniform(0.2, 1.0) * size), 0)};
            const double h = s.power_of_two(4, 24);
            const Vec3 p(snap(s.uniform(-size, 0)), -h, 0);
            const Vec3 body(snap(s.uniform(-motion, motion)), 0, 0);
            return miss("edge-near-miss", with_point(p, t),
                        common_displacement(body + Vec3(snap(size + motion), 0, 0), body, 1),
                        Vec3(0, -1, 0));
        }
    }
}
constexpr int kVertexFaceScenarios = 16;

// ---------------------------------------------------------------------------------------------
// Edge-edge constructions.

// Edges a = (q - alpha u, q + (1 - alpha) u) and b likewise, meeting at q.
Stencil edges_through(const Vec3& q, const Vec3& u, double alpha, const Vec3& v, double beta) {
    const Vec3 a0 = q - alpha * u, b0 = q - beta * v;
    return {a0, a0 + u, b0, b0 + v};
}

Construction ee_ordinary_hit(Sampler& s) {
    const Vec3 q = snap(s.in_cube(3.0));
    const double size = s.uniform(0.05, 0.3);
    const Vec3 u = snap(size * s.direction()), v = snap(size * s.direction());
    const double motion = size * s.binary_scale(2, 8);
    const Vec3 a = snap(s.in_cube(motion)), b = snap(s.in_cube(motion));
    Stencil d = common_displacement(a, b, 2);
    for (auto& x : d) x += snap(s.in_cube(0.05 * motion));
    return hit("ordinary-hit",
               edges_through(q, u, edge_parameter(s, false), v, edge_parameter(s, false)), d,
               s.time(1, kTimeSteps));
}

Construction ee_ordinary_near(Sampler& s) {
    const Vec3 centre = snap(s.in_cube(3.0));
    const double size = s.uniform(0.05, 0.3);
    const Vec3 u = size * s.direction(), v = size * s.direction();
    const Vec3 n = u.cross(v).normalized();
    const double gap = size * s.binary_scale(1, 12);
    const Vec3 qa = centre + s.uniform(-0.2, 1.2) * u;
    const Vec3 qb = qa + gap * (n.allFinite() ? n : s.direction());
    const Vec3 a0 = snap(qa - s.uniform(0, 1) * u), b0 = snap(qb - s.uniform(-0.2, 1.2) * v);
    const Stencil x = {a0, snap(a0 + u), b0, snap(b0 + v)};
    const double motion = size * s.binary_scale(2, 10);
    const Vec3 a = snap(s.in_cube(motion)), b = snap(s.in_cube(motion));
    Stencil d = common_displacement(a, b, 2);
    for (auto& y : d) y += snap(s.in_cube(0.05 * motion));
    return miss("ordinary-near", x, d, Vec3::Zero());
}

Construction ee_hard(Sampler& s, int scenario) {
    const double size = snap(s.uniform(0.25, 2.0));
    const double motion = s.uniform(0.1, 2.0);
    const Vec3 up(0, 0, 1);
    const Vec3 q = snap(s.in_cube(0.5));
    const Vec3 u = snap(size * s.direction()), v = snap(size * s.direction());
    switch (scenario) {
        case 0:
            return hit("cross-hit",
                       edges_through(q, u, edge_parameter(s, false), v, edge_parameter(s, false)),
                       snapped_displacements(s, motion), s.time(1, kTimeSteps - 1));
        case 1:
            return hit("endpoint-edge-hit",
                       edges_through(q, u, edge_parameter(s, true), v, edge_parameter(s, false)),
                       snapped_displacements(s, motion), s.time());
        case 2:
            return hit("endpoint-endpoint-hit",
                       edges_through(q, u, edge_parameter(s, true), v, edge_parameter(s, true)),
                       snapped_displacements(s, motion), s.time());
        case 3: {  // approaching along the common normal, first touch at t = 1
            const Vec3 n = u.cross(v).normalized();
            const Vec3 body = snap(s.in_cube(motion));
            return hit(
                "touch-at-t1",
                edges_through(q, u, edge_parameter(s, s.coin()), v, edge_parameter(s, s.coin())),
                common_displacement(body + snap(-motion * n), body, 2), 1.0);
        }
        case 4:
            return hit(
                "start-in-contact",
                edges_through(q, u, edge_parameter(s, s.coin()), v, edge_parameter(s, s.coin())),
                snapped_displacements(s, motion), 0.0);
        case 5: {  // both on the x axis for all time, overlapping or end to end at contact
            const double la = size, lb = snap(s.uniform(0.25, 2.0));
            const double start = s.coin(0.3) ? (s.coin() ? la : -lb) : snap(s.uniform(0, la));
            const Stencil x = {Vec3(0, 0, 0), Vec3(la, 0, 0), Vec3(start, 0, 0),
                               Vec3(start + lb, 0, 0)};
            const Vec3 shared(0, snap(s.uniform(-motion, motion)),
                              snap(s.uniform(-motion, motion)));
            Stencil d;
            for (auto& y : d) y = shared + Vec3(snap(s.uniform(-motion, motion)), 0, 0);
            return hit("collinear-overlap-hit", x, d, s.time());
        }
        case 6: {  // parallel edges sliding past each other 2^-k apart
            const double h = s.power_of_two(4, 24);
            // Half of them directly above one another, where the gap is the 2^-k alone.
            const double y0 = s.coin() ? 0.0 : snap(s.uniform(-0.1, 0.1));
            const Vec3 b0(snap(s.uniform(-size, size)), y0, h);
            const Stencil x = {Vec3(-size, 0, 0), Vec3(size, 0, 0), b0,
                               b0 + Vec3(snap(s.uniform(0.25, 2.0)), 0, 0)};
            const double cz = snap(s.uniform(-motion, motion));
            const Vec3 da(snap(s.uniform(-motion, motion)), snap(s.uniform(-motion, motion)), cz);
            const Vec3 db(snap(s.uniform(-motion, motion)), snap(s.uniform(-motion, motion)), cz);
            return miss("parallel-miss", x, common_displacement(da, db, 2), up);
        }
        case 7: {  // crossing within the plane z = 0
            Vec3 up2 = u, vp2 = v;
            up2.z() = 0;
            vp2.z() = 0;
            Vec3 q2 = q;
            q2.z() = 0;
            if (up2.cross(vp2).norm() < 1e-3 * size * size) vp2 = Vec3(-up2.y(), up2.x(), 0);
            Stencil d = snapped_displacements(s, motion);
            for (auto& y : d) y.z() = 0;
            return hit("coplanar-cross-hit",
                       edges_through(q2, up2, edge_parameter(s, s.coin(0.2)), vp2,
                                     edge_parameter(s, s.coin(0.2))),
                       d, s.time());
        }
        case 8: {  // within z = 0, edge a at y >= 2^-k, edge b at y <= 0, moving only along x
            const double h = s.power_of_two(4, 24);
            const Stencil x = {Vec3(snap(s.uniform(-size, 0)), h, 0),
                               Vec3(snap(s.uniform(0, size)), h + snap(s.uniform(0, size)), 0),
                               Vec3(-size, 0, 0), Vec3(size, -snap(s.uniform(0, size)), 0)};
            Stencil d;
            for (auto& y : d) y = Vec3(snap(s.uniform(-motion, motion)), 0, 0);
            return miss("coplanar-miss", x, d, Vec3(0, 1, 0));
        }
        case 9: {  // edge a has zero length
            const Vec3 db = snap(s.in_cube(motion));
            Stencil d = common_displacement(snap(s.in_cube(motion)), db, 2);
            d[3] += snap(s.in_cube(motion));
            return hit("degenerate-edge-hit",
                       edges_through(q, Vec3::Zero(), 0.0, v, edge_parameter(s, s.coin(0.2))), d,
                       s.time());
        }
        case 10:
            return hit(
                "degenerate-both-hit", edges_through(q, Vec3::Zero(), 0.0, Vec3::Zero(), 0.0),
                common_displacement(snap(s.in_cube(motion)), snap(s.in_cube(motion)), 2), s.time());
        case 11: {  // a zero-length edge passing 2^-k above edge b
            const double h = s.power_of_two(4, 24);
            Vec3 vb = v;
            vb.z() = 0;
            const Vec3 p(snap(s.uniform(-size, size)), snap(s.uniform(-size, size)), h);
            const Stencil x = {p, p, Vec3(0, 0, 0), vb};
            const Vec3 da = snap(s.in_square(motion)), db = snap(s.in_square(motion));
            return miss("degenerate-miss", x, common_displacement(da, db, 2), up);
        }
        case 12: {
            const double h = s.power_of_two(4, 24);
            const Stencil x = {Vec3(-size, 0, 0), Vec3(size, 0, 0), Vec3(0, -size, h),
                               Vec3(0, size, h)};
            return miss("zero-motion-miss", x, no_motion(), up);
        }
        case 13:
            return hit("zero-motion-contact",
                       edges_through(q, u, edge_parameter(s, s.coin(0.3)), v,
                                     edge_parameter(s, s.coin(0.3))),
                       no_motion(), s.time());
        case 14: {  // nearly parallel (slope 2^-m) edges crossing, each only translating
            const double la = snap(s.uniform(0.5, 2.0), kCoarseGridBits);
            const double lb = snap(s.uniform(0.5, 2.0), kCoarseGridBits);
            const Vec3 a_dir(la, 0, 0), b_dir(lb, std::ldexp(lb, -s.integer(8, 24)), 0);
            const Vec3 qc = snap(s.in_cube(0.5), kCoarseGridBits);
            return hit(
                "near-parallel-cross-hit",
                edges_through(qc, a_dir, edge_parameter(s, false), b_dir, edge_parameter(s, false)),
                common_displacement(snap(s.in_cube(motion)), snap(s.in_cube(motion)), 2), s.time());
        }
        default: {  // nearly parallel edges 2^-k apart in z, each only translating
            const double h = s.power_of_two(4, 24);
            const double lb = snap(s.uniform(0.5, 2.0), kCoarseGridBits);
            const double y0 = s.coin() ? 0.0 : snap(s.uniform(-0.1, 0.1));
            const Stencil x = {Vec3(-size, 0, 0), Vec3(size, 0, 0), Vec3(-lb, y0, h),
                               Vec3(lb, y0 + std::ldexp(lb, -s.integer(8, 24)), h)};
            const double cz = snap(s.uniform(-motion, motion));
            const Vec3 da(snap(s.uniform(-motion, motion)), snap(s.uniform(-motion, motion)), cz);
            const Vec3 db(snap(s.uniform(-motion, motion)), snap(s.uniform(-motion, motion)), cz);
            return miss("near-parallel-miss", x, common_displacement(da, db, 2), up);
        }
    }
}
constexpr int kEdgeEdgeScenarios = 16;

// ---------------------------------------------------------------------------------------------
// Evidence.

Vec3 project_on_line(const Vec3& p, const Vec3& e0, const Vec3& e1) {
    const Vec3 e = e1 - e0;
    const double ee = e.squaredNorm();
    return ee > 0 ? Vec3(e0 + e * (e.dot(p - e0) / ee)) : e0;
}

// Normals that often separate two nearby primitives: the face normal or the common normal of
// the edges, and the direction between the closest points, at t = 0, 1/2 and 1.
std::vector<Vec3> candidate_normals(const CCDQuery& q) {
    std::vector<Vec3> normals;
    for (double t : {0.0, 0.5, 1.0}) {
        Stencil x;
        for (int i = 0; i < 4; ++i) x[i] = q.vertices[i] + t * (q.vertices[i + 4] - q.vertices[i]);
        if (q.type == CCDQueryType::VertexFace) {
            normals.push_back((x[2] - x[1]).cross(x[3] - x[1]));
            using T = PointTriangleDistanceType;
            switch (point_triangle_distance_type(x[0], x[1], x[2], x[3])) {
                case T::P_T0:
                    normals.push_back(x[0] - x[1]);
                    break;
                case T::P_T1:
                    normals.push_back(x[0] - x[2]);
                    break;
                case T::P_T2:
                    normals.push_back(x[0] - x[3]);
                    break;
                case T::P_E0:
                    normals.push_back(x[0] - project_on_line(x[0], x[1], x[2]));
                    break;
                case T::P_E1:
                    normals.push_back(x[0] - project_on_line(x[0], x[2], x[3]));
                    break;
                case T::P_E2:
                    normals.push_back(x[0] - project_on_line(x[0], x[3], x[1]));
                    break;
                case T::P_T:
                    break;
            }
        } else {
            normals.push_back((x[1] - x[0]).cross(x[3] - x[2]));
            using T = EdgeEdgeDistanceType;
            switch (edge_edge_distance_type(x[0], x[1], x[2], x[3])) {
                case T::EA0_EB0:
                    normals.push_back(x[0] - x[2]);
                    break;
                case T::EA0_EB1:
                    normals.push_back(x[0] - x[3]);
                    break;
                case T::EA1_EB0:
                    normals.push_back(x[1] - x[2]);
                    break;
                case T::EA1_EB1:
                    normals.push_back(x[1] - x[3]);
                    break;
                case T::EA_EB0:
                    normals.push_back(project_on_line(x[2], x[0], x[1]) - x[2]);
                    break;
                case T::EA_EB1:
                    normals.push_back(project_on_line(x[3], x[0], x[1]) - x[3]);
                    break;
                case T::EA0_EB:
                    normals.push_back(x[0] - project_on_line(x[0], x[2], x[3]));
                    break;
                case T::EA1_EB:
                    normals.push_back(x[1] - project_on_line(x[1], x[2], x[3]));
                    break;
                case T::EA_EB:
                    break;
            }
        }
    }
    return normals;
}

// Turns a construction into a query whose ground truth is proven; false if the proof fails.
bool prove(const Construction& c, CCDQueryType type, CCDQuery& q) {
    q = CCDQuery{};
    q.type = type;
    for (int i = 0; i < 4; ++i) {
        q.vertices[i] = c.at0[i];
        q.vertices[i + 4] = c.at1[i];
    }
    for (const Vec3& v : q.vertices)
        if (!v.allFinite()) return false;
    if (c.contact_time >= 0) {
        q.ground_truth = true;
        return primitives_touch_at(q, c.contact_time);
    }
    q.ground_truth = false;
    if (c.separating_normal != Vec3::Zero() && separated_by_moving_plane(q, c.separating_normal))
        return true;
    for (const Vec3& n : candidate_normals(q))
        if (n.allFinite() && separated_by_moving_plane(q, n)) return true;
    return false;
}

// A random signed permutation of the axes and a coarse translation: exact, and it keeps hard
// cases from all lying in the plane z = 0.
void reorient(Sampler& s, Construction& c) {
    std::array<int, 3> axes = {0, 1, 2};
    for (int k = 2; k > 0; --k) std::swap(axes[k], axes[s.integer(0, k)]);
    const Vec3 sign(s.coin() ? 1 : -1, s.coin() ? 1 : -1, s.coin() ? 1 : -1);
    const Vec3 shift = snap(s.in_cube(4.0), kCoarseGridBits);
    auto rotate = [&](const Vec3& v) {
        return Vec3(sign[0] * v[axes[0]], sign[1] * v[axes[1]], sign[2] * v[axes[2]]);
    };
    for (int i = 0; i < 4; ++i) {
        c.at0[i] = rotate(c.at0[i]) + shift;
        c.at1[i] = rotate(c.at1[i]) + shift;
    }
    c.separating_normal = rotate(c.separating_normal);
}

}  // namespace

std::string_view to_string(CCDQueryKind kind) {
    return kind == CCDQueryKind::Ordinary ? "ordinary" : "hard";
}

CCDQueryKind parse_ccd_query_kind(std::string_view text) {
    if (text == "ordinary") return CCDQueryKind::Ordinary;
    if (text == "hard") return CCDQueryKind::Hard;
    throw InputError("unknown CCD query kind '" + std::string(text) +
                     "' (expected ordinary or hard)");
}

std::vector<GeneratedCCDQuery> generate_ccd_queries(CCDQueryType type, CCDQueryKind kind,
                                                    long count, std::uint64_t seed) {
    if (count < 0) throw InputError("CCD query count " + std::to_string(count) + " is negative");
    Sampler s(seed);
    const bool vf = type == CCDQueryType::VertexFace;
    std::vector<GeneratedCCDQuery> out;
    out.reserve(static_cast<std::size_t>(count));
    for (long k = 0; k < count; ++k) {
        const bool ordinary_hit = kind == CCDQueryKind::Ordinary && s.coin(0.15);
        const int scenario = kind == CCDQueryKind::Hard
                                 ? static_cast<int>(s.integer(
                                       0, (vf ? kVertexFaceScenarios : kEdgeEdgeScenarios) - 1))
                                 : 0;
        GeneratedCCDQuery g;
        bool proven = false;
        for (int attempt = 0; attempt < kMaxAttempts && !proven; ++attempt) {
            Construction c;
            if (kind == CCDQueryKind::Hard) {
                c = vf ? vf_hard(s, scenario) : ee_hard(s, scenario);
                reorient(s, c);
            } else if (ordinary_hit) {
                c = vf ? vf_ordinary_hit(s) : ee_ordinary_hit(s);
            } else {
                c = vf ? vf_ordinary_near(s) : ee_ordinary_near(s);
            }
            proven = prove(c, type, g.query);
            g.contact_time = c.contact_time;
            g.scenario = c.scenario;
        }
        if (!proven)
            throw std::logic_error("CCD query generator: no provable query for scenario " +
                                   std::string(g.scenario));
        out.push_back(g);
    }
    return out;
}

}  // namespace concord
