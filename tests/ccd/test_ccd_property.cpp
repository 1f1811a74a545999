// Randomised property test: against a brute-force reference that samples every trajectory
// finely and evaluates the distance in long double, CCD never misses a sampled contact (no
// false negatives) and never reports a time of impact after one. Also zero false negatives
// against the proven ground truth of generated ordinary and hard queries.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "ccd/reference_distance.hpp"
#include "concord/collision/ccd/ccd_query_generator.hpp"

namespace concord {
namespace {

constexpr int kSamples = 2048;  // a multiple of the generator's 2^-10 contact-time grid

struct Tally {
    long queries = 0, sampled_contacts = 0, reported = 0;
};

// Checks one query against the reference; returns a description of the failure, or "".
std::string check_against_reference(const CCDQuery& q, const CCDParams& params, Tally& tally) {
    const CCDResult r = run_ccd_query(q, params);
    ++tally.queries;
    tally.reported += r.collides;
    // Far below CCD's own rounding margin (1e-13 of the pair's size), far above long double
    // rounding: the reference only calls a sample a contact when it surely is one.
    const long double threshold =
        params.min_separation + 1e-15L * std::max(1.0, test::query_scale(q));
    const double first = test::first_sampled_contact(q, threshold, kSamples, params.tmax);
    if (first >= 0) {
        ++tally.sampled_contacts;
        if (!r.collides) return "missed the contact sampled at t = " + std::to_string(first);
        if (r.toi > first)
            return "toi " + std::to_string(r.toi) +
                   " is after the contact sampled at t = " + std::to_string(first);
    }
    if (r.collides ? r.toi > params.tmax : r.toi != params.tmax)
        return "toi " + std::to_string(r.toi) + " inconsistent with tmax";
    if (r.toi > 0 && test::ref_distance(q, r.toi) <= params.min_separation)
        return "the configuration at toi " + std::to_string(r.toi) + " is not separated";
    return "";
}

std::string describe(const CCDQuery& q) {
    std::string s;
    for (const Vec3& v : q.vertices) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "(%.17g, %.17g, %.17g) ", v.x(), v.y(), v.z());
        s += buf;
    }
    return s;
}

class GeneratedQueries
    : public ::testing::TestWithParam<std::tuple<CCDQueryType, CCDQueryKind, double>> {};

TEST_P(GeneratedQueries, NoFalseNegativesAgainstGroundTruthAndReference) {
    const auto [type, kind, xi] = GetParam();
    const long count = kind == CCDQueryKind::Hard ? 700 : 1000;
    const auto queries = generate_ccd_queries(type, kind, count, 20240601);
    CCDParams params;
    params.min_separation = xi;
    Tally tally;
    long truths = 0;
    for (const GeneratedCCDQuery& g : queries) {
        const CCDResult r = run_ccd_query(g.query, params);
        truths += g.query.ground_truth;
        ASSERT_TRUE(r.collides || !g.query.ground_truth)
            << "false negative in scenario " << g.scenario << ": " << describe(g.query);
        const std::string failure = check_against_reference(g.query, params, tally);
        ASSERT_EQ(failure, "") << g.scenario << ": " << describe(g.query);
    }
    EXPECT_GT(truths, 0);
    EXPECT_GT(tally.sampled_contacts, 0);
    EXPECT_GE(tally.reported, truths);
}

INSTANTIATE_TEST_SUITE_P(
    All, GeneratedQueries,
    ::testing::Combine(::testing::Values(CCDQueryType::VertexFace, CCDQueryType::EdgeEdge),
                       ::testing::Values(CCDQueryKind::Ordinary, CCDQueryKind::Hard),
                       ::testing::Values(0.0, 1e-3)));

