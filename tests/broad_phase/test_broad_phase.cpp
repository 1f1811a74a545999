#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>

#include "broad_phase/random_scene.hpp"
#include "concord/collision/broad_phase/broad_phase.hpp"
#include "concord/collision/broad_phase/brute_force.hpp"
#include "concord/geometry/primitives.hpp"
#include "concord/math/error.hpp"

using namespace concord;
using concord::test::Scene;

namespace {

constexpr BroadPhaseMethod kMethods[] = {BroadPhaseMethod::lbvh, BroadPhaseMethod::sweep_and_prune};

const char* name(BroadPhaseMethod m) {
    return m == BroadPhaseMethod::lbvh ? "lbvh" : "sap";
}

// Structural contract: sorted, unique, ordered edge pairs, never one body.
void expect_well_formed(const Scene& s, const Candidates& c) {
    EXPECT_TRUE(std::is_sorted(c.point_triangle.begin(), c.point_triangle.end()));
    EXPECT_TRUE(std::is_sorted(c.edge_edge.begin(), c.edge_edge.end()));
    EXPECT_EQ(std::adjacent_find(c.point_triangle.begin(), c.point_triangle.end()),
              c.point_triangle.end());
    EXPECT_EQ(std::adjacent_find(c.edge_edge.begin(), c.edge_edge.end()), c.edge_edge.end());
    for (const auto& pt : c.point_triangle)
        ASSERT_NE(s.mesh.vertex_body[static_cast<std::size_t>(pt.vertex)],
                  s.mesh.face_body[static_cast<std::size_t>(pt.face)]);
    for (const auto& ee : c.edge_edge) {
        ASSERT_LT(ee.edge_a, ee.edge_b);
        ASSERT_NE(s.mesh.edge_body[static_cast<std::size_t>(ee.edge_a)],
                  s.mesh.edge_body[static_cast<std::size_t>(ee.edge_b)]);
    }
}

void expect_same(const Candidates& a, const Candidates& b, const std::string& what) {
    EXPECT_EQ(a.point_triangle, b.point_triangle) << what;
    EXPECT_EQ(a.edge_edge, b.edge_edge) << what;
}

// Upper bound on the distance between a point and a triangle (or two segments): the minimum
// over a dense barycentric sampling. A pair whose bound is below dhat is truly within dhat.
double sampled_point_triangle_distance(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
    constexpr int kSamples = 24;
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i <= kSamples; ++i)
        for (int j = 0; i + j <= kSamples; ++j) {
            const double u = double(i) / kSamples, v = double(j) / kSamples;
            best = std::min(best, (p - (a + u * (b - a) + v * (c - a))).norm());
        }
    return best;
}

double sampled_segment_distance(const Vec3& a0, const Vec3& a1, const Vec3& b0, const Vec3& b1) {
    constexpr int kSamples = 32;
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i <= kSamples; ++i)
        for (int j = 0; j <= kSamples; ++j) {
            const double s = double(i) / kSamples, t = double(j) / kSamples;
            best = std::min(best, ((a0 + s * (a1 - a0)) - (b0 + t * (b1 - b0))).norm());
        }
    return best;
}

}  // namespace

TEST(BroadPhase, MatchesBruteForceOnRandomScenes) {
    std::size_t total_pt = 0, total_ee = 0;
    BroadPhase reused;
    for (int seed = 0; seed < 300; ++seed) {
        std::mt19937 rng(static_cast<unsigned>(seed));
        const Scene s = test::random_scene(rng);
        BroadPhaseParams params;
        params.dhat = std::array<double, 4>{0.0, 1e-3, 0.05, 0.3}[seed % 4];
        const Candidates expected = brute_force_candidates(s.mesh, s.x0, s.x1, params);
        total_pt += expected.point_triangle.size();
        total_ee += expected.edge_edge.size();
        for (const BroadPhaseMethod method : kMethods) {
            params.method = method;
            const Candidates found = find_candidates(s.mesh, s.x0, s.x1, params);
            expect_well_formed(s, found);
            expect_same(found, expected,
                        std::string(name(method)) + " seed " + std::to_string(seed));
            // One object across scenes of changing sizes: reused buffers must not leak state.
            expect_same(reused.find(s.mesh, s.x0, s.x1, params), expected, "reused");
        }
    }
    // Guards against a vacuous comparison of empty sets.
    EXPECT_GT(total_pt, 1000u);
    EXPECT_GT(total_ee, 1000u);
}

