// The scene's "distributed" object: the keys of the consensus solver's options, their errors,
// the round trip, and the worker count a run asks for.
#include <gtest/gtest.h>

#include "concord/scene/distributed_json.hpp"
#include "scene_test_util.hpp"

namespace concord {
namespace {

using test::contains;
using test::error_of;
using test::parse_error;
using test::parse_text;

std::string with_distributed(const std::string& object) {
    return R"({"bodies": [{"name": "b", "shape": {"box": {"size": [1, 1, 1]}}}], "distributed": )" +
           object + "}";
}

TEST(DistributedJson, ReadsTheConsensusOptions) {
    const DistributedSpec d =
        parse_text(
            with_distributed(
                R"({"workers": 4, "adapt_rule": "paper", "width_rule": "paper", "width_speed": "approach",
            "initial_planes": "even", "plane_gaps": false, "local_iterations": 0, "warm_start": false,
            "warm_start_penalty": true, "local_islands": false, "anderson_window": 4,
            "initial_consensus": "start",
            "load_balance": {"dead_band": 0.2, "moves": "controller"}})"))
            .distributed;
    EXPECT_EQ(d.adapt_rule, AdaptRule::Paper);
    EXPECT_EQ(d.width_rule, WidthRule::Paper);
    EXPECT_EQ(d.width_speed, WidthSpeed::Approach);
    EXPECT_EQ(d.initial_planes, InitialPlanes::Even);
    EXPECT_FALSE(d.plane_gaps);
    EXPECT_EQ(d.local_iterations, 0);
    EXPECT_FALSE(d.warm_start);
    EXPECT_TRUE(d.warm_start_penalty);
    EXPECT_FALSE(d.local_islands);
    EXPECT_EQ(d.anderson_window, 4);
    EXPECT_EQ(d.initial_consensus, InitialConsensus::Start);
    EXPECT_DOUBLE_EQ(d.load_balance.dead_band, 0.2);
    EXPECT_EQ(d.load_balance.moves, PlaneMoves::Controller);
    EXPECT_EQ(parse_text(with_distributed(R"({"initial_consensus": "resting"})"))
                  .distributed.initial_consensus,
              InitialConsensus::Resting);
    EXPECT_EQ(parse_text(with_distributed(R"({"initial_consensus": "predicted"})"))
                  .distributed.initial_consensus,
              InitialConsensus::Predicted);
    // Defaults, chosen by measurement (docs/benchmarks.md, "Distributed solver").
    const DistributedSpec def;
    EXPECT_EQ(def.adapt_rule, AdaptRule::Normalized);
    EXPECT_EQ(def.width_rule, WidthRule::Contact);
    // per-body speeds tie on the spheres benchmark and keep bodies shared at rest
    EXPECT_EQ(def.width_speed, WidthSpeed::Fastest);
    EXPECT_EQ(def.initial_planes, InitialPlanes::Quantile);
    EXPECT_TRUE(def.plane_gaps);
    EXPECT_EQ(def.local_iterations, 2);
    EXPECT_TRUE(def.warm_start);
    EXPECT_FALSE(def.warm_start_penalty);
    EXPECT_TRUE(def.local_islands);
    EXPECT_EQ(def.anderson_window, 0);  // plain ADMM: Anderson does not win at the defaults
    // per body: fewest ADMM iterations and fastest on 4 workers (docs/benchmarks.md)
    EXPECT_EQ(def.initial_consensus, InitialConsensus::Resting);
    // planes that chase the work count's noise cost ADMM iterations (docs/benchmarks.md)
    EXPECT_DOUBLE_EQ(def.load_balance.dead_band, 0.05);
    // a plane crossing a column bit by bit shares it all the while (docs/benchmarks.md)
    EXPECT_EQ(def.load_balance.moves, PlaneMoves::Gaps);
    // Every key survives the round trip.
    DistributedSpec all = d;
    all.adapt_rule = AdaptRule::Spectral;
    const nlohmann::json j = distributed_spec_to_json(all);
    EXPECT_EQ(parse_distributed_spec(JsonNode(j, "a.json", "distributed")), all);
}

TEST(DistributedJson, BadValuesNameTheKey) {
    EXPECT_TRUE(contains(parse_error(with_distributed(R"({"adapt_rule": "boyd"})")),
                         "distributed.adapt_rule: expected one of normalized, paper, spectral"));
    EXPECT_TRUE(
        contains(parse_error(with_distributed(R"({"width_rule": 3})")), "distributed.width_rule"));
    EXPECT_TRUE(contains(parse_error(with_distributed(R"({"width_speed": "max"})")),
                         "distributed.width_speed: expected one of fastest, approach"));
    EXPECT_TRUE(contains(parse_error(with_distributed(R"({"load_balance": {"moves": "jump"}})")),
                         "distributed.load_balance.moves: expected one of gaps, controller"));
    EXPECT_TRUE(contains(parse_error(with_distributed(R"({"initial_planes": "random"})")),
                         "distributed.initial_planes: expected one of quantile, even"));
    EXPECT_TRUE(
        contains(parse_error(with_distributed(R"({"initial_consensus": "zero"})")),
                 "distributed.initial_consensus: expected one of predicted, start, resting"));
    EXPECT_TRUE(contains(parse_error(with_distributed(R"({"local_iterations": -1})")),
                         "distributed.local_iterations"));
    EXPECT_TRUE(contains(parse_error(with_distributed(R"({"warm_start": "yes"})")),
                         "distributed.warm_start"));
    EXPECT_TRUE(contains(parse_error(with_distributed(R"({"anderson_window": 17})")),
                         "distributed.anderson_window"));
    EXPECT_TRUE(contains(parse_error(with_distributed(R"({"anderson_window": 1.5})")),
                         "distributed.anderson_window"));
    EXPECT_TRUE(contains(parse_error(with_distributed(R"({"load_balance": {"dead_band": 1}})")),
                         "distributed.load_balance.dead_band: must be in [0, 1)"));
    EXPECT_TRUE(contains(parse_error(with_distributed(R"({"load_balance": {"dead_band": -0.1}})")),
                         "distributed.load_balance.dead_band"));
    DistributedSpec d;
    d.anderson_window = -1;
    EXPECT_EQ(error_of([&] { validate_distributed_spec(d); }),
              "distributed.anderson_window: must be 0 (off) to 16");
}

TEST(DistributedJson, WorkerCountFromARunRespectsTheScenesGrid) {
    DistributedSpec d;
    set_worker_count(d, 3, "--workers 3");
    EXPECT_EQ(d.workers, 3);  // slabs
    d.grid = {2, 2, 1};
    set_worker_count(d, 4, "--workers 4");
    EXPECT_EQ(d.workers, 4);
    EXPECT_EQ(error_of([&] { set_worker_count(d, 2, "workers=2"); }),
              "workers=2: the scene's distributed.grid has 4 cells");
    EXPECT_TRUE(contains(error_of([&] { set_worker_count(d, 0, "--workers 0"); }),
                         "--workers 0: expected 1 to 64 workers, got 0"));
    EXPECT_EQ(d.workers, 4);  // unchanged by the refusals
}

}  // namespace
}  // namespace concord
