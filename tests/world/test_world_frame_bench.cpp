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

}  // namespace

TEST(WorldBenchmark, DISABLED_DenseFrames) {
    const char* scene_name = std::getenv("CONCORD_BENCH_SCENE") ? std::getenv("CONCORD_BENCH_SCENE")
                                                                : "funnel";
    const int from = env_int("CONCORD_BENCH_FROM", 60);
    const int frames = env_int("CONCORD_BENCH_FRAMES", 4);
    const int threads = env_int("CONCORD_BENCH_THREADS", 1);
    const char* state_file = std::getenv("CONCORD_BENCH_STATE");
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
        std::fflush(stdout);
    }
    std::printf(
        "total %.3f s (CPU %.3f s) over %d frames: t_coll %.3f, t_assembly %.3f, t_linear %.3f, "
        "t_line_search %.3f, other %.3f; Newton iterations %ld, contacts per frame %.1f\n",
        total, cpu, frames, coll, assembly, linear, search, total - coll - assembly - linear - search,
        iterations, static_cast<double>(contacts) / std::max(1, frames));
}