TEST(BroadPhase, MatchesBruteForceOnALargerScene) {
    std::mt19937 rng(11);
    const Scene s = test::large_random_scene(rng, 150);
    BroadPhaseParams params;
    params.dhat = 0.01;
    const Candidates expected = brute_force_candidates(s.mesh, s.x0, s.x1, params);
    ASSERT_GT(expected.size(), 1000u);
    for (const BroadPhaseMethod method : kMethods) {
        params.method = method;
        expect_same(find_candidates(s.mesh, s.x0, s.x1, params), expected, name(method));
    }
}

// A container around a pile: its box holds every other body, its parts (runs of its
// triangles) only the bodies near its walls. The trees keep only primitives that can pair, and
// the candidates are the brute force's.
TEST(BroadPhase, AContainerKeepsOnlyTheBodiesNearItsWalls) {
    Scene s;
    std::vector<Vec3> x0, x1;
    auto add = [&](const TriMesh& m, const Vec3& at, const Vec3& move) {
        const int body = s.mesh.vertex_body.empty() ? 0 : s.mesh.vertex_body.back() + 1;
        for (Eigen::Index v = 0; v < m.vertices.rows(); ++v) {
            x0.push_back(Vec3(m.vertices.row(v)) + at);
            x1.push_back(x0.back() + move);
        }
        append_body(s.mesh, body, static_cast<int>(m.vertices.rows()), m.faces, m.edges);
    };
    // Inner size 2 x 1 x 2, floor top at y = 0, walls at x, z = +-1.
    add(open_box_container(Vec3(2.0, 1.0, 2.0), 0.1), Vec3(0.0, 0.55, 0.0),
        Vec3::Zero());
    const TriMesh ball = icosphere(0.1, 1);
    int near_wall = 0, inside = 0;
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 2; ++j)
            for (int k = 0; k < 5; ++k) {
                const Vec3 at(-0.88 + 0.44 * i, 0.1 + 0.3 * j, -0.88 + 0.44 * k);
                add(ball, at, Vec3(0.0, -0.02, 0.0));
                const bool wall = i == 0 || i == 4 || k == 0 || k == 4 || j == 0;
                near_wall += wall;
                inside += !wall;
            }
    ASSERT_GT(inside, 0);
    const auto n = static_cast<Eigen::Index>(x0.size());
    s.x0.resize(n, 3);
    s.x1.resize(n, 3);
    for (Eigen::Index v = 0; v < n; ++v) {
        s.x0.row(v) = x0[static_cast<std::size_t>(v)];
        s.x1.row(v) = x1[static_cast<std::size_t>(v)];
    }
    BroadPhaseParams params;
    params.dhat = 0.03;
    const Candidates expected = brute_force_candidates(s.mesh, s.x0, s.x1, params);
    ASSERT_GT(expected.size(), 100u);
    BroadPhase broad_phase;
    expect_same(broad_phase.find(s.mesh, s.x0, s.x1, params), expected, "container");
    // The balls of the upper layer away from the walls are 0.14 m apart: none of their
    // primitives can pair, and the body boxes alone (the container's holds them) kept them
    // all. Nor may parts of the container's edges that mix walls (each edge of a wall spans
    // it): that kept every ball's edges.
    auto bodies_of = [](std::span<const int> active, const std::vector<int>& body_of) {
        std::set<int> bodies;
        for (int i : active) bodies.insert(body_of[static_cast<std::size_t>(i)]);
        return bodies.size();
    };
    const auto most = static_cast<std::size_t>(1 + near_wall);
    EXPECT_LE(bodies_of(broad_phase.active_faces(), s.mesh.face_body), most);
    EXPECT_LE(bodies_of(broad_phase.active_edges(), s.mesh.edge_body), most);
    EXPECT_LE(bodies_of(broad_phase.active_vertices(), s.mesh.vertex_body), most);
    EXPECT_LT(broad_phase.active_faces().size(), static_cast<std::size_t>(s.mesh.num_faces()) / 2);
    EXPECT_LT(broad_phase.active_edges().size(), static_cast<std::size_t>(s.mesh.num_edges()) / 2);
}

