#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "audit/exact_reference.hpp"
#include "concord/collision/audit/exact_predicates.hpp"
#include "concord/math/error.hpp"

using namespace concord;
using concord::test::reference_orient2d;
using concord::test::reference_orient3d;
using concord::test::reference_plane_side;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Vec3 random_point(std::mt19937& rng, double scale = 1.0) {
    std::uniform_real_distribution<double> u(-scale, scale);
    return Vec3(u(rng), u(rng), u(rng));
}

Vec3 random_integer_point(std::mt19937& rng, int range) {
    std::uniform_int_distribution<int> u(-range, range);
    return Vec3(u(rng), u(rng), u(rng));
}

// Moves x by `steps` units in the last place (negative: downwards).
double ulps(double x, int steps) {
    for (; steps > 0; --steps) x = std::nextafter(x, kInf);
    for (; steps < 0; ++steps) x = std::nextafter(x, -kInf);
    return x;
}

// Checks the full predicate and, when it decides, the filter alone against the GMP reference.
// Returns whether the filter decided.
bool check_orient3d(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
    const int expected = reference_orient3d(a, b, c, d);
    EXPECT_EQ(orient3d(a, b, c, d), expected) << "a=" << a.transpose() << " b=" << b.transpose()
                                              << " c=" << c.transpose() << " d=" << d.transpose();
    const auto filtered = orient3d_filtered(a, b, c, d);
    if (filtered) {
        EXPECT_EQ(*filtered, expected) << "filter wrong";
    }
    return filtered.has_value();
}

bool check_orient2d(const Vec2& a, const Vec2& b, const Vec2& c) {
    const int expected = reference_orient2d(a, b, c);
    EXPECT_EQ(orient2d(a, b, c), expected)
        << "a=" << a.transpose() << " b=" << b.transpose() << " c=" << c.transpose();
    const auto filtered = orient2d_filtered(a, b, c);
    if (filtered) {
        EXPECT_EQ(*filtered, expected) << "filter wrong";
    }
    return filtered.has_value();
}

bool check_plane_side(const Vec3& p, const Vec3& o, const Vec3& n) {
    const int expected = reference_plane_side(p, o, n);
    EXPECT_EQ(plane_side(p, o, n), expected)
        << "p=" << p.transpose() << " o=" << o.transpose() << " n=" << n.transpose();
    const auto filtered = plane_side_filtered(p, o, n);
    if (filtered) {
        EXPECT_EQ(*filtered, expected) << "filter wrong";
    }
    return filtered.has_value();
}

}  // namespace

TEST(Orient3d, ConventionOnUnitTetrahedron) {
    const Vec3 o(0, 0, 0), x(1, 0, 0), y(0, 1, 0);
    // Counter-clockwise xy-triangle seen from +z: its normal points up.
    EXPECT_EQ(orient3d(o, x, y, Vec3(0.2, 0.2, 1)), 1);
    EXPECT_EQ(orient3d(o, x, y, Vec3(0.2, 0.2, -1)), -1);
    EXPECT_EQ(orient3d(o, x, y, Vec3(5, -7, 0)), 0);
    EXPECT_EQ(orient3d(o, y, x, Vec3(0.2, 0.2, 1)), -1);
}

TEST(Orient3d, MatchesReferenceOnRandomPointsAndFilterDecidesThem) {
    std::mt19937 rng(11);
    int decided = 0;
    const int trials = 2000;
    for (int t = 0; t < trials; ++t)
        decided += check_orient3d(random_point(rng), random_point(rng), random_point(rng),
                                  random_point(rng));
    EXPECT_GE(decided, trials * 99 / 100);
}

TEST(Orient3d, ExactlyCoplanarIsZeroAtEveryScale) {
    std::mt19937 rng(12);
    std::uniform_int_distribution<int> coef(-5, 5);
    for (int t = 0; t < 300; ++t) {
        const Vec3 a = random_integer_point(rng, 1000), b = random_integer_point(rng, 1000),
                   c = random_integer_point(rng, 1000);
        const Vec3 d = a + coef(rng) * (b - a) + coef(rng) * (c - a);  // exact: small integers
        for (int e : {-1000, -300, -60, 0, 60, 300, 1000}) {
            const double s = std::ldexp(1.0, e);
            EXPECT_EQ(orient3d(s * a, s * b, s * c, s * d), 0) << "scale 2^" << e;
        }
        // A translation by a power of two is also exact for these small integers.
        const Vec3 shift = Vec3::Constant(std::ldexp(1.0, 30));
        EXPECT_EQ(orient3d(a + shift, b + shift, c + shift, d + shift), 0);
    }
    // Repeated and collinear points.
    const Vec3 p(0.1, 0.2, 0.3), q(0.7, -0.4, 1e-3);
    EXPECT_EQ(orient3d(p, p, q, Vec3(1, 2, 3)), 0);
    EXPECT_EQ(orient3d(p, q, p, Vec3(1, 2, 3)), 0);
    EXPECT_EQ(orient3d(p, q, Vec3(2, 2, 2), q), 0);
}