// Random trajectories with no structure: vertices anywhere in a box, motions of every size.
CCDQuery random_query(std::mt19937_64& rng, CCDQueryType type) {
    std::uniform_real_distribution<double> box(-1, 1);
    std::uniform_int_distribution<int> exponent(-12, 1);
    CCDQuery q;
    q.type = type;
    const double motion = std::ldexp(1.0, exponent(rng));
    for (int i = 0; i < 4; ++i) {
        q.vertices[i] = Vec3(box(rng), box(rng), box(rng));
        q.vertices[i + 4] = q.vertices[i] + motion * Vec3(box(rng), box(rng), box(rng));
    }
    return q;
}

// A generated contact nudged by a tiny random offset of the moving vertex at both ends: near
// hits and near misses whose truth nobody knows, exactly where CCD is most likely to err.
CCDQuery nudged(const GeneratedCCDQuery& g, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> unit(-1, 1);
    std::uniform_int_distribution<int> exponent(-40, -8);
    CCDQuery q = g.query;
    const Vec3 offset = std::ldexp(1.0, exponent(rng)) * Vec3(unit(rng), unit(rng), unit(rng));
    q.vertices[0] += offset;
    q.vertices[4] += offset;
    return q;
}

// With xi = 0 a transversal crossing lasts an instant that no sampling hits, so the random
// queries use xi > 0: every pass closer than xi lasts long enough to be sampled.
TEST(CCDProperty, RandomQueriesAgreeWithReference) {
    std::mt19937_64 rng(7);
    for (CCDQueryType type : {CCDQueryType::VertexFace, CCDQueryType::EdgeEdge}) {
        Tally tally;
        for (int k = 0; k < 1500; ++k) {
            const CCDQuery q = random_query(rng, type);
            CCDParams params;
            params.min_separation = std::ldexp(1.0, -4 - k % 10);
            const std::string failure = check_against_reference(q, params, tally);
            ASSERT_EQ(failure, "") << "xi " << params.min_separation << ": " << describe(q);
        }
        EXPECT_GT(tally.sampled_contacts, 10);  // the sampler does find contacts to check
        EXPECT_LT(tally.sampled_contacts, tally.queries);
    }
}

// Nudged contacts: with xi = twice the nudge the sampled contact time of the original is a
// reference contact; with xi = 0 the truth is unknown and only the certified part is checked.
TEST(CCDProperty, NudgedContactsAgreeWithReference) {
    std::mt19937_64 rng(8);
    for (CCDQueryType type : {CCDQueryType::VertexFace, CCDQueryType::EdgeEdge}) {
        Tally tally;
        const auto hits = generate_ccd_queries(type, CCDQueryKind::Hard, 800, 99);
        for (const GeneratedCCDQuery& g : hits) {
            if (!g.query.ground_truth) continue;
            const CCDQuery q = nudged(g, rng);
            const double nudge = (q.vertices[0] - g.query.vertices[0]).norm();
            for (double xi : {0.0, 2 * nudge}) {
                CCDParams params;
                params.min_separation = xi;
                const std::string failure = check_against_reference(q, params, tally);
                ASSERT_EQ(failure, "")
                    << g.scenario << " nudged by " << nudge << ", xi " << xi << ": " << describe(q);
            }
        }
        EXPECT_GT(tally.sampled_contacts, 300);
    }
}

TEST(CCDProperty, LongerHorizonAndOtherRescalings) {
    std::mt19937_64 rng(11);
    for (double s : {0.3, 0.99}) {
        CCDParams params;
        params.conservative_rescaling = s;
        params.tmax = 1.5;
        Tally tally;
        params.min_separation = 1e-2;
        for (int k = 0; k < 600; ++k) {
            const CCDQuery q =
                random_query(rng, k % 2 ? CCDQueryType::EdgeEdge : CCDQueryType::VertexFace);
            const std::string failure = check_against_reference(q, params, tally);
            ASSERT_EQ(failure, "") << "s = " << s << ": " << describe(q);
        }
        EXPECT_GT(tally.sampled_contacts, 0);
    }
}

}  // namespace
}  // namespace concord
