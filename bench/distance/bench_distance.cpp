// Cost of the contact distances, their derivatives, the barrier chained through them, and the
// PSD projection of the resulting 12×12 blocks. Each benchmark cycles through 1024 random
// configurations so that branch prediction sees the mix of closest-feature types a real
// contact set has; the classification is included wherever the untyped overload is called.
#include <benchmark/benchmark.h>

#include <array>
#include <random>
#include <vector>

#include "concord/collision/barrier/barrier.hpp"
#include "concord/collision/distance/edge_edge.hpp"
#include "concord/collision/distance/edge_edge_mollifier.hpp"
#include "concord/collision/distance/point_triangle.hpp"
#include "concord/math/psd_projection.hpp"
#include "concord/math/translation_invariant_psd.hpp"

namespace concord {
namespace {

constexpr std::size_t kConfigs = 1024;  // power of two: the index wraps with a mask
constexpr double kDhat = 1e-2;          // squared activation distance (distance 0.1)

using Quad = std::array<Vec3, 4>;

Vec3 random_point(std::mt19937_64& rng, double lo, double hi) {
    std::uniform_real_distribution<double> u(lo, hi);
    return {u(rng), u(rng), u(rng)};
}

/// Uniformly random point-triangle pairs (all seven closest-feature types occur).
std::vector<Quad> random_point_triangles() {
    std::mt19937_64 rng(7);
    std::vector<Quad> out;
    while (out.size() < kConfigs) {
        const Quad q = {random_point(rng, -2, 2), random_point(rng, -1, 1),
                        random_point(rng, -1, 1), random_point(rng, -1, 1)};
        if ((q[2] - q[1]).cross(q[3] - q[1]).norm() < 0.05) continue;
        out.push_back(q);
    }
    return out;
}

/// Uniformly random edge pairs (all nine types occur, EA_EB most often).
std::vector<Quad> random_edge_pairs() {
    std::mt19937_64 rng(8);
    std::vector<Quad> out;
    while (out.size() < kConfigs) {
        const Quad q = {random_point(rng, -1, 1), random_point(rng, -1, 1),
                        random_point(rng, -1, 1), random_point(rng, -1, 1)};
        out.push_back(q);
    }
    return out;
}

/// Pairs within the barrier's activation distance, as in a contact set.
template <typename Distance>
std::vector<Quad> active_pairs(std::vector<Quad> (*generate)(), Distance distance) {
    std::mt19937_64 rng(9);
    std::vector<Quad> out;
    const std::vector<Quad> base = generate();
    std::size_t i = 0;
    while (out.size() < kConfigs) {
        Quad q = base[i++ % base.size()];
        // Move the first point (or edge) towards the other primitive until it is within range.
        for (int k = 0; k < 60; ++k) {
            const double d = distance(q);
            if (d > 0.05 * kDhat && d < kDhat) {
                out.push_back(q);
                break;
            }
            const Vec3 target = (q[1] + q[2] + q[3]) / 3.0 + 0.05 * random_point(rng, -1, 1);
            const Vec3 shift = 0.2 * (target - q[0]);
            q[0] += shift;
            if (distance(q) < 0.05 * kDhat) q[0] -= 1.5 * shift;
        }
    }
    return out;
}

double pt_distance(const Quad& q) {
    return point_triangle_distance_sq(q[0], q[1], q[2], q[3]);
}
double ee_distance(const Quad& q) {
    return edge_edge_distance_sq(q[0], q[1], q[2], q[3]);
}

void BM_PointTriangleDistance(benchmark::State& state) {
    const auto configs = random_point_triangles();
    std::size_t i = 0;
    for (auto _ : state) {
        const Quad& q = configs[i++ & (kConfigs - 1)];
        benchmark::DoNotOptimize(point_triangle_distance_sq(q[0], q[1], q[2], q[3]));
    }
}
BENCHMARK(BM_PointTriangleDistance);

void BM_PointTriangleGradient(benchmark::State& state) {
    const auto configs = random_point_triangles();
    std::size_t i = 0;
    for (auto _ : state) {
        const Quad& q = configs[i++ & (kConfigs - 1)];
        Vec12 g = point_triangle_distance_sq_gradient(q[0], q[1], q[2], q[3]);
        benchmark::DoNotOptimize(g.data());
        benchmark::ClobberMemory();
    }
}
BENCHMARK(BM_PointTriangleGradient);

void BM_PointTriangleHessian(benchmark::State& state) {
    const auto configs = random_point_triangles();
    std::size_t i = 0;
    for (auto _ : state) {
        const Quad& q = configs[i++ & (kConfigs - 1)];
        Mat12 H = point_triangle_distance_sq_hessian(q[0], q[1], q[2], q[3]);
        benchmark::DoNotOptimize(H.data());
        benchmark::ClobberMemory();
    }
}
BENCHMARK(BM_PointTriangleHessian);

// The most expensive type on its own: point-plane (face interior), no classification.
void BM_PointPlaneHessian(benchmark::State& state) {
    const auto configs = random_point_triangles();
    std::size_t i = 0;
    for (auto _ : state) {
        const Quad& q = configs[i++ & (kConfigs - 1)];
        Mat12 H = point_plane_distance_sq_hessian(q[0], q[1], q[2], q[3]);
        benchmark::DoNotOptimize(H.data());
        benchmark::ClobberMemory();
    }
}
BENCHMARK(BM_PointPlaneHessian);

void BM_EdgeEdgeDistance(benchmark::State& state) {
    const auto configs = random_edge_pairs();
    std::size_t i = 0;
    for (auto _ : state) {
        const Quad& q = configs[i++ & (kConfigs - 1)];
        benchmark::DoNotOptimize(edge_edge_distance_sq(q[0], q[1], q[2], q[3]));
    }
}
BENCHMARK(BM_EdgeEdgeDistance);

void BM_EdgeEdgeGradient(benchmark::State& state) {
    const auto configs = random_edge_pairs();
    std::size_t i = 0;
    for (auto _ : state) {
        const Quad& q = configs[i++ & (kConfigs - 1)];
        Vec12 g = edge_edge_distance_sq_gradient(q[0], q[1], q[2], q[3]);
        benchmark::DoNotOptimize(g.data());
        benchmark::ClobberMemory();
    }
}
BENCHMARK(BM_EdgeEdgeGradient);

void BM_EdgeEdgeHessian(benchmark::State& state) {
    const auto configs = random_edge_pairs();
    std::size_t i = 0;
    for (auto _ : state) {
        const Quad& q = configs[i++ & (kConfigs - 1)];
        Mat12 H = edge_edge_distance_sq_hessian(q[0], q[1], q[2], q[3]);
        benchmark::DoNotOptimize(H.data());
        benchmark::ClobberMemory();
    }
}
BENCHMARK(BM_EdgeEdgeHessian);

// The most expensive type on its own: line-line (interior-interior), no classification.
void BM_LineLineHessian(benchmark::State& state) {
    const auto configs = random_edge_pairs();
    std::size_t i = 0;
    for (auto _ : state) {
        const Quad& q = configs[i++ & (kConfigs - 1)];
        Mat12 H = line_line_distance_sq_hessian(q[0], q[1], q[2], q[3]);
        benchmark::DoNotOptimize(H.data());
        benchmark::ClobberMemory();
    }
}
BENCHMARK(BM_LineLineHessian);

// What the contact energy does per active pair: classify once, then value, gradient and
// Hessian of the distance and the barrier Hessian chained through them.
void BM_PointTriangleBarrierHessian(benchmark::State& state) {
    const auto configs = active_pairs(random_point_triangles, pt_distance);
    std::size_t i = 0;
    for (auto _ : state) {
        const Quad& q = configs[i++ & (kConfigs - 1)];
        const auto type = point_triangle_distance_type(q[0], q[1], q[2], q[3]);
        const double d = point_triangle_distance_sq(q[0], q[1], q[2], q[3], type);
        const Vec12 g = point_triangle_distance_sq_gradient(q[0], q[1], q[2], q[3], type);
        const Mat12 Hd = point_triangle_distance_sq_hessian(q[0], q[1], q[2], q[3], type);
        Mat12 H = barrier_hessian<12>(d, kDhat, g, Hd);
        benchmark::DoNotOptimize(H.data());
        benchmark::ClobberMemory();
    }
}
BENCHMARK(BM_PointTriangleBarrierHessian);

void BM_EdgeEdgeBarrierHessian(benchmark::State& state) {
    const auto configs = active_pairs(random_edge_pairs, ee_distance);
    std::size_t i = 0;
    for (auto _ : state) {
        const Quad& q = configs[i++ & (kConfigs - 1)];
        const auto type = edge_edge_distance_type(q[0], q[1], q[2], q[3]);
        const double d = edge_edge_distance_sq(q[0], q[1], q[2], q[3], type);
        const Vec12 g = edge_edge_distance_sq_gradient(q[0], q[1], q[2], q[3], type);
        const Mat12 Hd = edge_edge_distance_sq_hessian(q[0], q[1], q[2], q[3], type);
        Mat12 H = barrier_hessian<12>(d, kDhat, g, Hd);
        benchmark::DoNotOptimize(H.data());
        benchmark::ClobberMemory();
    }
}
BENCHMARK(BM_EdgeEdgeBarrierHessian);

// The mollified edge-edge barrier Hessian (mollifier active: nearly parallel edges).
void BM_MollifiedEdgeEdgeBarrierHessian(benchmark::State& state) {
    std::mt19937_64 rng(10);
    std::vector<Quad> configs;
    while (configs.size() < kConfigs) {
        const Vec3 u = random_point(rng, -1, 1).normalized();
        const Vec3 side = u.unitOrthogonal(), up = u.cross(side);
        const double theta = std::uniform_real_distribution<double>(0.005, 0.03)(rng);
        const Vec3 v = std::cos(theta) * u + std::sin(theta) * side;
        const Vec3 a0 = random_point(rng, -1, 1), b0 = a0 + 0.5 * u - 0.5 * v + 0.07 * up;
        configs.push_back({a0, a0 + u, b0, b0 + v});
    }
    std::size_t i = 0;
    for (auto _ : state) {
        const Quad& q = configs[i++ & (kConfigs - 1)];
        const double eps_x = edge_edge_mollifier_threshold(q[0], q[1], q[2], q[3]);
        const auto type = edge_edge_distance_type(q[0], q[1], q[2], q[3]);
        const double d = edge_edge_distance_sq(q[0], q[1], q[2], q[3], type);
        const Vec12 gd = edge_edge_distance_sq_gradient(q[0], q[1], q[2], q[3], type);
        const Mat12 Hd = edge_edge_distance_sq_hessian(q[0], q[1], q[2], q[3], type);
        const double m = edge_edge_mollifier(q[0], q[1], q[2], q[3], eps_x);
        const Vec12 gm = edge_edge_mollifier_gradient(q[0], q[1], q[2], q[3], eps_x);
        const Mat12 Hm = edge_edge_mollifier_hessian(q[0], q[1], q[2], q[3], eps_x);
        Mat12 H =
            mollified_hessian(m, gm, Hm, barrier(d, kDhat), barrier_gradient<12>(d, kDhat, gd),
                              barrier_hessian<12>(d, kDhat, gd, Hd));
        benchmark::DoNotOptimize(H.data());
        benchmark::ClobberMemory();
    }
}
BENCHMARK(BM_MollifiedEdgeEdgeBarrierHessian);

// PSD projection of real barrier Hessians (indefinite in general): point-triangle pairs of
// all seven types as they come (most point-face), and edge-edge pairs (most edge-edge interior).
std::vector<Mat12> point_triangle_barrier_hessians() {
    std::vector<Mat12> blocks;
    for (const Quad& q : active_pairs(random_point_triangles, pt_distance)) {
        const auto type = point_triangle_distance_type(q[0], q[1], q[2], q[3]);
        blocks.push_back(
            barrier_hessian<12>(point_triangle_distance_sq(q[0], q[1], q[2], q[3], type), kDhat,
                                point_triangle_distance_sq_gradient(q[0], q[1], q[2], q[3], type),
                                point_triangle_distance_sq_hessian(q[0], q[1], q[2], q[3], type)));
    }
    return blocks;
}

std::vector<Mat12> edge_edge_barrier_hessians() {
    std::vector<Mat12> blocks;
    for (const Quad& q : active_pairs(random_edge_pairs, ee_distance)) {
        const auto type = edge_edge_distance_type(q[0], q[1], q[2], q[3]);
        blocks.push_back(
            barrier_hessian<12>(edge_edge_distance_sq(q[0], q[1], q[2], q[3], type), kDhat,
                                edge_edge_distance_sq_gradient(q[0], q[1], q[2], q[3], type),
                                edge_edge_distance_sq_hessian(q[0], q[1], q[2], q[3], type)));
    }
    return blocks;
}

template <bool Reduced>
void project_blocks(benchmark::State& state, const std::vector<Mat12>& blocks) {
    std::size_t i = 0;
    for (auto _ : state) {
        const Mat12& H = blocks[i++ & (kConfigs - 1)];
        Mat12 P;
        if constexpr (Reduced) P = project_translation_invariant_to_psd<4>(H);
        else P = project_to_psd<12>(H);
        benchmark::DoNotOptimize(P.data());
        benchmark::ClobberMemory();
    }
}

void BM_ProjectToPsd12(benchmark::State& state) {
    project_blocks<false>(state, point_triangle_barrier_hessians());
}
BENCHMARK(BM_ProjectToPsd12);

void BM_ProjectToPsd12EdgeEdge(benchmark::State& state) {
    project_blocks<false>(state, edge_edge_barrier_hessians());
}
BENCHMARK(BM_ProjectToPsd12EdgeEdge);

// The projection BarrierEnergy uses: relative coordinates of the involved points.
void BM_ProjectTranslationInvariant(benchmark::State& state) {
    project_blocks<true>(state, point_triangle_barrier_hessians());
}
BENCHMARK(BM_ProjectTranslationInvariant);

void BM_ProjectTranslationInvariantEdgeEdge(benchmark::State& state) {
    project_blocks<true>(state, edge_edge_barrier_hessians());
}
BENCHMARK(BM_ProjectTranslationInvariantEdgeEdge);

}  // namespace
}  // namespace concord