TEST(Orient3d, OneUlpFromCoplanarMatchesReference) {
    std::mt19937 rng(13);
    std::uniform_real_distribution<double> u(-1.0, 2.0);
    int positive = 0, negative = 0, zero = 0, undecided = 0;
    for (int t = 0; t < 200; ++t) {
        const Vec3 a = random_point(rng), b = random_point(rng), c = random_point(rng);
        // Rounded, so only nearly coplanar; the ulp steps then straddle the plane.
        const Vec3 d0 = a + u(rng) * (b - a) + u(rng) * (c - a);
        for (int k = 0; k < 3; ++k)
            for (int step = -2; step <= 2; ++step) {
                Vec3 d = d0;
                d[k] = ulps(d[k], step);
                undecided += !check_orient3d(a, b, c, d);
                const int s = reference_orient3d(a, b, c, d);
                (s > 0 ? positive : s < 0 ? negative : zero)++;
            }
    }
    // The set really is adversarial: both signs occur and the filter has to hand over.
    EXPECT_GT(positive, 0);
    EXPECT_GT(negative, 0);
    EXPECT_GT(undecided, 100);
}

TEST(Orient3d, OneUlpFromExactlyCoplanarIntegersMatchesReference) {
    std::mt19937 rng(14);
    std::uniform_int_distribution<int> coef(-3, 3);
    for (int t = 0; t < 200; ++t) {
        const Vec3 a = random_integer_point(rng, 50), b = random_integer_point(rng, 50),
                   c = random_integer_point(rng, 50);
        if (reference_orient3d(a, b, c, a + Vec3(0, 0, 1)) == 0 &&
            reference_orient3d(a, b, c, a + Vec3(1, 0, 0)) == 0 &&
            reference_orient3d(a, b, c, a + Vec3(0, 1, 0)) == 0)
            continue;  // collinear a, b, c: every point is coplanar with them
        const Vec3 d = a + coef(rng) * (b - a) + coef(rng) * (c - a);
        ASSERT_EQ(orient3d(a, b, c, d), 0);
        for (int k = 0; k < 3; ++k)
            for (int step : {-1, 1}) {
                Vec3 e = d;
                e[k] = ulps(e[k], step);
                check_orient3d(a, b, c, e);
            }
    }
}

TEST(Orient3d, ExtremeMagnitudesMatchReference) {
    std::mt19937 rng(15);
    std::uniform_int_distribution<int> exponent(-1070, 1020);
    std::uniform_int_distribution<int> coin(0, 1);
    std::uniform_real_distribution<double> mantissa(1.0, 2.0);
    auto wild = [&] {
        Vec3 p;
        for (int k = 0; k < 3; ++k)
            p[k] = (coin(rng) ? 1 : -1) * std::ldexp(mantissa(rng), exponent(rng));
        return p;
    };
    for (int t = 0; t < 300; ++t) check_orient3d(wild(), wild(), wild(), wild());
    // Same-magnitude clusters far from 1, where the filter's range guard has to hand over.
    for (int e : {-1060, -700, -320, 330, 700, 1000}) {
        const double s = std::ldexp(1.0, e);
        for (int t = 0; t < 20; ++t)
            check_orient3d(s * random_point(rng), s * random_point(rng), s * random_point(rng),
                           s * random_point(rng));
    }
    // Differences that overflow a double.
    const double big = std::numeric_limits<double>::max();
    check_orient3d(Vec3(big, 0, 0), Vec3(-big, 0, 0), Vec3(0, big, 0), Vec3(0, 0, -big));
    check_orient3d(Vec3(big, big, big), Vec3(-big, big, -big), Vec3(big, -big, 0), Vec3(1, 2, 3));
}

TEST(Orient3d, SwappingTwoPointsFlipsTheSign) {
    std::mt19937 rng(16);
    for (int t = 0; t < 200; ++t) {
        const Vec3 a = random_point(rng), b = random_point(rng), c = random_point(rng);
        const Vec3 d = 0.5 * (a + b) + 1e-17 * random_point(rng);  // nearly collinear-ish
        const int s = orient3d(a, b, c, d);
        EXPECT_EQ(orient3d(b, a, c, d), -s);
        EXPECT_EQ(orient3d(a, b, d, c), -s);
        EXPECT_EQ(orient3d(b, c, d, a), -s);  // odd permutation of (a, b, c, d)
    }
}

TEST(Orient3d, NonFiniteInputRaisesInputError) {
    const Vec3 o(0, 0, 0), x(1, 0, 0), y(0, 1, 0);
    EXPECT_THROW(orient3d(o, x, y, Vec3(0, 0, std::nan(""))), InputError);
    EXPECT_THROW(orient3d(o, x, y, Vec3(kInf, 0, 1)), InputError);
    EXPECT_THROW(orient2d(Vec2(0, 0), Vec2(1, 0), Vec2(0, -kInf)), InputError);
    EXPECT_THROW(plane_side(Vec3(0, 0, 0), Vec3(0, 0, 0), Vec3(0, std::nan(""), 1)), InputError);
}

