// EnvelopeBroadPhase: the cached-envelope answers equal a fresh query, bit for bit, over a
// sequence of Newton-like segments, and most queries reuse the envelope.
#include <gtest/gtest.h>

#include <Eigen/Geometry>

#include <limits>
#include <random>
#include <stdexcept>

#include "broad_phase/random_scene.hpp"
#include "concord/collision/broad_phase/body_parts.hpp"
#include "concord/collision/broad_phase/brute_force.hpp"
#include "concord/collision/broad_phase/collision_mesh.hpp"
#include "concord/collision/broad_phase/envelope_broad_phase.hpp"
#include "concord/geometry/primitives.hpp"
#include "concord/math/error.hpp"

using namespace concord;
using concord::test::Scene;

TEST(EnvelopeBroadPhase, MatchesAFreshQueryAlongShrinkingSegments) {
    EnvelopeBroadPhase envelope;
    std::size_t total = 0;
    int queries = 0;
    for (int seed = 0; seed < 60; ++seed) {
        std::mt19937 rng(static_cast<unsigned>(seed));
        const Scene s = test::random_scene(rng);
        BroadPhaseParams params;
        params.dhat = std::array<double, 3>{0.0, 1e-3, 0.05}[seed % 3];
        envelope.reset();  // a new mesh object may reuse the old one's address
        // Newton-like: from x, a step towards x1 of shrinking length, accepted halfway.
        Vertices x = s.x0;
        for (int k = 0; k < 6; ++k) {
            const Vertices step = s.x1 + (0.5 * k) * (s.x0 - s.x1);  // wanders back and forth
            const Vertices x_next = x + std::ldexp(1.0, -k) * (step - x);
            const Candidates expected = brute_force_candidates(s.mesh, x, x_next, params);
            const Candidates found = envelope.find(s.mesh, x, x_next, params);
            EXPECT_EQ(found.point_triangle, expected.point_triangle)
                << "seed " << seed << " k " << k;
            EXPECT_EQ(found.edge_edge, expected.edge_edge) << "seed " << seed << " k " << k;
            // A static query at the accepted point.
            x = x + 0.5 * (x_next - x);
            const Candidates at = envelope.find(s.mesh, x, x, params);
            const Candidates expected_at = brute_force_candidates(s.mesh, x, x, params);
            EXPECT_EQ(at.point_triangle, expected_at.point_triangle);
            EXPECT_EQ(at.edge_edge, expected_at.edge_edge);
            total += expected.size() + expected_at.size();
            queries += 2;
        }
    }
    EXPECT_GT(total, 1000u);  // not a comparison of empty sets
    // The point of it: most queries are answered from the cached envelope.
    EXPECT_LT(envelope.rebuilds(), queries / 2);
}

// A dense scene in which a few bodies at a time leave their envelopes (the Newton iterations
// of a jammed pile): only those bodies are queried again, and the answers stay exact, with and
// without a body-pair filter, for moved bodies near and far from the others.
TEST(EnvelopeBroadPhase, UpdatesOnlyTheBodiesThatLeaveTheirEnvelopes) {
    std::size_t total = 0;
    int partial = 0, rebuilds = 0, queries = 0;
    for (int seed = 0; seed < 12; ++seed) {
        std::mt19937 rng(static_cast<unsigned>(100 + seed));
        const Scene s = test::large_random_scene(rng, 60);
        const int num_bodies = test::num_bodies(s);
        BroadPhaseParams params;
        params.dhat = seed % 2 == 0 ? 1e-3 : 0.02;
        if (seed % 3 == 0) {  // every fourth body static: static pairs are filtered out
            std::vector<std::uint8_t> is_static(static_cast<std::size_t>(num_bodies), 0);
            for (int b = 0; b < num_bodies; b += 4) is_static[static_cast<std::size_t>(b)] = 1;
            params.body_pair_filter = skip_static_pairs(is_static);
        }
        EnvelopeBroadPhase envelope;
        std::normal_distribution<double> normal(0.0, 1.0);
        std::uniform_int_distribution<int> pick(0, num_bodies - 1);
        Vertices x = s.x0;
        for (int k = 0; k < 10; ++k) {
            // Everything jitters within the first envelope's margin; one or two bodies jump
            // (some far, some onto their neighbours).
            Vertices x_next = x;
            for (Eigen::Index v = 0; v < x.rows(); ++v)
                x_next.row(v) += 1e-4 * Vec3(normal(rng), normal(rng), normal(rng)).transpose();
            const int jumps = 1 + k % 2;
            for (int j = 0; j < jumps; ++j) {
                const int body = pick(rng);
                const Vec3 shift =
                    (k % 3 == 0 ? 1.0 : 0.1) * Vec3(normal(rng), normal(rng), normal(rng));
                for (Eigen::Index v = 0; v < x.rows(); ++v)
                    if (s.mesh.vertex_body[static_cast<std::size_t>(v)] == body)
                        x_next.row(v) += shift.transpose();
            }
            const Candidates found = envelope.find(s.mesh, x, x_next, params);
            const Candidates expected = brute_force_candidates(s.mesh, x, x_next, params);
            ASSERT_EQ(found.point_triangle, expected.point_triangle)
                << "seed " << seed << " k " << k;
            ASSERT_EQ(found.edge_edge, expected.edge_edge) << "seed " << seed << " k " << k;
            total += expected.size();
            ++queries;
            x = x_next;
        }
        partial += envelope.partial_updates();
        rebuilds += envelope.rebuilds();
    }
    EXPECT_GT(total, 2000u);  // not a comparison of empty sets
    // The first query of each scene builds the envelope; later ones update single bodies.
    EXPECT_GT(partial, queries / 2);
    EXPECT_LT(rebuilds, queries / 4);
}

