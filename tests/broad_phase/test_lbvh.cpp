#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <utility>

#include "concord/collision/broad_phase/lbvh.hpp"
#include "concord/math/error.hpp"

using namespace concord;

namespace {

// Boxes of mixed sizes: ordinary, zero-size (points), exact duplicates, empty, and huge.
std::vector<AABB> random_boxes(std::mt19937& rng, int n) {
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<AABB> boxes;
    for (int i = 0; i < n; ++i) {
        const int kind = static_cast<int>(rng() % 10);
        if (kind == 0 && !boxes.empty()) {
            boxes.push_back(boxes[rng() % boxes.size()]);
            continue;
        }
        if (kind == 1) {
            boxes.emplace_back();  // empty
            continue;
        }
        const Vec3 lo(unit(rng), unit(rng), unit(rng));
        const double size = kind == 2 ? 0.0 : kind == 3 ? 0.5 : 0.05 * unit(rng);
        const Vec3 extent = size * Vec3(unit(rng), unit(rng), unit(rng));
        boxes.emplace_back(lo, lo + extent);
    }
    return boxes;
}

std::vector<int> query_sorted(const LBVH& bvh, const AABB& box) {
    std::vector<int> hits;
    bvh.query(box, [&](int i) { hits.push_back(i); });
    std::sort(hits.begin(), hits.end());
    return hits;
}

std::vector<int> brute_force_query(const std::vector<AABB>& boxes, const AABB& box) {
    std::vector<int> hits;
    for (int i = 0; i < static_cast<int>(boxes.size()); ++i)
        if (!box.empty() && boxes[static_cast<std::size_t>(i)].overlaps(box)) hits.push_back(i);
    return hits;
}

std::vector<std::pair<int, int>> self_pairs(const LBVH& bvh) {
    std::vector<std::pair<int, int>> pairs;
    for (int k = 0; k < bvh.size(); ++k) {
        const int a = bvh.primitive_at(k);
        bvh.query_self_after(k, [&](int b) { pairs.emplace_back(std::min(a, b), std::max(a, b)); });
    }
    std::sort(pairs.begin(), pairs.end());
    return pairs;
}

}  // namespace

TEST(LBVH, QueryMatchesBruteForce) {
    for (int seed = 0; seed < 40; ++seed) {
        std::mt19937 rng(static_cast<unsigned>(seed));
        const int n = std::array<int, 6>{0, 1, 2, 3, 64, 700}[seed % 6];
        const auto boxes = random_boxes(rng, n);
        LBVH bvh;
        bvh.build(boxes);
        ASSERT_EQ(bvh.size(), n);
        for (const AABB& q : random_boxes(rng, 100))
            ASSERT_EQ(query_sorted(bvh, q), brute_force_query(boxes, q)) << "seed " << seed;
    }
}

TEST(LBVH, SelfJoinReportsEveryOverlappingPairOnce) {
    for (int seed = 0; seed < 20; ++seed) {
        std::mt19937 rng(100u + static_cast<unsigned>(seed));
        const auto boxes = random_boxes(rng, 1 + seed * 37);
        LBVH bvh;
        bvh.build(boxes);
        std::vector<std::pair<int, int>> expected;
        for (int a = 0; a < static_cast<int>(boxes.size()); ++a)
            for (int b = a + 1; b < static_cast<int>(boxes.size()); ++b)
                if (boxes[static_cast<std::size_t>(a)].overlaps(boxes[static_cast<std::size_t>(b)]))
                    expected.emplace_back(a, b);
        const auto found = self_pairs(bvh);
        EXPECT_EQ(std::adjacent_find(found.begin(), found.end()), found.end()) << "duplicates";
        ASSERT_EQ(found, expected) << "seed " << seed;
    }
}

TEST(LBVH, GroupsAreSkippedExactly) {
    for (int seed = 0; seed < 20; ++seed) {
        std::mt19937 rng(200u + static_cast<unsigned>(seed));
        const auto boxes = random_boxes(rng, 5 + seed * 40);
        // Groups in runs of random length, as bodies are, plus scattered members.
        std::vector<int> groups(boxes.size());
        int group = 0;
        for (std::size_t i = 0; i < groups.size(); ++i) {
            if (rng() % 8 == 0) ++group;
            groups[i] = rng() % 10 == 0 ? static_cast<int>(rng() % 4) : group;
        }
        LBVH bvh;
        bvh.build(boxes, groups);
        for (const AABB& q : random_boxes(rng, 40)) {
            const int skip = static_cast<int>(rng() % static_cast<unsigned>(group + 2));
            std::vector<int> expected;
            for (const int i : brute_force_query(boxes, q))
                if (groups[static_cast<std::size_t>(i)] != skip) expected.push_back(i);
            std::vector<int> found;
            bvh.query(q, skip, [&](int i) { found.push_back(i); });
            std::sort(found.begin(), found.end());
            ASSERT_EQ(found, expected) << "seed " << seed << " skip " << skip;
            ASSERT_EQ(query_sorted(bvh, q), brute_force_query(boxes, q));
        }
        std::vector<std::pair<int, int>> expected_pairs;
        for (int a = 0; a < static_cast<int>(boxes.size()); ++a)
            for (int b = a + 1; b < static_cast<int>(boxes.size()); ++b)
                if (groups[static_cast<std::size_t>(a)] != groups[static_cast<std::size_t>(b)] &&
                    boxes[static_cast<std::size_t>(a)].overlaps(boxes[static_cast<std::size_t>(b)]))
                    expected_pairs.emplace_back(a, b);
        ASSERT_EQ(self_pairs(bvh), expected_pairs) << "seed " << seed;
        for (int k = 0; k < bvh.size(); ++k)
            ASSERT_EQ(bvh.group_at(k), groups[static_cast<std::size_t>(bvh.primitive_at(k))]);
    }
}

