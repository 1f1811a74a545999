// The modelled distributed speed-up measured in pairs (docs/benchmarks.md: "Fluids", paragraph
// "Measuring on this machine", and "The scaling table measured in pairs on one CPU"): one
// process steps the same scene on one machine (World) and
// with N in-process workers (DistributedWorld), one time step of each in turn, so that whatever
// slows this machine down for a while (other tenants, clock changes) slows both sides of a pair
// alike. Per step it prints the single machine's t_frame and the distributed run's t_parallel
// (the modelled time of N one-core machines: docs/distributed.md); at the end the ratio of their
// sums and the median of the per-step ratios. Both run on one thread unless --threads says
// otherwise, as in scripts/bench_distributed.py and scripts/bench_fluid.py.
//
//   bench_paired SCENE WORKERS STEPS [--threads T] [--skip K] [--pin 0|1]
//
// --skip K leaves the first K steps out of the summary (one-time work: first touches of every
// buffer). With one thread the process stays on one CPU (--pin 0: wherever the system puts
// it): the in-process workers take turns, and without it each turn may start on the other
// core, with cold caches, which N one-core machines never do (docs/benchmarks.md measures
// both). Output: one JSON object per step, then one summary object, on stdout.
#include <sched.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "concord/distributed/distributed_world.hpp"
#include "concord/scene/distributed_json.hpp"
#include "concord/scene/scene_parser.hpp"
#include "concord/world/world.hpp"

namespace {

int usage() {
    std::fprintf(stderr,
                 "usage: bench_paired SCENE WORKERS STEPS [--threads T] [--skip K] [--pin 0|1]\n");
    return 2;
}

int iterations(const concord::StepStats& s) {
    return s.fluid ? s.fluid->pressure_iterations : s.newton_iterations;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4 || (argc - 4) % 2 != 0) return usage();
    int threads = 1, skip = 1, pin = 1;
    for (int a = 4; a + 1 < argc; a += 2) {
        const std::string key = argv[a];
        if (key == "--threads")
            threads = std::atoi(argv[a + 1]);
        else if (key == "--skip")
            skip = std::atoi(argv[a + 1]);
        else if (key == "--pin")
            pin = std::atoi(argv[a + 1]);
        else
            return usage();
    }
    const int workers = std::atoi(argv[2]), steps = std::atoi(argv[3]);
    if (workers < 2 || steps < 1 || threads < 1 || skip < 0) return usage();
    if (threads == 1 && pin) {  // before any thread starts: they inherit it
        cpu_set_t allowed, one;
        CPU_ZERO(&one);
        if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
            for (int c = 0; c < CPU_SETSIZE; ++c)
                if (CPU_ISSET(c, &allowed)) {
                    CPU_SET(c, &one);
                    sched_setaffinity(0, sizeof one, &one);
                    break;
                }
    }
    try {
        tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                  static_cast<std::size_t>(threads));
        concord::SceneSpec scene = concord::load_scene_file(argv[1]);
        concord::SceneSpec split = scene;
        concord::set_worker_count(split.distributed, workers, "bench_paired");
        concord::World one(scene);
        concord::DistributedWorld many(split);
        double sum_one = 0.0, sum_many = 0.0;
        std::vector<double> ratios;
        for (int k = 0; k < steps; ++k) {
            const concord::StepStats a = one.step();
            const concord::StepStats& b = many.step();
            const double t_par = b.distributed ? b.distributed->t_parallel : b.t_frame;
            std::printf(
                "{\"step\": %d, \"t_frame\": %.6f, \"t_parallel\": %.6f, "
                "\"iterations\": [%d, %d]}\n",
                k + 1, a.t_frame, t_par, iterations(a), iterations(b));
            if (k < skip) continue;
            sum_one += a.t_frame;
            sum_many += t_par;
            ratios.push_back(a.t_frame / t_par);
        }
        std::printf(
            "{\"workers\": %d, \"steps\": %d, \"skipped\": %d, \"t_frame\": %.6f, "
            "\"t_parallel\": %.6f, \"speedup\": %.4f, \"median_step_speedup\": %.4f}\n",
            workers, steps, skip, sum_one, sum_many, sum_many > 0.0 ? sum_one / sum_many : 0.0,
            median(ratios));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_paired: %s\n", e.what());
        return 1;
    }
    return 0;
}