// An envelope built at the step's start around where the step is expected to go (`ahead`)
// answers the point query exactly and holds the first long segment towards it: no second
// query of everything, no body updated. Without `ahead` the same segment leaves the envelope.
TEST(EnvelopeBroadPhase, AnEnvelopeBuiltAheadHoldsTheFirstStep) {
    std::size_t total = 0;
    for (int seed = 0; seed < 8; ++seed) {
        std::mt19937 rng(static_cast<unsigned>(300 + seed));
        const Scene s = test::large_random_scene(rng, 40);
        const int num_bodies = test::num_bodies(s);
        BroadPhaseParams params;
        params.dhat = seed % 2 == 0 ? 1e-3 : 0.01;
        // Every body is predicted to move 0.05 in a direction of its own.
        std::normal_distribution<double> normal(0.0, 1.0);
        std::vector<Vec3> shift(static_cast<std::size_t>(num_bodies));
        for (Vec3& d : shift) d = 0.05 * Vec3(normal(rng), normal(rng), normal(rng)).normalized();
        const Vertices& x = s.x0;
        Vertices ahead = x, step = x;
        for (Eigen::Index v = 0; v < x.rows(); ++v) {
            const Vec3& d =
                shift[static_cast<std::size_t>(s.mesh.vertex_body[static_cast<std::size_t>(v)])];
            ahead.row(v) += d.transpose();
            // The first Newton step goes most of the way, a little off the prediction.
            step.row(v) +=
                (0.8 * d + 1e-4 * Vec3(normal(rng), normal(rng), normal(rng))).transpose();
        }
        EnvelopeBroadPhase built_ahead, plain;
        const Candidates at_expected = brute_force_candidates(s.mesh, x, x, params);
        const Candidates at = built_ahead.find(s.mesh, x, x, params, &ahead);
        EXPECT_EQ(at.point_triangle, at_expected.point_triangle) << "seed " << seed;
        EXPECT_EQ(at.edge_edge, at_expected.edge_edge) << "seed " << seed;
        plain.find(s.mesh, x, x, params);
        // A second point query (friction lagged at the start) keeps the envelope as built.
        const Candidates again = built_ahead.find(s.mesh, x, x, params);
        EXPECT_EQ(again.point_triangle, at_expected.point_triangle);

        const Candidates expected = brute_force_candidates(s.mesh, x, step, params);
        const Candidates found = built_ahead.find(s.mesh, x, step, params);
        EXPECT_EQ(found.point_triangle, expected.point_triangle) << "seed " << seed;
        EXPECT_EQ(found.edge_edge, expected.edge_edge) << "seed " << seed;
        EXPECT_EQ(built_ahead.rebuilds(), 1) << "seed " << seed;
        EXPECT_EQ(built_ahead.partial_updates(), 0) << "seed " << seed;
        const Candidates plain_found = plain.find(s.mesh, x, step, params);
        EXPECT_EQ(plain_found.edge_edge, expected.edge_edge) << "seed " << seed;
        // Every body left its envelope: all updated, none queried afresh.
        EXPECT_EQ(plain.rebuilds(), 1) << "seed " << seed;
        EXPECT_EQ(plain.partial_updates(), 1) << "seed " << seed;
        total += expected.size() + at_expected.size();
    }
    EXPECT_GT(total, 1000u);  // not a comparison of empty sets
}

