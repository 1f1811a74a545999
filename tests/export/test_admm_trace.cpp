#include <gtest/gtest.h>

#include <cmath>

#include "concord/export/admm_trace.hpp"
#include "concord/export/plots.hpp"
#include "io/io_test_util.hpp"

namespace concord {
namespace {

/// A synthetic trace: residuals shrink geometrically, as ADMM's do when it converges.
std::string synthetic_trace(int frames, int iterations) {
    std::string out;
    for (int f = 0; f < frames; ++f)
        for (int i = 0; i < iterations + f; ++i) {
            const double r = std::pow(0.5, i);
            out += "{\"frame\": " + std::to_string(f) + ", \"iteration\": " + std::to_string(i) +
                   ", \"primal_residual\": " + std::to_string(r) +
                   ", \"dual_residual\": " + std::to_string(r / 3) +
                   ", \"mse\": " + std::to_string(r * r) + ", \"rho\": 10, \"t\": 0.001}\n";
        }
    return out;
}

TEST(AdmmTrace, ReadsAndGroupsByFrame) {
    test::ScratchDir dir("admm_read");
    test::write_file(dir.file("t.jsonl"), synthetic_trace(3, 5) + "\n");
    EXPECT_TRUE(looks_like_admm_trace(dir.file("t.jsonl")));
    const AdmmTrace trace = read_admm_trace(dir.file("t.jsonl"));
    ASSERT_EQ(trace.size(), 3u);
    EXPECT_EQ(trace.at(0).size(), 5u);
    EXPECT_EQ(trace.at(2).size(), 7u);
    EXPECT_DOUBLE_EQ(trace.at(1)[2].primal_residual, 0.25);
    EXPECT_TRUE(trace.at(1)[2].mse.has_value());
    EXPECT_DOUBLE_EQ(*trace.at(1)[2].rho, 10);
}

TEST(AdmmTrace, MalformedLinesNameLineAndKey) {
    test::ScratchDir dir("admm_bad");
    auto error_for = [&](const std::string& text) {
        test::write_file(dir.file("t.jsonl"), text);
        return test::error_of([&] { read_admm_trace(dir.file("t.jsonl")); });
    };
    EXPECT_TRUE(
        test::contains(error_for("{\"frame\": 0, \"iteration\": 0, \"dual_residual\": 1}\n"),
                       "t.jsonl: line 1: "));
    EXPECT_TRUE(test::contains(
        error_for(
            synthetic_trace(1, 1) +
            "{\"frame\": 0, \"iteration\": 1, \"primal_residual\": -1, \"dual_residual\": 1}\n"),
        "line 2: primal_residual"));
    EXPECT_TRUE(test::contains(error_for(synthetic_trace(1, 2) + synthetic_trace(1, 1)),
                               "line 3: iteration: frame 0 already has iteration 0"));
    EXPECT_TRUE(test::contains(error_for("{\"frame\": 0, \n"), "t.jsonl: line 1"));
    EXPECT_TRUE(test::contains(error_for("\n\n"), "no iterations"));
    EXPECT_TRUE(test::contains(test::error_of([&] { read_admm_trace(dir.file("missing.jsonl")); }),
                               "cannot read file"));
}

TEST(AdmmConvergenceChart, OneLinePerFrameOnALogScale) {
    test::ScratchDir dir("admm_chart");
    test::write_file(dir.file("t.jsonl"), synthetic_trace(4, 6));
    const AdmmTrace trace = read_admm_trace(dir.file("t.jsonl"));
    const Chart all = admm_convergence_chart(trace, std::nullopt, "t.jsonl");
    ASSERT_EQ(all.panels.size(), 2u);  // residuals + iterations per frame
    EXPECT_TRUE(all.panels[0].log_y);
    ASSERT_EQ(all.panels[0].series.size(), 3u);  // primal, dual, MSE
    EXPECT_EQ(all.panels[0].series[0].lines.size(), 4u);
    EXPECT_EQ(all.panels[1].series[0].lines[0].size(), 4u);
    EXPECT_DOUBLE_EQ(all.panels[1].series[0].lines[0][3].y(), 9);

    const Chart one = admm_convergence_chart(trace, 2, "t.jsonl");
    ASSERT_EQ(one.panels.size(), 1u);
    ASSERT_EQ(one.panels[0].series[0].lines.size(), 1u);
    EXPECT_EQ(one.panels[0].series[0].lines[0].size(), 8u);
    EXPECT_TRUE(
        test::contains(chart_to_svg(one), "data-series=\"primal residual\" data-count=\"8\""));
    EXPECT_TRUE(test::contains(test::error_of([&] { admm_convergence_chart(trace, 9, "t.jsonl"); }),
                               "t.jsonl: no frame 9 in the trace (frames: 0..3)"));
}

}  // namespace
}  // namespace concord