TEST(Orient2d, ConventionAndRandomAgreement) {
    EXPECT_EQ(orient2d(Vec2(0, 0), Vec2(1, 0), Vec2(0, 1)), 1);
    EXPECT_EQ(orient2d(Vec2(0, 0), Vec2(0, 1), Vec2(1, 0)), -1);
    EXPECT_EQ(orient2d(Vec2(0, 0), Vec2(1, 1), Vec2(3, 3)), 0);
    std::mt19937 rng(21);
    std::uniform_real_distribution<double> u(-1, 1);
    int decided = 0;
    for (int t = 0; t < 2000; ++t)
        decided += check_orient2d(Vec2(u(rng), u(rng)), Vec2(u(rng), u(rng)), Vec2(u(rng), u(rng)));
    EXPECT_GE(decided, 1980);
}

TEST(Orient2d, NearAndExactlyCollinear) {
    std::mt19937 rng(22);
    std::uniform_real_distribution<double> u(-1, 1);
    std::uniform_int_distribution<int> ui(-1000, 1000), coef(-4, 4);
    int undecided = 0;
    for (int t = 0; t < 300; ++t) {
        const Vec2 a(u(rng), u(rng)), b(u(rng), u(rng));
        const Vec2 c0 = a + 3.0 * u(rng) * (b - a);
        for (int k = 0; k < 2; ++k)
            for (int step = -2; step <= 2; ++step) {
                Vec2 c = c0;
                c[k] = ulps(c[k], step);
                undecided += !check_orient2d(a, b, c);
            }
        const Vec2 p(ui(rng), ui(rng)), q(ui(rng), ui(rng));
        const Vec2 r = p + coef(rng) * (q - p);
        for (int e : {-1060, -500, 0, 500, 1000}) {
            const double s = std::ldexp(1.0, e);
            EXPECT_EQ(orient2d(s * p, s * q, s * r), 0);
        }
        for (int step : {-1, 1}) {
            Vec2 r1 = r;
            r1.y() = ulps(r1.y(), step);
            check_orient2d(p, q, r1);
        }
    }
    EXPECT_GT(undecided, 100);
}

TEST(PlaneSide, ConventionAndRandomAgreement) {
    EXPECT_EQ(plane_side(Vec3(0, 2, 0), Vec3(0, 1, 0), Vec3(0, 1, 0)), 1);
    EXPECT_EQ(plane_side(Vec3(3, 1, -4), Vec3(0, 1, 0), Vec3(0, 1, 0)), 0);
    EXPECT_EQ(plane_side(Vec3(0, 0.5, 0), Vec3(0, 1, 0), Vec3(0, 1, 0)), -1);
    std::mt19937 rng(31);
    int decided = 0;
    for (int t = 0; t < 2000; ++t)
        decided +=
            check_plane_side(random_point(rng), random_point(rng), random_point(rng).normalized());
    EXPECT_GE(decided, 1980);
}

TEST(PlaneSide, OnAndOneUlpOffTiltedPlanes) {
    std::mt19937 rng(32);
    std::uniform_int_distribution<int> coef(-100, 100);
    // Integer normal with two integer tangents: points o + i t1 + j t2 are exactly on the plane.
    const Vec3 n(1, 2, 3), t1(2, -1, 0), t2(3, 0, -1);
    int undecided = 0;
    for (int t = 0; t < 300; ++t) {
        const Vec3 o = random_integer_point(rng, 1000);
        const Vec3 p = o + coef(rng) * t1 + coef(rng) * t2;
        for (int e : {-1000, -400, 0, 400, 900}) {
            const double s = std::ldexp(1.0, e);
            EXPECT_EQ(plane_side(s * p, s * o, n), 0);
            EXPECT_EQ(plane_side(s * p, s * o, s * n), 0);
        }
        for (int k = 0; k < 3; ++k)
            for (int step : {-1, 1}) {
                Vec3 q = p;
                q[k] = ulps(q[k], step);
                EXPECT_EQ(plane_side(q, o, n), step * (n[k] > 0 ? 1 : -1));
                check_plane_side(q, o, n);
            }
        // A unit (hence rounded) normal and a nearly-on-plane point.
        const Vec3 un = random_point(rng).normalized();
        const Vec3 tangent = un.cross(random_point(rng));
        const Vec3 near = o + 1e3 * tangent;
        for (int step = -2; step <= 2; ++step) {
            Vec3 q = near;
            q.z() = ulps(q.z(), step);
            undecided += !check_plane_side(q, o, un);
        }
    }
    EXPECT_GT(undecided, 50);
}
