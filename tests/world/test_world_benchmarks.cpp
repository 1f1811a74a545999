// Measurements behind docs/solver.md and docs/benchmarks.md. Disabled by default (they take a
// while and time the machine); run them with
//   build/tests/test_world --gtest_also_run_disabled_tests --gtest_filter='*Benchmark*'
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "concord/scene/scene_parser.hpp"
#include "concord/solver/solver_enum_names.hpp"
#include "concord/world/world.hpp"

using namespace concord;

namespace {

struct Measurement {
    double ms_per_step = 0.0;
    double iterations_per_step = 0.0;
    int stopped = 0;
    double final_islands = 0;
    double coll = 0, assembly = 0, linear = 0, line_search = 0;  ///< ms per step (CPU, summed)
};

Measurement measure(const SceneSpec& s, int steps, int repetitions) {
    Measurement best;
    best.ms_per_step = 1e300;
    for (int r = 0; r < repetitions; ++r) {
        World w(s);
        long iterations = 0;
        int stopped = 0;
        double coll = 0, assembly = 0, linear = 0, line_search = 0;
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < steps; ++i) {
            const StepStats& st = w.step();
            iterations += st.newton_iterations;
            stopped += st.status != ConvergenceStatus::Converged;
            coll += st.t_coll;
            assembly += st.t_assembly;
            linear += st.t_linear;
            line_search += st.t_line_search;
        }
        const double ms =
            1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() /
            steps;
        if (ms < best.ms_per_step) {
            best.ms_per_step = ms;
            best.iterations_per_step = static_cast<double>(iterations) / steps;
            best.stopped = stopped;
            best.final_islands = w.last_stats().islands;
            best.coll = 1e3 * coll / steps;
            best.assembly = 1e3 * assembly / steps;
            best.linear = 1e3 * linear / steps;
            best.line_search = 1e3 * line_search / steps;
        }
    }
    return best;
}

// `count` piles of `height` cylinders (24 segments, 0.5 m across), 3 m apart on a plane with
// friction, each layer turned so that the contacts mix edge-edge and point-triangle pairs. The
// layers of pile p start 2 + 30 p mm apart, so the piles settle at different times, as
// independent groups in a real scene do.
SceneSpec separated_piles(int count, int height) {
    SceneSpec s;
    s.time_step = 0.01;
    s.planes.push_back(PlaneSpec{});
    s.contact.friction = 0.3;
    for (int p = 0; p < count; ++p)
        for (int k = 0; k < height; ++k) {
            BodySpec b;
            b.name = "pile" + std::to_string(p) + "_" + std::to_string(k);
            b.shape.kind = ShapeKind::Cylinder;
            b.shape.radius = 0.25;
            b.shape.height = 0.4;
            b.shape.segments = 24;
            b.material = {1000.0, 1e8};
            const double gap = 0.002 + 0.03 * p;
            b.position =
                Vec3(3.0 * (p % 4) + 0.02 * k, 0.2 + k * (0.4 + gap) + 0.002, 3.0 * (p / 4));
            b.rotation = Eigen::AngleAxisd(0.3 * k + 0.1 * p, Vec3::UnitY()).toRotationMatrix();
            s.bodies.push_back(b);
        }
    return s;
}

}  // namespace

TEST(WorldBenchmark, DISABLED_IslandsOnTwoCores) {
    tbb::global_control c(tbb::global_control::max_allowed_parallelism, 2);
    SceneSpec s = separated_piles(6, 3);
    const int steps =
        std::getenv("CONCORD_BENCH_STEPS") ? std::atoi(std::getenv("CONCORD_BENCH_STEPS")) : 40;
    s.solver.islands = false;
    const Measurement mono = measure(s, steps, 2);
    s.solver.islands = true;
    const Measurement isl = measure(s, steps, 2);
    std::printf("separated piles: %zu bodies, %d steps\n", s.bodies.size(), steps);
    std::printf("  islands off: %.2f ms/step, %.1f iterations/step, %d not converged\n",
                mono.ms_per_step, mono.iterations_per_step, mono.stopped);
    std::printf(
        "  islands on:  %.2f ms/step, %.1f iterations/step (largest island), %d not "
        "converged, %g islands at the end\n",
        isl.ms_per_step, isl.iterations_per_step, isl.stopped, isl.final_islands);
    for (const Measurement* m : {&mono, &isl})
        std::printf(
            "  phases (ms/step): collision %.1f, assembly %.1f, linear %.1f, line search %.1f\n",
            m->coll, m->assembly, m->linear, m->line_search);
    std::printf("  speed-up: %.2fx\n", mono.ms_per_step / isl.ms_per_step);
    {
        tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
        const Measurement isl1 = measure(s, steps, 2);
        std::printf("  islands on, 1 thread: %.2f ms/step (parallel speed-up %.2fx)\n",
                    isl1.ms_per_step, isl1.ms_per_step / isl.ms_per_step);
    }
}

TEST(WorldBenchmark, DISABLED_OptionsOnAnExampleScene) {
    const char* scene =
        std::getenv("CONCORD_BENCH_SCENE") ? std::getenv("CONCORD_BENCH_SCENE") : "head-on";
    const SceneSpec base =
        load_scene_file(std::string(CONCORD_SOURCE_DIR) + "/scenes/" + scene + ".json");
    const int steps = base.frames * base.substeps;
    std::printf(
        "scenes/%s.json, %d steps\n| option | iterations / step | ms / step | not converged "
        "|\n|---|---|---|---|\n",
        scene, steps);
    auto row = [&](const std::string& name, const SceneSpec& s) {
        const Measurement r = measure(s, steps, 3);
        std::printf("| %s | %.2f | %.2f | %d |\n", name.c_str(), r.iterations_per_step,
                    r.ms_per_step, r.stopped);
    };
    row("defaults (auto = ldlt, backtracking)", base);
    for (LinearSolverType t : {LinearSolverType::LDLT, LinearSolverType::CG,
                               LinearSolverType::MINRES, LinearSolverType::GMRES}) {
        SceneSpec s = base;
        s.solver.linear.type = t;
        row("linear_solver " + std::string(to_string(t)), s);
    }
    for (PreconditionerType t : {PreconditionerType::None, PreconditionerType::Jacobi,
                                 PreconditionerType::IncompleteCholesky}) {
        SceneSpec s = base;
        s.solver.linear.type = LinearSolverType::CG;
        s.solver.linear.preconditioner = t;
        row("cg + " + std::string(to_string(t)), s);
    }
    for (LineSearchType t : {LineSearchType::ResidualNorm, LineSearchType::StrongWolfe}) {
        SceneSpec s = base;
        s.solver.line_search = t;
        row("line_search " + std::string(to_string(t)), s);
    }
    for (PsdProjectionMode m : {PsdProjectionMode::Never, PsdProjectionMode::IfFailRetry,
                                PsdProjectionMode::IfFailAlways}) {
        SceneSpec s = base;
        s.solver.psd_projection = m;
        row("psd_projection " + std::string(to_string(m)), s);
    }
    {
        SceneSpec s = base;
        s.solver.convergence_mode = ConvergenceMode::StepNorm;
        row("convergence_mode step_norm (step_tol 1e-2)", s);
        s.solver.convergence_mode = ConvergenceMode::PerBodyWeighted;
        s.solver.max_iterations = 4;
        row("max_iterations 4", s);
        s.solver.on_failure = FailurePolicy::RetryHalving;
        row("max_iterations 4 + retry_halving", s);
    }
}