TEST(EnvelopeBroadPhase, RefusesAPredictionOfAnotherSize) {
    std::mt19937 rng(7);
    const Scene s = test::large_random_scene(rng, 4);
    const Vertices ahead = s.x0.topRows(s.x0.rows() - 1);
    EnvelopeBroadPhase envelope;
    EXPECT_THROW(envelope.find(s.mesh, s.x0, s.x0, {}, &ahead), std::invalid_argument);
}

namespace {

// The bodies `bodies` of s (in that order) as a scene of their own, renumbered 0, 1, ...
Scene sub_scene(const Scene& s, const std::vector<int>& bodies) {
    Scene out;
    std::vector<Vec3> x0, x1;
    for (std::size_t k = 0; k < bodies.size(); ++k) {
        const int b = bodies[k];
        std::vector<int> local(s.mesh.vertex_body.size(), -1);
        int nv = 0;
        for (std::size_t v = 0; v < s.mesh.vertex_body.size(); ++v) {
            if (s.mesh.vertex_body[v] != b) continue;
            local[v] = nv++;
            x0.push_back(s.x0.row(static_cast<Eigen::Index>(v)).transpose());
            x1.push_back(s.x1.row(static_cast<Eigen::Index>(v)).transpose());
        }
        std::vector<Eigen::Vector3i> faces;
        std::vector<Eigen::Vector2i> edges;
        for (int f = 0; f < s.mesh.num_faces(); ++f)
            if (s.mesh.face_body[static_cast<std::size_t>(f)] == b)
                faces.emplace_back(local[static_cast<std::size_t>(s.mesh.faces(f, 0))],
                                   local[static_cast<std::size_t>(s.mesh.faces(f, 1))],
                                   local[static_cast<std::size_t>(s.mesh.faces(f, 2))]);
        for (int e = 0; e < s.mesh.num_edges(); ++e)
            if (s.mesh.edge_body[static_cast<std::size_t>(e)] == b)
                edges.emplace_back(local[static_cast<std::size_t>(s.mesh.edges(e, 0))],
                                   local[static_cast<std::size_t>(s.mesh.edges(e, 1))]);
        Faces F(static_cast<Eigen::Index>(faces.size()), 3);
        Edges E(static_cast<Eigen::Index>(edges.size()), 2);
        for (std::size_t i = 0; i < faces.size(); ++i)
            F.row(static_cast<Eigen::Index>(i)) = faces[i].transpose();
        for (std::size_t i = 0; i < edges.size(); ++i)
            E.row(static_cast<Eigen::Index>(i)) = edges[i].transpose();
        append_body(out.mesh, static_cast<int>(k), nv, F, E);
    }
    out.x0.resize(static_cast<Eigen::Index>(x0.size()), 3);
    out.x1.resize(static_cast<Eigen::Index>(x1.size()), 3);
    for (std::size_t v = 0; v < x0.size(); ++v) {
        out.x0.row(static_cast<Eigen::Index>(v)) = x0[v].transpose();
        out.x1.row(static_cast<Eigen::Index>(v)) = x1[v].transpose();
    }
    return out;
}

}  // namespace

