// Time per CCD query on generated query sets (see ccd_query_generator.hpp): "ordinary" is a
// simulation-like candidate set, "hard" the degenerate and borderline cases. Counters:
// time_per_query, false_negatives (must be 0), false_positives, mean steps, gave_up.
//
//   bench_ccd --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <vector>

#include "concord/collision/ccd/ccd_query_generator.hpp"

namespace concord {
namespace {

const std::vector<CCDQuery>& query_set(CCDQueryType type, CCDQueryKind kind) {
    static std::map<std::pair<CCDQueryType, CCDQueryKind>, std::vector<CCDQuery>> cache;
    auto& queries = cache[{type, kind}];
    if (queries.empty()) {
        const long count = kind == CCDQueryKind::Ordinary ? 20000 : 4000;
        for (const GeneratedCCDQuery& g : generate_ccd_queries(type, kind, count, 2021))
            queries.push_back(g.query);
    }
    return queries;
}

void run_query_set(benchmark::State& state, CCDQueryType type, CCDQueryKind kind) {
    const std::vector<CCDQuery>& queries = query_set(type, kind);
    long false_negatives = 0, false_positives = 0, steps = 0, gave_up = 0;
    for (auto _ : state) {
        false_negatives = false_positives = steps = gave_up = 0;
        for (const CCDQuery& q : queries) {
            const CCDResult r = run_ccd_query(q);
            benchmark::DoNotOptimize(r);
            false_negatives += q.ground_truth && !r.collides;
            false_positives += r.collides && !q.ground_truth;
            steps += r.iterations;
            gave_up += r.gave_up;
        }
    }
    const double n = static_cast<double>(queries.size());
    state.SetItemsProcessed(state.iterations() * static_cast<long>(queries.size()));
    // Seconds per query, printed with an SI prefix ("225n" = 225 ns).
    state.counters["time_per_query"] =
        benchmark::Counter(static_cast<double>(state.iterations()) * n,
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["false_negatives"] = static_cast<double>(false_negatives);
    state.counters["false_positives"] = static_cast<double>(false_positives);
    state.counters["mean_steps"] = static_cast<double>(steps) / n;
    state.counters["gave_up"] = static_cast<double>(gave_up);
    state.counters["queries"] = n;
}

void BM_VertexFaceOrdinary(benchmark::State& s) {
    run_query_set(s, CCDQueryType::VertexFace, CCDQueryKind::Ordinary);
}
void BM_EdgeEdgeOrdinary(benchmark::State& s) {
    run_query_set(s, CCDQueryType::EdgeEdge, CCDQueryKind::Ordinary);
}
void BM_VertexFaceHard(benchmark::State& s) {
    run_query_set(s, CCDQueryType::VertexFace, CCDQueryKind::Hard);
}
void BM_EdgeEdgeHard(benchmark::State& s) {
    run_query_set(s, CCDQueryType::EdgeEdge, CCDQueryKind::Hard);
}
BENCHMARK(BM_VertexFaceOrdinary)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EdgeEdgeOrdinary)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VertexFaceHard)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EdgeEdgeHard)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace concord