TEST(LBVH, RejectsBadGroups) {
    const std::vector<AABB> boxes(3, AABB(Vec3::Zero(), Vec3::Ones()));
    LBVH bvh;
    EXPECT_THROW(bvh.build(boxes, std::vector<int>{0, 1}), InputError);
    EXPECT_THROW(bvh.build(boxes, std::vector<int>{0, -2, 1}), InputError);
    EXPECT_NO_THROW(bvh.build(boxes, std::vector<int>{0, 2, 1}));
}

TEST(LBVH, IdenticalBoxesStillFormABalancedTree) {
    // Equal Morton codes everywhere: the index tie-break must still give a valid tree of
    // logarithmic depth.
    const std::vector<AABB> boxes(5000, AABB(Vec3(1, 2, 3), Vec3(1, 2, 3)));
    LBVH bvh;
    bvh.build(boxes);
    EXPECT_LE(bvh.depth(), 14);
    EXPECT_EQ(query_sorted(bvh, AABB(Vec3(1, 2, 3), Vec3(1, 2, 3))).size(), 5000u);
    EXPECT_TRUE(query_sorted(bvh, AABB(Vec3(1, 2, 3.5), Vec3(1, 2, 4))).empty());
    EXPECT_EQ(self_pairs(bvh).size(), 5000u * 4999u / 2);
}

TEST(LBVH, FloatNodesNeverPruneDoubleOverlaps) {
    // Boxes touching exactly at coordinates that are not representable in float.
    const double x = 0.1, big = 1e6 + 0.1;
    std::vector<AABB> boxes;
    for (int i = 0; i < 100; ++i)
        boxes.emplace_back(Vec3(x + i, big, -x), Vec3(x + i + 0.5, big, -x));
    LBVH bvh;
    bvh.build(boxes);
    for (int i = 0; i < 100; ++i) {
        const AABB touching(Vec3(x + i + 0.5, big, -x), Vec3(x + i + 0.7, big + 1, 0));
        EXPECT_EQ(query_sorted(bvh, touching), std::vector<int>{i});
        const AABB apart(Vec3(std::nextafter(x + i + 0.5, 1e9), big, -x),
                         Vec3(x + i + 0.7, big, 0));
        EXPECT_TRUE(query_sorted(bvh, apart).empty());
    }
}

TEST(LBVH, InfiniteBoxesAreHandled) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    std::vector<AABB> boxes{AABB(Vec3(0, 0, 0), Vec3(1, 1, 1)),
                            AABB(Vec3(-inf, -inf, -inf), Vec3(inf, inf, inf)),
                            AABB(Vec3(5, 5, 5), Vec3(6, 6, 6))};
    LBVH bvh;
    bvh.build(boxes);
    EXPECT_EQ(query_sorted(bvh, AABB(Vec3(5.5, 5.5, 5.5), Vec3(5.5, 5.5, 5.5))),
              (std::vector<int>{1, 2}));
}

TEST(LBVH, RejectsNaN) {
    std::vector<AABB> boxes(3, AABB(Vec3::Zero(), Vec3::Ones()));
    boxes[1].max.y() = std::numeric_limits<double>::quiet_NaN();
    LBVH bvh;
    try {
        bvh.build(boxes);
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("box 1"), std::string::npos) << e.what();
    }
}

TEST(LBVH, RebuildReplacesTheTree) {
    std::mt19937 rng(7);
    LBVH bvh;
    bvh.build(random_boxes(rng, 500));
    const auto boxes = random_boxes(rng, 50);
    bvh.build(boxes);
    ASSERT_EQ(bvh.size(), 50);
    for (const AABB& q : random_boxes(rng, 50))
        ASSERT_EQ(query_sorted(bvh, q), brute_force_query(boxes, q));
    bvh.build({});
    EXPECT_TRUE(bvh.empty());
    EXPECT_TRUE(query_sorted(bvh, AABB(Vec3::Zero(), Vec3::Ones())).empty());
}

TEST(LBVH, SameTreeOnOneAndTwoThreads) {
    std::mt19937 rng(8);
    const auto boxes = random_boxes(rng, 200000);
    auto leaf_order = [&](int threads) {
        tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
        LBVH bvh;
        bvh.build(boxes);
        std::vector<int> order(static_cast<std::size_t>(bvh.size()));
        for (int k = 0; k < bvh.size(); ++k)
            order[static_cast<std::size_t>(k)] = bvh.primitive_at(k);
        return std::pair(order, bvh.depth());
    };
    EXPECT_EQ(leaf_order(1), leaf_order(2));
}