TEST(BroadPhase, SameResultOnOneAndTwoThreads) {
    std::mt19937 rng(12);
    const Scene s = test::large_random_scene(rng, 2000);
    ASSERT_GT(s.mesh.num_faces(), 20000);
    for (const BroadPhaseMethod method : kMethods) {
        BroadPhaseParams params;
        params.dhat = 0.01;
        params.method = method;
        auto run = [&](int threads) {
            tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
            return find_candidates(s.mesh, s.x0, s.x1, params);
        };
        const Candidates one = run(1), two = run(2);
        ASSERT_GT(one.size(), 10000u);
        expect_well_formed(s, two);
        expect_same(one, two, name(method));
        expect_same(run(2), two, std::string(name(method)) + " repeated");
    }
}

TEST(BroadPhase, FindsEveryPairThatComesWithinDhat) {
    // Two unit-sized bodies flying past each other; pairs within dhat at any sampled time of
    // the step must be candidates.
    const double dhat = 0.2;
    int checked_pt = 0, checked_ee = 0, missed_by_half_inflation = 0;
    for (int seed = 0; seed < 40; ++seed) {
        std::mt19937 rng(1000u + static_cast<unsigned>(seed));
        const Scene s = test::random_scene(
            rng,
            {.min_bodies = 2, .max_bodies = 3, .max_vertices_per_body = 10, .world_size = 1.0});
        BroadPhaseParams params;
        params.dhat = dhat;
        const Candidates found = find_candidates(s.mesh, s.x0, s.x1, params);
        params.dhat = dhat / 2;
        const Candidates narrower = find_candidates(s.mesh, s.x0, s.x1, params);
        const std::set<PointTriangleCandidate> pt(found.point_triangle.begin(),
                                                  found.point_triangle.end());
        const std::set<EdgeEdgeCandidate> ee(found.edge_edge.begin(), found.edge_edge.end());
        const std::set<PointTriangleCandidate> pt_narrow(narrower.point_triangle.begin(),
                                                         narrower.point_triangle.end());
        for (int step = 0; step <= 10; ++step) {
            const double t = step / 10.0;
            const Vertices x = (1 - t) * s.x0 + t * s.x1;
            for (int v = 0; v < s.mesh.num_vertices(); ++v)
                for (int f = 0; f < s.mesh.num_faces(); ++f) {
                    if (s.mesh.vertex_body[static_cast<std::size_t>(v)] ==
                        s.mesh.face_body[static_cast<std::size_t>(f)])
                        continue;
                    const auto face = s.mesh.faces.row(f);
                    const double d = sampled_point_triangle_distance(
                        x.row(v), x.row(face[0]), x.row(face[1]), x.row(face[2]));
                    if (d >= dhat) continue;
                    ++checked_pt;
                    ASSERT_TRUE(pt.count({v, f}))
                        << "seed " << seed << " v " << v << " f " << f << " t " << t << " d " << d;
                    if (d > 0.8 * dhat && !pt_narrow.count({v, f})) ++missed_by_half_inflation;
                }
            for (int a = 0; a < s.mesh.num_edges(); ++a)
                for (int b = a + 1; b < s.mesh.num_edges(); ++b) {
                    if (s.mesh.edge_body[static_cast<std::size_t>(a)] ==
                        s.mesh.edge_body[static_cast<std::size_t>(b)])
                        continue;
                    const auto ea = s.mesh.edges.row(a), eb = s.mesh.edges.row(b);
                    const double d = sampled_segment_distance(x.row(ea[0]), x.row(ea[1]),
                                                              x.row(eb[0]), x.row(eb[1]));
                    if (d >= dhat) continue;
                    ++checked_ee;
                    ASSERT_TRUE(ee.count({a, b})) << "seed " << seed << " edges " << a << " " << b
                                                  << " t " << t << " d " << d;
                }
        }
    }
    EXPECT_GT(checked_pt, 200);
    EXPECT_GT(checked_ee, 200);
    // The check is sharp enough to notice an inflation of only dhat/4 per box.
    EXPECT_GT(missed_by_half_inflation, 0);
}

