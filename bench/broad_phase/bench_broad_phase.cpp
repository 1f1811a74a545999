// Broad-phase benchmarks on a dense pile of icospheres (about 10k, 100k and 1M triangles).
//
// Each scene is a grid of unit icospheres (1280 triangles each) whose centres are 2.002 apart
// with random offsets of up to 0.01 per axis, so neighbours nearly touch, every sphere moving
// by a small random translation during the step; dhat = 1e-3. Arguments: number of spheres,
// thread limit (tbb::global_control max_allowed_parallelism).
//
//   bench_broad_phase --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <utility>

#include "concord/collision/broad_phase/broad_phase.hpp"
#include "concord/collision/broad_phase/swept_boxes.hpp"

namespace {

using namespace concord;

struct Icosphere {
    std::vector<Vec3> vertices;
    Faces faces;
    Edges edges;
};

// Icosahedron subdivided `levels` times, projected onto the unit sphere.
Icosphere make_icosphere(int levels) {
    const double t = (1.0 + std::sqrt(5.0)) / 2.0;
    std::vector<Vec3> v = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0},
                           {0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t},
                           {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    std::vector<std::array<int, 3>> f = {
        {0, 11, 5},  {0, 5, 1},  {0, 1, 7},  {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
        {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
        {3, 8, 9},   {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
    for (auto& p : v) p.normalize();
    for (int level = 0; level < levels; ++level) {
        std::map<std::pair<int, int>, int> midpoint;
        auto mid = [&](int a, int b) {
            const auto key = std::minmax(a, b);
            auto [it, inserted] = midpoint.try_emplace(key, static_cast<int>(v.size()));
            if (inserted)
                v.push_back(
                    (v[static_cast<std::size_t>(a)] + v[static_cast<std::size_t>(b)]).normalized());
            return it->second;
        };
        std::vector<std::array<int, 3>> next;
        for (const auto& [a, b, c] : f) {
            const int ab = mid(a, b), bc = mid(b, c), ca = mid(c, a);
            next.insert(next.end(), {{a, ab, ca}, {b, bc, ab}, {c, ca, bc}, {ab, bc, ca}});
        }
        f.swap(next);
    }
    Icosphere sphere;
    sphere.vertices = v;
    sphere.faces.resize(static_cast<Eigen::Index>(f.size()), 3);
    for (std::size_t i = 0; i < f.size(); ++i)
        for (int k = 0; k < 3; ++k)
            sphere.faces(static_cast<Eigen::Index>(i), k) = f[i][static_cast<std::size_t>(k)];
    sphere.edges = unique_edges(sphere.faces);
    return sphere;
}

struct Pile {
    CollisionMesh mesh;
    Vertices x0, x1;
};

Pile make_pile(int num_spheres) {
    static const Icosphere sphere = make_icosphere(3);
    // Grid as close to a cube as the count allows.
    const int nx = std::max(1, static_cast<int>(std::round(std::cbrt(num_spheres))));
    const int nv = static_cast<int>(sphere.vertices.size());
    const int nf = static_cast<int>(sphere.faces.rows()),
              ne = static_cast<int>(sphere.edges.rows());
    Pile pile;
    pile.x0.resize(static_cast<Eigen::Index>(num_spheres) * nv, 3);
    pile.mesh.faces.resize(static_cast<Eigen::Index>(num_spheres) * nf, 3);
    pile.mesh.edges.resize(static_cast<Eigen::Index>(num_spheres) * ne, 2);
    pile.x1 = pile.x0;
    std::mt19937 rng(42);
    std::uniform_real_distribution<double> jitter(-0.01, 0.01);
    std::normal_distribution<double> motion(0.0, 0.003);
    for (int b = 0; b < num_spheres; ++b) {
        const Vec3 centre = 2.002 * Vec3(b % nx, (b / nx) % nx, b / (nx * nx)) +
                            Vec3(jitter(rng), jitter(rng), jitter(rng));
        const Vec3 step(motion(rng), motion(rng), motion(rng));
        for (int i = 0; i < nv; ++i) {
            const Vec3 p = centre + sphere.vertices[static_cast<std::size_t>(i)];
            pile.x0.row(b * nv + i) = p;
            pile.x1.row(b * nv + i) = p + step;
        }
        pile.mesh.faces.middleRows(b * nf, nf) = sphere.faces.array() + b * nv;
        pile.mesh.edges.middleRows(b * ne, ne) = sphere.edges.array() + b * nv;
        pile.mesh.vertex_body.insert(pile.mesh.vertex_body.end(), static_cast<std::size_t>(nv), b);
        pile.mesh.face_body.insert(pile.mesh.face_body.end(), static_cast<std::size_t>(nf), b);
        pile.mesh.edge_body.insert(pile.mesh.edge_body.end(), static_cast<std::size_t>(ne), b);
    }
    return pile;
}

const Pile& pile(int num_spheres) {
    static std::map<int, std::unique_ptr<Pile>> cache;
    auto& entry = cache[num_spheres];
    if (!entry) entry = std::make_unique<Pile>(make_pile(num_spheres));
    return *entry;
}

constexpr double kDhat = 1e-3;

void set_counters(benchmark::State& state, const Pile& p, std::size_t candidates) {
    const double n = static_cast<double>(p.mesh.num_faces());
    state.counters["triangles"] = n;
    state.counters["candidates"] = static_cast<double>(candidates);
    state.counters["candidates_per_s"] = benchmark::Counter(
        static_cast<double>(candidates), benchmark::Counter::kIsIterationInvariantRate);
}

// Swept boxes of faces and edges and both hierarchies, buffers reused across iterations.
void BM_Build(benchmark::State& state) {
    const Pile& p = pile(static_cast<int>(state.range(0)));
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                              static_cast<std::size_t>(state.range(1)));
    LBVH faces, edges;
    std::vector<AABB> face_boxes, edge_boxes;
    for (auto _ : state) {
        swept_face_boxes(p.mesh.faces, p.x0, p.x1, kDhat / 2, face_boxes);
        swept_edge_boxes(p.mesh.edges, p.x0, p.x1, kDhat / 2, edge_boxes);
        faces.build(face_boxes, p.mesh.face_body);
        edges.build(edge_boxes, p.mesh.edge_body);
        benchmark::DoNotOptimize(faces.bounds());
    }
    set_counters(state, p, 0);
}

// Point-triangle and edge-edge queries against prebuilt hierarchies, sorted output included.
void BM_Query(benchmark::State& state) {
    const Pile& p = pile(static_cast<int>(state.range(0)));
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                              static_cast<std::size_t>(state.range(1)));
    const auto vertex_boxes = swept_vertex_boxes(p.x0, p.x1, kDhat / 2);
    LBVH faces, edges;
    faces.build(swept_face_boxes(p.mesh.faces, p.x0, p.x1, kDhat / 2), p.mesh.face_body);
    edges.build(swept_edge_boxes(p.mesh.edges, p.x0, p.x1, kDhat / 2), p.mesh.edge_body);
    std::size_t found = 0;
    for (auto _ : state) {
        const auto pt = point_triangle_candidates(p.mesh, vertex_boxes, faces);
        const auto ee = edge_edge_candidates(p.mesh, edges);
        found = pt.size() + ee.size();
        benchmark::DoNotOptimize(found);
    }
    set_counters(state, p, found);
}

// The whole call (validation, boxes, build, query) on a BroadPhase object reused across
// iterations, as a simulation reuses it every step; find_candidates() on a fresh object costs
// more at large sizes (about 1.5x at 1M triangles) because its buffers fault in fresh pages.
void BM_FindCandidates(benchmark::State& state) {
    const Pile& p = pile(static_cast<int>(state.range(0)));
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                              static_cast<std::size_t>(state.range(1)));
    BroadPhaseParams params;
    params.dhat = kDhat;
    params.method =
        state.range(2) == 0 ? BroadPhaseMethod::lbvh : BroadPhaseMethod::sweep_and_prune;
    BroadPhase broad_phase;
    std::size_t found = 0;
    for (auto _ : state) {
        found = broad_phase.find(p.mesh, p.x0, p.x1, params).size();
        benchmark::DoNotOptimize(found);
    }
    set_counters(state, p, found);
}

// "Time" is wall-clock time, "CPU" the CPU time of all threads of the process: on a shared
// machine the single-thread CPU time is the trustworthy cost, wall time shows the speed-up.
// With --benchmark_repetitions, the fastest repetition is the least disturbed by other load.
double minimum(const std::vector<double>& v) {
    return *std::min_element(v.begin(), v.end());
}

// 8, 80 and 800 spheres: 10'240, 102'400 and 1'024'000 triangles.
void sizes_and_threads(benchmark::internal::Benchmark* b) {
    b->ArgNames({"spheres", "threads"});
    for (const int spheres : {8, 80, 800})
        for (const int threads : {1, 2}) b->Args({spheres, threads});
    b->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->MeasureProcessCPUTime()
        ->ComputeStatistics("min", minimum);
}

void methods(benchmark::internal::Benchmark* b) {
    b->ArgNames({"spheres", "threads", "sap"});
    for (const int spheres : {8, 80, 800})
        for (const int threads : {1, 2}) b->Args({spheres, threads, 0});
    // Sweep and prune scans every pair overlapping on one axis: quadratic in a 3D pile, so only
    // the two smaller sizes.
    for (const int spheres : {8, 80})
        for (const int threads : {1, 2}) b->Args({spheres, threads, 1});
    b->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->MeasureProcessCPUTime()
        ->ComputeStatistics("min", minimum);
}

}  // namespace

BENCHMARK(BM_Build)->Apply(sizes_and_threads);
BENCHMARK(BM_Query)->Apply(sizes_and_threads);
BENCHMARK(BM_FindCandidates)->Apply(methods);