// A system built for a new set of bodies (an island that merged, a worker's share after the
// planes moved) takes over the envelope of another system's bodies: its answers are a fresh
// query's, bit for bit, whether the bodies come in the donor's order or not, whether some are
// new to it, and whether they stayed inside their envelopes or not; and when most of them did,
// the first query updates only the others instead of querying everything.
TEST(EnvelopeBroadPhase, AnAdoptedEnvelopeAnswersAsAFreshQuery) {
    std::size_t total = 0;
    int adopted = 0, rebuilt = 0, trials = 0;
    for (int seed = 0; seed < 16; ++seed) {
        std::mt19937 rng(static_cast<unsigned>(300 + seed));
        const Scene s = test::large_random_scene(rng, 50);
        const int num_bodies = test::num_bodies(s);
        BroadPhaseParams params;
        params.dhat = seed % 2 == 0 ? 1e-3 : 0.02;
        // The donor: about three bodies in four, queried along a step's segments.
        std::vector<int> donor_bodies, new_bodies;
        std::bernoulli_distribution in_donor(0.75), in_new(0.6), is_new(0.1);
        for (int b = 0; b < num_bodies; ++b) {
            const bool d = in_donor(rng);
            if (d) donor_bodies.push_back(b);
            // The new system: most of its bodies from the donor, a few it lacks.
            if (d ? in_new(rng) : is_new(rng)) new_bodies.push_back(b);
        }
        if (seed % 4 == 3) std::reverse(new_bodies.begin(), new_bodies.end());
        const Scene donor_scene = sub_scene(s, donor_bodies);
        EnvelopeBroadPhase donor;
        for (int k = 0; k < 3; ++k) {
            const Vertices xa = donor_scene.x0 + (0.25 * k) * (donor_scene.x1 - donor_scene.x0);
            const Vertices xb = donor_scene.x0 + (0.25 * (k + 1)) * (donor_scene.x1 - donor_scene.x0);
            donor.find(donor_scene.mesh, xa, xb, params);
        }
        // Body b of the new scene is donor body donor_body[b].
        const Scene fresh = sub_scene(s, new_bodies);
        std::vector<int> donor_body;
        for (int b : new_bodies) {
            const auto it = std::find(donor_bodies.begin(), donor_bodies.end(), b);
            donor_body.push_back(it == donor_bodies.end()
                                     ? -1
                                     : static_cast<int>(it - donor_bodies.begin()));
        }
        EnvelopeBroadPhase envelope;
        // Half of the trials name where the next query starts (bodies outside their envelope
        // there are left out, as in a step's preparation).
        const Vertices start = fresh.x0 + 0.75 * (fresh.x1 - fresh.x0);
        envelope.adopt(donor, donor_scene.mesh, fresh.mesh, donor_body,
                       seed % 2 == 0 ? &start : nullptr);
        ASSERT_TRUE(envelope.cached() || envelope.adopted_bodies() == 0);
        adopted += envelope.adopted_bodies();
        // Queries where the donor stopped (inside its envelope), then farther on (outside).
        for (double t : {0.75, 0.8, 1.0, 1.5}) {
            const Vertices xa = fresh.x0 + 0.75 * (fresh.x1 - fresh.x0);
            const Vertices xb = fresh.x0 + t * (fresh.x1 - fresh.x0);
            const Candidates found = envelope.find(fresh.mesh, xa, xb, params);
            const Candidates expected = brute_force_candidates(fresh.mesh, xa, xb, params);
            ASSERT_EQ(found.point_triangle, expected.point_triangle) << "seed " << seed << " t " << t;
            ASSERT_EQ(found.edge_edge, expected.edge_edge) << "seed " << seed << " t " << t;
            total += expected.size();
            if (t == 0.75) rebuilt += envelope.rebuilds();  // the first query's
        }
        ++trials;
    }
    EXPECT_GT(total, 2000u);  // not a comparison of empty sets
    EXPECT_GT(adopted, 16 * 15);  // most bodies were taken over
    // Bodies new to the donor hold less than a quarter of the vertices in most trials: their
    // first query was answered without querying every body again.
    EXPECT_LT(rebuilt, trials / 2);
}

// Adopting from a donor that holds no envelope leaves the cache empty (the next find builds one).
TEST(EnvelopeBroadPhase, AdoptingFromAnEmptyDonorChangesNothing) {
    std::mt19937 rng(7);
    const Scene s = test::large_random_scene(rng, 10);
    EnvelopeBroadPhase donor, envelope;
    std::vector<int> identity(10);
    for (int b = 0; b < 10; ++b) identity[static_cast<std::size_t>(b)] = b;
    envelope.adopt(donor, s.mesh, s.mesh, identity);
    EXPECT_FALSE(envelope.cached());
    EXPECT_EQ(envelope.adopted_bodies(), 0);
}

// A system of one body (an island alone, most of a falling scene's systems) has no candidates:
// the answer is empty and no envelope is built or kept; its input is still checked; and once a
// second body is there the query is exact again.
TEST(EnvelopeBroadPhase, OneBodyKeepsNoEnvelope) {
    std::mt19937 rng(11);
    const Scene s = test::large_random_scene(rng, 8);
    const Scene one = sub_scene(s, {3});
    ASSERT_GT(one.mesh.num_faces(), 0);
    EXPECT_TRUE(one_body(one.mesh));
    EXPECT_FALSE(one_body(s.mesh));
    EnvelopeBroadPhase envelope;
    BroadPhaseParams params;
    params.dhat = 0.05;
    EXPECT_EQ(envelope.find(one.mesh, one.x0, one.x1, params).size(), 0u);
    EXPECT_FALSE(envelope.cached());
    EXPECT_EQ(envelope.rebuilds(), 0);
    Vertices bad = one.x1;
    bad(0, 0) = std::numeric_limits<double>::quiet_NaN();
    EXPECT_THROW(envelope.find(one.mesh, one.x0, bad, params), InputError);
    const Scene two = sub_scene(s, {3, 4});
    const Candidates found = envelope.find(two.mesh, two.x0, two.x1, params);
    const Candidates expected = brute_force_candidates(two.mesh, two.x0, two.x1, params);
    EXPECT_EQ(found.point_triangle, expected.point_triangle);
    EXPECT_EQ(found.edge_edge, expected.edge_edge);
}