TEST(BroadPhase, InflationIsHalfDhatPerBoxAlongAnAxis) {
    // A vertex of body 1 at distance d above a horizontal triangle of body 0.
    CollisionMesh mesh;
    Faces tri(1, 3);
    tri << 0, 1, 2;
    append_body(mesh, 0, 3, tri);
    append_body(mesh, 1, 1, Faces(0, 3));
    const double dhat = 0.1;
    for (const double factor : {0.0, 0.5, 0.999, 1.001, 2.0}) {
        Vertices x(4, 3);
        x << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0.2, 0.2, factor * dhat;
        BroadPhaseParams params;
        params.dhat = dhat;
        const Candidates c = find_candidates(mesh, x, x, params);
        EXPECT_EQ(c.point_triangle.size(), factor < 1 ? 1u : 0u) << factor;
    }
}

TEST(BroadPhase, FindsAVertexThatPassesThroughATriangleDuringTheStep) {
    CollisionMesh mesh;
    Faces tri(1, 3);
    tri << 0, 1, 2;
    append_body(mesh, 0, 3, tri);
    append_body(mesh, 1, 1, Faces(0, 3));
    Vertices x0(4, 3), x1(4, 3);
    x0 << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0.2, 0.2, 1;
    x1 = x0;
    x1.row(3) << 0.2, 0.2, -1;
    BroadPhaseParams params;
    params.dhat = 0;
    EXPECT_EQ(find_candidates(mesh, x0, x1, params).point_triangle,
              (std::vector<PointTriangleCandidate>{{3, 0}}));
    EXPECT_TRUE(find_candidates(mesh, x0, x0, params).point_triangle.empty());
}

TEST(BroadPhase, BodyPairFilterSkipsStaticPairs) {
    int removed = 0, kept_with_static = 0;
    for (int seed = 0; seed < 60; ++seed) {
        std::mt19937 rng(2000u + static_cast<unsigned>(seed));
        const Scene s = test::random_scene(rng, {.min_bodies = 3, .max_bodies = 6});
        BroadPhaseParams params;
        params.dhat = 0.3;
        const Candidates all = find_candidates(s.mesh, s.x0, s.x1, params);
        const std::vector<std::uint8_t> is_static{1, 1, 0, 1};  // bodies 0, 1, 3 static
        auto both_static = [&](int a, int b) {
            auto st = [&](int body) {
                return body < 4 && is_static[static_cast<std::size_t>(body)];
            };
            return st(a) && st(b);
        };
        Candidates expected;
        for (const auto& pt : all.point_triangle) {
            const int a = s.mesh.vertex_body[static_cast<std::size_t>(pt.vertex)];
            const int b = s.mesh.face_body[static_cast<std::size_t>(pt.face)];
            if (both_static(a, b)) {
                ++removed;
            } else {
                expected.point_triangle.push_back(pt);
                kept_with_static += is_static[static_cast<std::size_t>(std::min(a, 3))] && a != 2;
            }
        }
        for (const auto& ee : all.edge_edge) {
            const int a = s.mesh.edge_body[static_cast<std::size_t>(ee.edge_a)];
            const int b = s.mesh.edge_body[static_cast<std::size_t>(ee.edge_b)];
            if (both_static(a, b))
                ++removed;
            else
                expected.edge_edge.push_back(ee);
        }
        params.body_pair_filter = skip_static_pairs(is_static);
        for (const BroadPhaseMethod method : kMethods) {
            params.method = method;
            expect_same(find_candidates(s.mesh, s.x0, s.x1, params), expected, name(method));
        }
        expect_same(brute_force_candidates(s.mesh, s.x0, s.x1, params), expected, "brute force");
    }
    EXPECT_GT(removed, 100);
    EXPECT_GT(kept_with_static, 100);
}

