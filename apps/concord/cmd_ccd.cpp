// `concord ccd FILE.csv --type vf|ee`: runs every query of a CCD benchmark file and compares
// with its ground truth; `concord ccd-generate OUT.csv --type vf|ee --count N`: writes queries
// with proven ground truth.
#include <chrono>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "concord/collision/ccd/ccd_query_generator.hpp"
#include "concord/collision/ccd/ccd_query_io.hpp"

namespace concord::cli {
namespace {

struct RunOptions {
    std::string file;
    std::string type;
    long repeat = 1;
    CCDParams params;
};

struct GenerateOptions {
    std::string file;
    std::string type;
    std::string kind = "ordinary";
    long count = 0;
    std::uint64_t seed = 1;
};

int run_ccd(const RunOptions& o) {
    validate_ccd_params(o.params);
    const CCDQueryType type = parse_ccd_query_type(o.type);
    const std::vector<CCDQuery> queries = read_ccd_queries(o.file, type);

    std::vector<CCDResult> results(queries.size());
    const auto start = std::chrono::steady_clock::now();
    for (long r = 0; r < o.repeat; ++r)
        for (std::size_t k = 0; k < queries.size(); ++k)
            results[k] = run_ccd_query(queries[k], o.params);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    long positives = 0, truths = 0, false_negatives = 0, false_positives = 0, gave_up = 0,
         inexact = 0, iterations = 0;
    for (std::size_t k = 0; k < queries.size(); ++k) {
        const bool hit = results[k].collides, truth = queries[k].ground_truth;
        positives += hit;
        truths += truth;
        false_negatives += truth && !hit;
        false_positives += hit && !truth;
        gave_up += results[k].gave_up;
        inexact += !queries[k].exact;
        iterations += results[k].iterations;
    }
    const double n = static_cast<double>(queries.size());
    const double mean_us = queries.empty() ? 0.0 : seconds * 1e6 / (n * o.repeat);

    std::cout << "ccd: " << queries.size()
              << (type == CCDQueryType::VertexFace ? " vertex-face" : " edge-edge")
              << " queries from " << o.file << " (min separation " << o.params.min_separation
              << ", tmax " << o.params.tmax << ", rescaling " << o.params.conservative_rescaling
              << ")\n";
    std::cout << "  reported colliding: " << positives << " (ground truth " << truths << "); "
              << false_negatives << " false negatives, " << false_positives << " false positives\n";
    std::cout << "  mean " << std::setprecision(4) << mean_us << " us per query over " << o.repeat
              << " repeat(s); mean " << (queries.empty() ? 0.0 : iterations / n)
              << " steps; gave up on " << gave_up << "\n";
    if (inexact > 0)
        std::cout << "  note: " << inexact
                  << " queries have coordinates that are not exact doubles (rounded to nearest)\n";

    nlohmann::json summary;
    summary["queries"] = queries.size();
    summary["positives"] = positives;
    summary["false_negatives"] = false_negatives;
    summary["false_positives"] = false_positives;
    summary["mean_us"] = mean_us;
    std::cout << summary.dump() << std::endl;
    return kExitOk;
}

int run_generate(const GenerateOptions& o) {
    const CCDQueryType type = parse_ccd_query_type(o.type);
    const CCDQueryKind kind = parse_ccd_query_kind(o.kind);
    const std::vector<GeneratedCCDQuery> generated =
        generate_ccd_queries(type, kind, o.count, o.seed);
    std::vector<CCDQuery> queries;
    queries.reserve(generated.size());
    long hits = 0;
    for (const GeneratedCCDQuery& g : generated) {
        queries.push_back(g.query);
        hits += g.query.ground_truth;
    }
    write_ccd_queries(o.file, queries);
    std::cout << "ccd-generate: wrote " << queries.size() << ' ' << o.kind << ' ' << o.type
              << " queries (" << hits << " touching, " << queries.size() - hits << " missing, seed "
              << o.seed << ") to " << o.file << "\n";
    return kExitOk;
}

}  // namespace

void register_ccd(CLI::App& app, Action& action) {
    auto run = std::make_shared<RunOptions>();
    auto* cmd = app.add_subcommand("ccd", "Run CCD queries from a benchmark CSV file");
    cmd->add_option("file", run->file, "CSV file, 8 rows per query (Wang et al. 2021 layout)")
        ->required();
    cmd->add_option("--type", run->type, "Query type: vf (vertex-face) or ee (edge-edge)")
        ->required()
        ->check(CLI::IsMember({"vf", "ee"}));
    cmd->add_option("--min-separation", run->params.min_separation,
                    "Minimum separation xi; distance <= xi counts as a collision (default 0)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--repeat", run->repeat, "Run every query K times for timing (default 1)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--tmax", run->params.tmax, "Largest time examined (default 1)");
    cmd->add_option("--rescaling", run->params.conservative_rescaling,
                    "Conservative rescaling s in (0, 1) (default 0.9)");
    cmd->add_option("--max-iterations", run->params.max_iterations,
                    "Steps before giving up conservatively (default 1000000)");
    cmd->callback([run, &action] { action = [run] { return run_ccd(*run); }; });

    auto gen = std::make_shared<GenerateOptions>();
    auto* g = app.add_subcommand("ccd-generate",
                                 "Write CCD queries with proven ground truth to a CSV file");
    g->add_option("file", gen->file, "Output CSV file")->required();
    g->add_option("--type", gen->type, "Query type: vf or ee")
        ->required()
        ->check(CLI::IsMember({"vf", "ee"}));
    g->add_option("--count", gen->count, "Number of queries")
        ->required()
        ->check(CLI::NonNegativeNumber);
    g->add_option("--seed", gen->seed, "Random seed (default 1)");
    g->add_option("--kind", gen->kind,
                  "ordinary (simulation-like candidates) or hard (degenerate cases)")
        ->check(CLI::IsMember({"ordinary", "hard"}));
    g->callback([gen, &action] { action = [gen] { return run_generate(*gen); }; });
}

}  // namespace concord::cli
