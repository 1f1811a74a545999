// `concord run SCENE.json --out DIR`: simulates a scene and streams the output directory.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <tbb/global_control.h>

#include "commands.hpp"
#include "concord/io/output_writer.hpp"
#include "concord/io/step_stats_json.hpp"
#include "concord/math/error.hpp"
#include "concord/scene/scene_parser.hpp"
#include "concord/solver/solver_enum_names.hpp"
#include "concord/world/world.hpp"

namespace concord::cli {

namespace {

using Clock = std::chrono::steady_clock;

/// Exit code after Ctrl-C, as shells report a process ended by SIGINT (128 + 2).
constexpr int kExitInterrupted = 130;

struct RunOptions {
    std::string scene;
    std::string out;
    int frames = 0;
    double dt = 0.0;
    int threads = 0;
    int workers = 1;
    bool force = false;
    bool verbose = false;
    CLI::Option* frames_option = nullptr;
    CLI::Option* dt_option = nullptr;
    CLI::Option* threads_option = nullptr;
};

// ---- Ctrl-C: finish the frame being computed, then stop with a valid output directory. ----

volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void on_interrupt(int) {
    g_interrupted = 1;
    static const char kMessage[] =
        "\nconcord: interrupted; stopping after the current frame (Ctrl-C again to abort)\n";
    // write(2) is async-signal-safe; there is nothing useful to do if it fails.
    [[maybe_unused]] ssize_t ignored = write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
}

/// Installs the handler for the lifetime of the run. SA_RESETHAND restores the default action
/// after the first signal, so a second Ctrl-C ends the process at once.
class InterruptGuard {
  public:
    InterruptGuard() {
        g_interrupted = 0;
        struct sigaction sa {};
        sa.sa_handler = on_interrupt;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        sigaction(SIGINT, &sa, &previous_);
    }
    ~InterruptGuard() { sigaction(SIGINT, &previous_, nullptr); }
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;
    bool interrupted() const { return g_interrupted != 0; }

  private:
    struct sigaction previous_ {};
};

// ---- Progress: a redrawn bar on a terminal, plain lines otherwise. ----

std::string clock_text(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0) return "?";
    long long s = std::llround(seconds);
    if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
    return fmt::format("{}:{:02}", s / 60, s % 60);
}

std::string distance_text(double d) {
    return std::isfinite(d) ? fmt::format("{:.3g}", d) : "none";
}

class Progress {
  public:
    Progress(int total_frames, bool verbose)
        : total_(total_frames),
          verbose_(verbose),
          tty_(isatty(fileno(stderr)) != 0),
          every_(std::max(1, (total_frames + 99) / 100)),
          start_(Clock::now()) {}

    void frame(int k, double time, const StepStats& s) {
        const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
        const double eta = elapsed / k * (total_ - k);
        if (verbose_) {
            end_bar();
            std::fprintf(
                stderr,
                "frame %d/%d t=%.6g status=%s stop=%s newton=%d residual=%.3g contacts=%d "
                "candidates=%d min_distance=%s kappa=%.3g line_search=%d ccd_limited=%d "
                "linear_iters=%d islands=%d substeps=%d retries=%d dt_min=%.3g t_coll=%.3fs "
                "t_assembly=%.3fs t_linear=%.3fs t_line_search=%.3fs t_solve=%.3fs "
                "t_frame=%.3fs\n",
                k, total_, time, std::string(to_string(s.status)).c_str(),
                std::string(to_string(s.stop_reason)).c_str(), s.newton_iterations, s.residual,
                s.contacts, s.candidates, distance_text(s.min_distance).c_str(),
                s.barrier_stiffness, s.line_search_trials, s.ccd_limited_steps,
                s.linear_solver_iterations, s.islands, s.substeps, s.retries, s.time_step, s.t_coll,
                s.t_assembly, s.t_linear, s.t_line_search, s.t_solve, s.t_frame);
            return;
        }
        if (!tty_) {
            if (k % every_ != 0 && k != total_) return;
            std::fprintf(
                stderr,
                "frame %d/%d t=%.6g newton=%d contacts=%d min_distance=%s t_frame=%.3fs ETA %s\n",
                k, total_, time, s.newton_iterations, s.contacts,
                distance_text(s.min_distance).c_str(), s.t_frame, clock_text(eta).c_str());
            return;
        }
        // Redraw at most ten times a second, and always for the last frame.
        const auto now = Clock::now();
        if (k != total_ && drawn_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
        last_draw_ = now;
        drawn_ = true;
        constexpr int kWidth = 24;
        const int filled =
            total_ > 0 ? static_cast<int>(static_cast<long long>(kWidth) * k / total_) : kWidth;
        std::string bar = std::string(static_cast<std::size_t>(filled), '#') +
                          std::string(static_cast<std::size_t>(kWidth - filled), '-');
        std::fprintf(stderr, "\r[%s] %d/%d  t=%.4g s  ETA %s  contacts %d  newton %d\x1b[K",
                     bar.c_str(), k, total_, time, clock_text(eta).c_str(), s.contacts,
                     s.newton_iterations);
        std::fflush(stderr);
    }

    /// Ends the bar's line so that later messages start on a fresh line.
    void end_bar() {
        if (tty_ && drawn_) std::fputc('\n', stderr);
        drawn_ = false;
    }

  private:
    int total_;
    bool verbose_;
    bool tty_;
    int every_;
    Clock::time_point start_;
    Clock::time_point last_draw_{};
    bool drawn_ = false;
};

// ---- The command. ----

void check_options(const RunOptions& opt) {
    if (opt.workers < 1)
        throw InputError(fmt::format("--workers: expected an integer >= 1, got {}", opt.workers));
    if (opt.workers > 1) {
        throw InputError(fmt::format(
            "--workers {}: the distributed solver is not available yet; run on one machine with "
            "--workers 1 (the default)",
            opt.workers));
    }
    if (opt.frames_option->count() && opt.frames < 0) {
        throw InputError(fmt::format("--frames: expected an integer >= 0, got {}", opt.frames));
    }
    if (opt.dt_option->count() && !(opt.dt > 0 && std::isfinite(opt.dt))) {
        throw InputError(
            fmt::format("--dt: expected a positive time step in seconds, got {}", opt.dt));
    }
    if (opt.threads_option->count() && opt.threads < 1) {
        throw InputError(fmt::format("--threads: expected an integer >= 1, got {}", opt.threads));
    }
}

int run_simulation(const RunOptions& opt) {
    check_options(opt);
    std::optional<tbb::global_control> threads;
    if (opt.threads_option->count()) {
        threads.emplace(tbb::global_control::max_allowed_parallelism,
                        static_cast<std::size_t>(opt.threads));
    }
    const auto thread_count =
        tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism);

