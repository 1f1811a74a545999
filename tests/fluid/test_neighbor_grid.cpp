#include "concord/fluid/neighbor_grid.hpp"

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace concord {
namespace {

std::vector<Vec3> random_points(int n, double extent, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-extent, extent);
    std::vector<Vec3> p(static_cast<std::size_t>(n));
    for (auto& x : p) x = Vec3(u(rng), u(rng), u(rng));
    return p;
}

TEST(NeighborGrid, FindsExactlyThePointsWithinTheRadius) {
    const auto pts = random_points(3000, 1.0, 1);
    const auto queries = random_points(500, 1.2, 2);
    const double r = 0.15;
    NeighborGrid grid;
    grid.build(pts, r);
    const NeighborLists lists = grid.neighbors(queries, r, false);
    ASSERT_EQ(lists.size(), queries.size());
    for (std::size_t i = 0; i < queries.size(); ++i) {
        std::vector<int> got(lists.index.begin() + lists.begin(i), lists.index.begin() + lists.end(i));
        std::vector<int> want;
        for (std::size_t j = 0; j < pts.size(); ++j)
            if ((pts[j] - queries[i]).squaredNorm() < r * r) want.push_back(static_cast<int>(j));
        std::sort(got.begin(), got.end());
        EXPECT_EQ(got, want) << "query " << i;
    }
}

TEST(NeighborGrid, SelfQueriesLeaveThePointItselfOutAndSpreadPointsDoNotBlowUpMemory) {
    auto pts = random_points(200, 0.2, 3);
    pts.push_back(Vec3(1e6, -1e6, 3e5));  // one particle far away: the grid is hashed
    pts.push_back(Vec3(1e6, -1e6, 3e5 + 0.01));
    NeighborGrid grid;
    grid.build(pts, 0.05);
    const NeighborLists lists = grid.neighbors(pts, 0.05, true);
    for (std::size_t i = 0; i < pts.size(); ++i)
        for (auto s = lists.begin(i); s < lists.end(i); ++s)
            EXPECT_NE(static_cast<std::size_t>(lists.index[static_cast<std::size_t>(s)]), i);
    ASSERT_EQ(lists.count(pts.size() - 1), 1);
    // Queries far outside a dense grid, or not finite, find nothing.
    NeighborGrid dense;
    const auto near = random_points(200, 0.2, 8);
    dense.build(near, 0.05);
    ASSERT_TRUE(dense.dense());
    const double inf = std::numeric_limits<double>::infinity();
    const NeighborLists odd = dense.neighbors(
        {Vec3(1e300, -1e300, 0), Vec3(inf, 0, 0), Vec3(std::nan(""), 0, 0), Vec3(0, -inf, 1e-3)},
        0.05, false);
    EXPECT_EQ(odd.index.size(), 0u);
    EXPECT_EQ(lists.index[static_cast<std::size_t>(lists.begin(pts.size() - 1))],
              static_cast<int>(pts.size() - 2));
}

TEST(NeighborGrid, DenseAndHashedLayoutsFindTheSamePoints) {
    // A jittered lattice and points exactly on a lattice (pairs at exactly the radius, where
    // the dense layout's row ranges must not round a point away), queried from inside and
    // outside; then the same points with one far away, which makes the grid hashed.
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> jitter(-0.2, 0.2);
    for (const double amount : {0.0, 1.0}) {
        std::vector<Vec3> pts;
        for (int i = 0; i < 20; ++i)
            for (int j = 0; j < 15; ++j)
                for (int k = 0; k < 12; ++k)
                    pts.push_back(Vec3(-0.5, 0.0, -0.2) +
                                  0.009 * (Vec3(i + 0.5, j + 0.5, k + 0.5) +
                                           amount * Vec3(jitter(rng), jitter(rng), jitter(rng))));
        const double r = 0.018;  // two spacings: axis neighbours two apart are at r (rounded)
        NeighborGrid dense;
        dense.build(pts, r);
        ASSERT_TRUE(dense.dense());
        std::vector<Vec3> spread = pts;
        spread.push_back(Vec3(1e5, 0, 0));
        NeighborGrid hashed;
        hashed.build(spread, r);
        ASSERT_FALSE(hashed.dense());
        auto queries = random_points(300, 0.3, 6);
        for (Vec3& q : queries) q += Vec3(-0.4, 0.06, -0.15);
        queries.insert(queries.end(), pts.begin(), pts.end());
        const NeighborLists a = dense.neighbors(queries, r, false);
        const NeighborLists b = hashed.neighbors(queries, r, false);
        int differ = 0;
        for (std::size_t i = 0; i < queries.size(); ++i) {
            std::vector<int> x(a.index.begin() + a.begin(i), a.index.begin() + a.end(i));
            std::vector<int> y(b.index.begin() + b.begin(i), b.index.begin() + b.end(i));
            std::sort(x.begin(), x.end());
            std::sort(y.begin(), y.end());
            differ += x != y;
            int visited = 0;  // for_each_near visits the same points
            dense.for_each_near(queries[i], r, [&](int) { return ++visited, true; });
            differ += visited != static_cast<int>(x.size());
        }
        EXPECT_EQ(differ, 0) << "jitter " << amount;
    }
}

TEST(NeighborGrid, ListsAreTheSameWhateverTheThreadCount) {
    const auto pts = random_points(20000, 1.0, 4);
    NeighborGrid grid;
    grid.build(pts, 0.08);
    NeighborLists one;
    {
        tbb::global_control c(tbb::global_control::max_allowed_parallelism, 1);
        one = grid.neighbors(pts, 0.08, true);
    }
    const NeighborLists many = grid.neighbors(pts, 0.08, true);
    EXPECT_EQ(one.offsets, many.offsets);
    EXPECT_EQ(one.index, many.index);
}

// pair_lists against the brute force: the first `owned` points get exactly their neighbours
// among all points (ghosts included), every entry is stored once, with the pair's value seen
// from the list's own point (x_i - x_j), in both layouts.
void expect_pair_lists_exact(const std::vector<Vec3>& pts, std::size_t owned, double r,
                             bool want_dense) {
    NeighborGrid grid;
    grid.build(pts, r);
    ASSERT_EQ(grid.dense(), want_dense);
    NeighborLists lists;
    std::vector<std::vector<Vec3>> scratch;
    std::vector<Vec3> value;
    std::vector<int> stores;
    int mirrored = 0;
    grid.pair_lists(
        r, owned, lists, scratch, [](const Vec3& d) { return d; },
        [&](std::size_t entries) {
            value.assign(entries, Vec3::Constant(std::nan("")));
            stores.assign(entries, 0);
        },
        [&](std::size_t slot, const Vec3& d, bool m) {
            value[slot] = m ? Vec3(-d) : d;
            ++stores[slot];
            mirrored += m;
        });
    ASSERT_EQ(lists.size(), owned);
    ASSERT_EQ(value.size(), lists.index.size());
    EXPECT_EQ(std::count(stores.begin(), stores.end(), 1),
              static_cast<std::ptrdiff_t>(stores.size()));
    if (owned > 1) EXPECT_GT(mirrored, 0);
    for (std::size_t i = 0; i < owned; ++i) {
        std::vector<int> got;
        for (auto s = lists.begin(i); s < lists.end(i); ++s) {
            const auto j = lists.index[static_cast<std::size_t>(s)];
            got.push_back(j);
            EXPECT_EQ(value[static_cast<std::size_t>(s)], pts[i] - pts[static_cast<std::size_t>(j)])
                << i << " " << j;  // exactly: the mirror of x_j - x_i
        }
        std::vector<int> want;
        for (std::size_t j = 0; j < pts.size(); ++j)
            if (j != i && (pts[j] - pts[i]).squaredNorm() < r * r) want.push_back(static_cast<int>(j));
        std::sort(got.begin(), got.end());
        EXPECT_EQ(got, want) << "point " << i;
    }
}

TEST(NeighborGrid, PairListsFindEachPairOnceAndListItForBothPoints) {
    auto pts = random_points(3000, 1.0, 5);
    expect_pair_lists_exact(pts, pts.size(), 0.15, true);
    expect_pair_lists_exact(pts, 2400, 0.15, true);  // the last 600 are ghosts
    // Points spread far apart: the hashed layout.
    pts.push_back(Vec3(1e6, 0, 0));
    pts.push_back(Vec3(0, -1e6, 3e5));
    expect_pair_lists_exact(pts, 2500, 0.15, false);
    expect_pair_lists_exact({}, 0, 0.1, false);
}

TEST(NeighborGrid, PairListsAreTheSameWhateverTheThreadCount) {
    const auto pts = random_points(20000, 1.0, 6);
    NeighborGrid grid;
    grid.build(pts, 0.08);
    auto run = [&](NeighborLists& lists, std::vector<Vec3>& value) {
        std::vector<std::vector<Vec3>> scratch;
        grid.pair_lists(
            0.08, 19000, lists, scratch, [](const Vec3& d) { return d; },
            [&](std::size_t entries) { value.resize(entries); },
            [&](std::size_t slot, const Vec3& d, bool m) { value[slot] = m ? Vec3(-d) : d; });
    };
    NeighborLists one, many;
    std::vector<Vec3> v1, v2;
    {
        tbb::global_control c(tbb::global_control::max_allowed_parallelism, 1);
        run(one, v1);
    }
    run(many, v2);
    EXPECT_EQ(one.offsets, many.offsets);
    EXPECT_EQ(one.index, many.index);
    EXPECT_EQ(v1, v2);
}

}  // namespace
}  // namespace concord
