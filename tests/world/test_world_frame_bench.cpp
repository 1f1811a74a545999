// A few frames of an example scene from a saved state: the profiling and before/after driver
// behind docs/benchmarks.md ("Dense frames from a saved state"). Disabled by default; run with
//   CONCORD_BENCH_SCENE=funnel CONCORD_BENCH_FROM=80 CONCORD_BENCH_FRAMES=2
//   CONCORD_BENCH_STATE=/tmp/funnel-80.state
//   build/tests/test_world --gtest_also_run_disabled_tests --gtest_filter='*DenseFrames*'
// The first run steps FROM frames and saves the state to CONCORD_BENCH_STATE (when given);
// later runs load it, so every run times the same FRAMES frames. scripts/state_from_frames.py
// writes such a state from a `concord run` output instead. CONCORD_BENCH_SCENE is a name in
// scenes/ or a path to a .json scene. Each frame prints the
// solver statistics and a checksum of q, so two builds can be compared bit for bit.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <ctime>
#include <string>

#include "concord/scene/scene_parser.hpp"
#include "concord/world/world.hpp"

using namespace concord;

namespace {

int env_int(const char* name, int fallback) {
    const char* v = std::getenv(name);
    return v ? std::atoi(v) : fallback;
}

// CPU seconds of the whole process: on a shared machine the wall time of a frame depends on
// the other processes, its CPU time (one thread) much less.
double process_cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Order-dependent checksum of the bits of q: equal only when every body's state is identical.
std::uint64_t state_checksum(const VecX& q) {
    std::uint64_t h = 1469598103934665603ull;
    for (Eigen::Index i = 0; i < q.size(); ++i) {
        std::uint64_t bits;
        const double v = q[i];
        std::memcpy(&bits, &v, sizeof bits);
        h = (h ^ bits) * 1099511628211ull;
    }
    return h;
}

// The Newton iterations of the largest island of the last step, one line each: where the
// iterations of a dense step go (CCD-capped steps, backtracking, the step measure).
void print_newton_trace(const SolverStats& stats) {
    const IslandStats* largest = nullptr;
    for (const IslandStats& island : stats.islands)
        if (!largest || island.iterations > largest->iterations) largest = &island;
    if (!largest) return;
    std::printf("  largest island: %zu bodies, %zu solves\n", largest->bodies.size(),
                largest->solves.size());
    for (std::size_t s = 0; s < largest->solves.size(); ++s) {
        const NewtonStats& solve = largest->solves[s];
        std::printf("  solve %zu: %d iterations, last step measure %.3g\n", s, solve.iterations,
                    solve.last_step_measure);
        for (std::size_t k = 0; k < solve.history.size(); ++k) {
            const NewtonIteration& it = solve.history[k];
            std::printf("    %3zu residual %.3e |dq| %.3e measure %.3e ccd cap %.3e step %.3e trials %d%s%s\n", k,
                        it.residual, it.direction_norm, it.step_measure, it.max_step, it.step,
                        it.line_search_trials, it.psd_retry ? " psd-retry" : "",
                        it.fallback_direction ? " fallback" : "");
        }
    }
}

}  // namespace

TEST(WorldBenchmark, DISABLED_DenseFrames) {
    const char* scene_name = std::getenv("CONCORD_BENCH_SCENE") ? std::getenv("CONCORD_BENCH_SCENE")
                                                                : "funnel";
    const int from = env_int("CONCORD_BENCH_FROM", 60);
    const int frames = env_int("CONCORD_BENCH_FRAMES", 4);
    const int threads = env_int("CONCORD_BENCH_THREADS", 1);
    const char* state_file = std::getenv("CONCORD_BENCH_STATE");
    const bool trace = env_int("CONCORD_BENCH_TRACE", 0) != 0;
    tbb::global_control control(tbb::global_control::max_allowed_parallelism,
                          static_cast<std::size_t>(threads));
    // A name (scenes/NAME.json) or a path to a scene file.
    const std::string name = scene_name;
    const SceneSpec scene = load_scene_file(
        name.ends_with(".json") ? name : std::string(CONCORD_SOURCE_DIR) + "/scenes/" + name + ".json");
    World w(scene);
    ASSERT_EQ(scene.substeps, 1) << "the driver counts one step per frame";
    if (state_file && std::filesystem::exists(state_file)) {
        w.load_state(state_file);
        std::printf("loaded %s (step %d)\n", state_file, w.step_count());
    } else {
        for (int k = 0; k < from; ++k) w.step();
        if (state_file) w.save_state(state_file);
        std::printf("stepped to frame %d%s%s\n", from, state_file ? ", saved " : "",
                    state_file ? state_file : "");
    }
    ASSERT_EQ(w.step_count(), from) << "the saved state is not the state after FROM frames";
    std::printf(
        "| frame | CPU s | t_frame s | t_coll | t_assembly | t_linear | t_line_search | Newton it. | "
        "contacts | candidates | islands | converged | q checksum |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    double total = 0, cpu = 0, coll = 0, assembly = 0, linear = 0, search = 0;
    long iterations = 0, contacts = 0;
    for (int k = 0; k < frames; ++k) {
        const auto t0 = std::chrono::steady_clock::now();
        const double c0 = process_cpu_seconds();
        const StepStats& s = w.step();
        const double c = process_cpu_seconds() - c0;
        const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        total += t;
        cpu += c;
        coll += s.t_coll;
        assembly += s.t_assembly;
        linear += s.t_linear;
        search += s.t_line_search;
        iterations += s.newton_iterations;
        contacts += s.contacts;
        std::printf("| %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %d | %d | %d | %d | %s | %016llx |\n",
                    from + k + 1, c, t, s.t_coll, s.t_assembly, s.t_linear, s.t_line_search,
                    s.newton_iterations, s.contacts, s.candidates, s.islands,
                    s.converged ? "yes" : "no",
                    static_cast<unsigned long long>(state_checksum(w.state_vector())));
        if (trace) print_newton_trace(w.solver_stats());
        std::fflush(stdout);
    }
    std::printf(
        "total %.3f s (CPU %.3f s) over %d frames: t_coll %.3f, t_assembly %.3f, t_linear %.3f, "
        "t_line_search %.3f, other %.3f; Newton iterations %ld, contacts per frame %.1f\n",
        total, cpu, frames, coll, assembly, linear, search, total - coll - assembly - linear - search,
        iterations, static_cast<double>(contacts) / std::max(1, frames));
}