    SceneSpec scene = load_scene_file(opt.scene);
    if (opt.frames_option->count()) scene.frames = opt.frames;
    if (opt.dt_option->count()) scene.time_step = opt.dt;

    OutputWriter writer(opt.out, opt.force);  // refuses a non-empty folder before any work
    World world(scene);
    writer.write_header(scene, world);
    writer.write_frame(0, world.time(), world, nullptr);

    std::fprintf(stderr,
                 "concord run: %s: %d bodies, %d frames x %d substeps x %g s, %zu threads -> %s\n",
                 scene.name.c_str(), world.num_bodies(), scene.frames, scene.substeps,
                 scene.time_step, thread_count, opt.out.c_str());
    const auto start = Clock::now();
    Progress progress(scene.frames, opt.verbose);
    InterruptGuard interrupt;
    int frame = 0;
    while (frame < scene.frames && !interrupt.interrupted()) {
        StepStats stats;
        try {
            for (int s = 0; s < scene.substeps; ++s)
                accumulate_substep(stats, world.step(), s == 0);
        } catch (const std::exception& e) {
            progress.end_bar();
            std::fprintf(stderr, "concord: simulation failed in frame %d: %s\n", frame + 1,
                         e.what());
            std::fprintf(stderr, "concord: %s holds frames 0 to %d\n", opt.out.c_str(), frame);
            return dynamic_cast<const InputError*>(&e) ? kExitBadInput : kExitFailure;
        }
        ++frame;
        writer.write_frame(frame, world.time(), world, &stats);
        progress.frame(frame, world.time(), stats);
    }
    progress.end_bar();
    const double wall = std::chrono::duration<double>(Clock::now() - start).count();
    if (interrupt.interrupted()) {
        std::printf(
            "concord run: interrupted after frame %d of %d; %s holds frames 0 to %d (%.3g s of "
            "wall time)\n",
            frame, scene.frames, opt.out.c_str(), frame, wall);
        return kExitInterrupted;
    }
    std::printf("concord run: wrote frames 0 to %d (t = %.6g s) to %s in %.3g s\n", frame,
                world.time(), opt.out.c_str(), wall);
    return kExitOk;
}

}  // namespace

void register_run(CLI::App& app, Action& action) {
    auto opt = std::make_shared<RunOptions>();
    auto* cmd = app.add_subcommand("run", "Simulate a scene and write an output directory");
    cmd->add_option("scene", opt->scene, "Scene file (JSON)")->required();
    cmd->add_option("--out,-o", opt->out, "Output directory (created if missing)")->required();
    opt->frames_option = cmd->add_option("--frames", opt->frames,
                                         "Saved frames after frame 0 (overrides the scene)");
    opt->dt_option = cmd->add_option("--dt", opt->dt, "Time step in seconds (overrides the scene)");
    opt->threads_option =
        cmd->add_option("--threads", opt->threads, "Worker threads (default: all cores)");
    cmd->add_option("--workers", opt->workers, "Distributed workers (reserved; only 1 for now)");
    cmd->add_flag("--force", opt->force,
                  "Write into a non-empty output directory, replacing a previous run");
    cmd->add_flag("--verbose,-v", opt->verbose, "One line per frame with every solver statistic");
    cmd->callback([opt, &action] { action = [opt] { return run_simulation(*opt); }; });
}

}  // namespace concord::cli