TEST(BroadPhase, FilterSeesOrderedBodyPairs) {
    // An asymmetric filter: only (body of vertex or first edge) < (body of face or second edge).
    std::mt19937 rng(3000);
    const Scene s = test::random_scene(rng, {.min_bodies = 4, .max_bodies = 4});
    BroadPhaseParams params;
    params.dhat = 0.5;
    params.body_pair_filter = [](int a, int b) { return a < b; };
    const Candidates expected = brute_force_candidates(s.mesh, s.x0, s.x1, params);
    ASSERT_GT(expected.size(), 0u);
    for (const auto& pt : expected.point_triangle)
        EXPECT_LT(s.mesh.vertex_body[static_cast<std::size_t>(pt.vertex)],
                  s.mesh.face_body[static_cast<std::size_t>(pt.face)]);
    for (const BroadPhaseMethod method : kMethods) {
        params.method = method;
        expect_same(find_candidates(s.mesh, s.x0, s.x1, params), expected, name(method));
    }
}

TEST(BroadPhase, EmptyInputs) {
    for (const BroadPhaseMethod method : kMethods) {
        BroadPhaseParams params;
        params.method = method;
        const Vertices none(0, 3);
        EXPECT_EQ(find_candidates(CollisionMesh{}, none, none, params).size(), 0u);

        // Vertices but no faces or edges; and a single body, which never pairs with itself.
        CollisionMesh points;
        append_body(points, 0, 3, Faces(0, 3));
        append_body(points, 1, 3, Faces(0, 3));
        const Vertices x = Vertices::Zero(6, 3);
        EXPECT_EQ(find_candidates(points, x, x, params).size(), 0u);

        CollisionMesh single;
        Faces tris(2, 3);
        tris << 0, 1, 2, 1, 2, 3;
        append_body(single, 0, 4, tris);
        EXPECT_EQ(
            find_candidates(single, Vertices::Zero(4, 3), Vertices::Zero(4, 3), params).size(), 0u);
    }
}

TEST(BroadPhase, RejectsBadInput) {
    CollisionMesh mesh;
    Faces tri(1, 3);
    tri << 0, 1, 2;
    append_body(mesh, 0, 3, tri);
    append_body(mesh, 1, 3, tri);
    const Vertices x = Vertices::Random(6, 3);
    BroadPhaseParams params;
    EXPECT_NO_THROW(find_candidates(mesh, x, x, params));
    EXPECT_THROW(find_candidates(mesh, x, Vertices::Random(5, 3), params), InputError);
    Vertices bad = x;
    bad(4, 1) = std::numeric_limits<double>::quiet_NaN();
    try {
        find_candidates(mesh, x, bad, params);
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("vertex 4"), std::string::npos) << e.what();
    }
    params.dhat = -1;
    EXPECT_THROW(find_candidates(mesh, x, x, params), InputError);
    params.dhat = std::numeric_limits<double>::infinity();
    EXPECT_THROW(brute_force_candidates(mesh, x, x, params), InputError);
    params.dhat = 0.1;
    CollisionMesh broken = mesh;
    broken.faces(1, 2) = 1;  // face of body 1 using a vertex of body 0
    EXPECT_THROW(find_candidates(broken, x, x, params), InputError);
}
