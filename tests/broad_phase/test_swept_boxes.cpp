#include <gtest/gtest.h>

#include <random>

#include "concord/collision/broad_phase/swept_boxes.hpp"

using namespace concord;

TEST(SweptBoxes, CoverBothPositionsGrownByTheInflation) {
    std::mt19937 rng(9);
    std::normal_distribution<double> normal(0.0, 10.0);
    const int n = 50;
    Vertices x0(n, 3), x1(n, 3);
    for (int v = 0; v < n; ++v)
        for (int k = 0; k < 3; ++k) {
            x0(v, k) = normal(rng);
            x1(v, k) = v % 3 == 0 ? x0(v, k) : normal(rng);
        }
    Faces faces(n - 2, 3);
    Edges edges(n - 1, 2);
    for (int i = 0; i < n - 2; ++i) faces.row(i) << i, i + 1, i + 2;
    for (int i = 0; i < n - 1; ++i) edges.row(i) << i, i + 1;
    const double r = 0.25;
    const auto vb = swept_vertex_boxes(x0, x1, r);
    const auto eb = swept_edge_boxes(edges, x0, x1, r);
    const auto fb = swept_face_boxes(faces, x0, x1, r);
    auto expect_box = [&](const AABB& box, std::initializer_list<int> vertices) {
        AABB exact;
        for (int v : vertices) {
            exact.expand(Vec3(x0.row(v)));
            exact.expand(Vec3(x1.row(v)));
        }
        for (int k = 0; k < 3; ++k) {
            // At least the inflation (the guarantee), at most a few rounding steps more.
            EXPECT_LE(box.min[k], exact.min[k] - r);
            EXPECT_GE(box.max[k], exact.max[k] + r);
            EXPECT_NEAR(box.min[k], exact.min[k] - r, 1e-13);
            EXPECT_NEAR(box.max[k], exact.max[k] + r, 1e-13);
        }
    };
    for (int v = 0; v < n; ++v) expect_box(vb[static_cast<std::size_t>(v)], {v});
    for (int e = 0; e < n - 1; ++e) expect_box(eb[static_cast<std::size_t>(e)], {e, e + 1});
    for (int f = 0; f < n - 2; ++f) expect_box(fb[static_cast<std::size_t>(f)], {f, f + 1, f + 2});
    // One primitive's box is the batch's entry, bit for bit (the envelope broad phase computes
    // only the boxes its cached pairs name).
    auto same = [](const AABB& a, const AABB& b) {
        return a.min.cwiseEqual(b.min).all() && a.max.cwiseEqual(b.max).all();
    };
    for (int v = 0; v < n; ++v)
        EXPECT_TRUE(same(swept_vertex_box(x0, x1, v, r), vb[static_cast<std::size_t>(v)]));
    for (int e = 0; e < n - 1; ++e)
        EXPECT_TRUE(same(swept_edge_box(edges, x0, x1, e, r), eb[static_cast<std::size_t>(e)]));
    for (int f = 0; f < n - 2; ++f)
        EXPECT_TRUE(same(swept_face_box(faces, x0, x1, f, r), fb[static_cast<std::size_t>(f)]));
}

TEST(SweptBoxes, ZeroInflationStillRoundsOutward) {
    Vertices x(1, 3);
    x << 0.1, 0.2, 0.3;
    const AABB box = swept_vertex_box(x, x, 0, 0.0);
    for (int k = 0; k < 3; ++k) {
        EXPECT_LT(box.min[k], x(0, k));
        EXPECT_GT(box.max[k], x(0, k));
    }
}