// A jammed pile of icospheres (80 faces and 120 edges each: every body's primitives are cut
// into BodyParts cells) that turn and drift: the bodies that leave their envelopes are
// updated pair by pair of bodies, part by part, with parts built before the bodies turned (a
// refresh keeps each primitive in its part); every answer equals brute force.
TEST(EnvelopeBroadPhase, APileOfTurningSpheresMatchesBruteForce) {
    const TriMesh sphere = icosphere(0.1, 1);
    ASSERT_GT(sphere.edges.rows(), BodyParts::kExactParts);
    constexpr int kSide = 3;
    const double spacing = 0.2;  // touching (the broad phase does not mind overlaps)
    CollisionMesh mesh;
    std::vector<Vec3> centres;
    std::vector<const TriMesh*> meshes;
    for (int i = 0; i < kSide * kSide * kSide; ++i) {
        centres.emplace_back(spacing * (i % kSide), spacing * ((i / kSide) % kSide),
                             spacing * (i / (kSide * kSide)));
        meshes.push_back(&sphere);
    }
    append_bodies(mesh, 0, meshes);
    const int n = static_cast<int>(centres.size());
    const auto nv = static_cast<int>(sphere.vertices.rows());
    // Body b turned by angle[b] about axis[b] and moved by shift[b].
    auto place = [&](const std::vector<double>& angle, const std::vector<Vec3>& axis,
                     const std::vector<Vec3>& shift) {
        Vertices x(static_cast<Eigen::Index>(n) * nv, 3);
        for (int b = 0; b < n; ++b) {
            const Eigen::Matrix3d r = Eigen::AngleAxisd(angle[static_cast<std::size_t>(b)],
                                                        axis[static_cast<std::size_t>(b)])
                                          .toRotationMatrix();
            for (int v = 0; v < nv; ++v)
                x.row(static_cast<Eigen::Index>(b) * nv + v) =
                    (r * sphere.vertices.row(v).transpose() + centres[static_cast<std::size_t>(b)] +
                     shift[static_cast<std::size_t>(b)])
                        .transpose();
        }
        return x;
    };
    std::mt19937 rng(7);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<double> angle(static_cast<std::size_t>(n), 0.0);
    std::vector<Vec3> axis(static_cast<std::size_t>(n), Vec3::UnitY());
    std::vector<Vec3> shift(static_cast<std::size_t>(n), Vec3::Zero());
    for (auto& a : axis) a = Vec3(normal(rng), normal(rng), normal(rng)).normalized();
    BroadPhaseParams params;
    params.dhat = 1e-3;
    EnvelopeBroadPhase envelope;
    Vertices x = place(angle, axis, shift);
    std::size_t total = 0;
    for (int k = 0; k < 12; ++k) {
        // Every body turns by up to ~0.1 rad per query (0.01 m at the surface, ten times dhat)
        // and drifts; every fourth query a few bodies turn far (their parts go stale).
        for (int b = 0; b < n; ++b) {
            const bool far = k % 4 == 3 && b % 5 == 0;
            angle[static_cast<std::size_t>(b)] += (far ? 1.0 : 0.05) * normal(rng);
            shift[static_cast<std::size_t>(b)] +=
                2e-4 * Vec3(normal(rng), normal(rng), normal(rng));
        }
        const Vertices x_next = place(angle, axis, shift);
        const Candidates found = envelope.find(mesh, x, x_next, params);
        const Candidates expected = brute_force_candidates(mesh, x, x_next, params);
        ASSERT_EQ(found.point_triangle, expected.point_triangle) << "k " << k;
        ASSERT_EQ(found.edge_edge, expected.edge_edge) << "k " << k;
        total += expected.size();
        x = x_next;
    }
    EXPECT_GT(total, 1000u);
    EXPECT_GT(envelope.partial_updates(), 3)
        << envelope.rebuilds();  // per-body updates, not rebuilds
}
