// `concord run SCENE.json --out DIR`: simulates a scene and streams the output directory.
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <fstream>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <tbb/global_control.h>

#include "commands.hpp"
#include "concord/io/frame_loop.hpp"
#include "concord/io/output_writer.hpp"
#include "concord/io/run_resume.hpp"
#include "concord/io/step_stats_json.hpp"
#include "concord/math/error.hpp"
#include "concord/scene/distributed_json.hpp"
#include "concord/scene/scene_parser.hpp"
#include "concord/solver/solver_enum_names.hpp"
#include "concord/distributed/admm_protocol.hpp"
#include "concord/distributed/admm_worker.hpp"
#include "concord/distributed/distributed_world.hpp"
#include "concord/world/world.hpp"
#ifdef CONCORD_HAVE_MPI
#include "concord/mpi/mpi_transport.hpp"
#endif

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
    bool mpi = false;
    std::string admm_trace;
    bool reference = false;
    bool force = false;
    bool resume = false;
    std::string checkpoint_every;
    double worker_timeout = 8.0;
    bool verbose = false;
    CLI::Option* frames_option = nullptr;
    CLI::Option* dt_option = nullptr;
    CLI::Option* threads_option = nullptr;
    CLI::Option* workers_option = nullptr;
    CLI::Option* checkpoint_option = nullptr;
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

// ---- Stopped from outside (MPI): mpirun ends every process of a run when one of them dies. ----

// The message the controller prints when it gets SIGTERM, kept up to date after every frame
// (two buffers, so that the handler never reads one being written).
char g_stop_message[2][1024];
volatile std::sig_atomic_t g_stop_message_ready = -1;  // index of the buffer to print; -1: none

void note_last_frame(const std::string& out, int frame) {
    const int next = g_stop_message_ready == 0 ? 1 : 0;
    std::snprintf(g_stop_message[next], sizeof g_stop_message[next],
                  "\nconcord: the run was stopped from outside (mpirun ends every process of a "
                  "run when one of them dies: its message says which); %s holds frames 0 to %d; "
                  "continue with --resume (the same or another number of workers)\n",
                  out.c_str(), frame);
    g_stop_message_ready = next;
}

extern "C" void on_terminate(int) {
    const int i = g_stop_message_ready;
    if (i >= 0) {
        [[maybe_unused]] ssize_t ignored =
            write(STDERR_FILENO, g_stop_message[i], std::strlen(g_stop_message[i]));
    }
    _exit(3);  // kExitWorkerLost
}

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
    /// Frames first + 1 .. total_frames are to be computed (first > 0: a resumed run).
    Progress(int first, int total_frames, bool verbose)
        : first_(first),
          total_(total_frames),
          verbose_(verbose),
          tty_(isatty(fileno(stderr)) != 0),
          every_(std::max(1, (total_frames - first + 99) / 100)),
          start_(Clock::now()) {}

    void frame(int k, double time, const StepStats& s) {
        const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
        const double eta = elapsed / std::max(1, k - first_) * (total_ - k);
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
            if ((k - first_) % every_ != 0 && k != total_) return;
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
    int first_;
    int total_;
    bool verbose_;
    bool tty_;
    int every_;
    Clock::time_point start_;
    Clock::time_point last_draw_{};
    bool drawn_ = false;
};

// ---- The command. ----

/// --checkpoint-every: "auto" or an integer >= 0 (SceneSpec::checkpoint_every).
int checkpoint_pace(const RunOptions& opt) {
    if (opt.checkpoint_every == "auto") return SceneSpec::kCheckpointAuto;
    int k = -1;
    const char* end = opt.checkpoint_every.data() + opt.checkpoint_every.size();
    const auto [ptr, ec] = std::from_chars(opt.checkpoint_every.data(), end, k);
    if (ec != std::errc() || ptr != end || k < 0)
        throw InputError(fmt::format("--checkpoint-every: expected an integer >= 0 or auto, got {}",
                                     opt.checkpoint_every));
    return k;
}

void check_options(const RunOptions& opt) {
    if (opt.workers_option->count() && opt.workers < 1)
        throw InputError(fmt::format("--workers: expected an integer >= 1, got {}", opt.workers));
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
    if (opt.checkpoint_option->count()) (void)checkpoint_pace(opt);
    if (!(opt.worker_timeout >= 0 && std::isfinite(opt.worker_timeout)))
        throw InputError(fmt::format("--worker-timeout: expected seconds >= 0, got {}",
                                     opt.worker_timeout));
    if (opt.resume && opt.force)
        throw InputError("--resume and --force: choose one (continue the run in the directory, or "
                         "replace it)");
    if (opt.reference && opt.admm_trace.empty())
        throw InputError("--reference: only meaningful together with --admm-trace FILE");
}

/// --admm-trace: one JSON line per ADMM iteration, in the trace format `concord plot` reads
/// (docs/export.md): frame and iteration (from 0, counting on through the frame's time steps,
/// retries and friction rounds), primal/dual residuals, rho, mse; then the details.
class TraceFile {
  public:
    TraceFile(const std::string& path, int substeps)
        : out_(path, std::ios::trunc), substeps_(std::max(1, substeps)) {
        if (!out_) throw InputError(path + ": cannot write the ADMM trace");
    }
    void write(const AdmmTraceLine& l) {
        const int frame = l.step / substeps_ + 1;
        if (frame != frame_) {
            frame_ = frame;
            iteration_ = 0;
        }
        nlohmann::json j{{"frame", frame},
                         {"iteration", iteration_++},
                         {"primal_residual", l.r},
                         {"dual_residual", l.s},
                         {"step", l.step},
                         {"substep", l.substep},
                         {"round", l.round},
                         {"admm_iteration", l.iteration},
                         {"time_step", l.time_step},
                         {"dq", l.dq},
                         {"toi", l.toi},
                         {"rho_min", l.rho_min},
                         {"rho_max", l.rho_max},
                         {"newton_iterations", l.newton_iterations},
                         {"t_compute", l.t_compute},
                         {"worker_t_compute", l.worker_t_compute},
                         {"worker_newton_iterations", l.worker_newton_iterations},
                         {"worker_dq", l.worker_dq},
                         {"decision", l.decision}};
        if (l.mse) j["mse"] = *l.mse;
        // No penalty is in force in an iteration without shared bodies (every worker solved
        // its own part): the format's rho is positive, so it is left out (rho_min and rho_max
        // are 0 there).
        if (l.rho_mean > 0) j["rho"] = l.rho_mean;
        out_ << j.dump() << "\n";
        out_.flush();
    }

  private:
    std::ofstream out_;
    int substeps_;
    int frame_ = -1;
    int iteration_ = 0;
};

/// --resume: where the run continues (nullopt: it starts from frame 0, the directory being
/// empty, missing, or killed before its first checkpoint). Throws InputError for a directory
/// that holds another scene's run or none.
std::optional<ResumePoint> plan_resume(const RunOptions& opt, const SceneSpec& scene) {
    if (!opt.resume) return std::nullopt;
    if (nothing_to_resume(opt.out)) {
        std::fprintf(stderr, "concord run: %s holds no earlier run; starting one\n", opt.out.c_str());
        return std::nullopt;
    }
    std::optional<ResumePoint> p = find_resume_point(opt.out, scene);
    if (!p)
        std::fprintf(stderr,
                     "concord run: %s: the interrupted run wrote no checkpoint; starting again "
                     "from frame 0\n",
                     opt.out.c_str());
    return p;
}

// Runs the frame loop (frame_loop.hpp) with progress on stderr and Ctrl-C handling, from frame
// 0 or from a checkpoint (--resume).
template <typename Sim>
int simulate(const RunOptions& opt, const SceneSpec& scene, Sim& sim, OutputWriter& writer,
             const std::string& how, const std::optional<ResumePoint>& resume) {
    FrameLoopOptions loop;
    loop.checkpoint_every = scene.checkpoint_every;
    loop.scene_digest = scene_digest(scene);
    if (resume) {
        const int k = resume->checkpoint.frame;
        if (k >= scene.frames) {
            std::printf("concord run: %s already holds frames 0 to %d (the scene asks for %d); "
                        "nothing to do\n",
                        opt.out.c_str(), resume->last_complete_frame, scene.frames);
            return kExitOk;
        }
        sim.restore_checkpoint(resume->checkpoint);
        writer.resume(scene, static_cast<std::size_t>(sim.num_bodies()), k, resume->frames_bytes);
        loop.resume_after = k;
        std::fprintf(stderr,
                     "concord run: resuming %s after frame %d (checkpoint; frames 0 to %d were "
                     "complete)\n",
                     opt.out.c_str(), k, resume->last_complete_frame);
    } else {
        writer.write_header(scene, output_bodies(sim));
    }
    std::fprintf(stderr, "concord run: %s: %d bodies, %d frames x %d substeps x %g s, %s -> %s\n",
                 scene.name.c_str(), sim.num_bodies(), scene.frames, scene.substeps,
                 scene.time_step, how.c_str(), opt.out.c_str());
    const auto start = Clock::now();
    Progress progress(loop.resume_after, scene.frames, opt.verbose);
    InterruptGuard interrupt;
    int frame = 0;
    try {
        frame = run_frames(sim, scene, writer, loop, [&](int k, const StepStats& stats) {
            note_last_frame(opt.out, k);
            progress.frame(k, sim.time(), stats);
            return !interrupt.interrupted();
        });
    } catch (const WorkerLost& e) {
        progress.end_bar();
        g_stop_message_ready = -1;  // said here: mpirun's SIGTERM during the abort adds nothing
        std::fprintf(stderr,
                     "concord: %s; %s holds frames 0 to %d; continue with --resume (the same or "
                     "another number of workers)\n",
                     e.what(), opt.out.c_str(), writer.frames_written() - 1);
        return kExitWorkerLost;
    } catch (const std::exception& e) {
        progress.end_bar();
        const int last = writer.frames_written() - 1;
        if (last < 0) throw;  // frame 0 could not be written: an output error
        // One line, as every error (the mutation campaign checks it).
        std::fprintf(stderr, "concord: simulation failed in frame %d: %s (%s holds frames 0 to %d)\n",
                     last + 1, e.what(), opt.out.c_str(), last);
        return dynamic_cast<const InputError*>(&e) ? kExitBadInput : kExitFailure;
    }
    progress.end_bar();
    const double wall = std::chrono::duration<double>(Clock::now() - start).count();
    if (interrupt.interrupted()) {
        std::printf(
            "concord run: interrupted after frame %d of %d; %s holds frames 0 to %d (%.3g s of "
            "wall time; continue with --resume)\n",
            frame, scene.frames, opt.out.c_str(), frame, wall);
        return kExitInterrupted;
    }
    std::printf("concord run: wrote frames %d to %d (t = %.6g s) to %s in %.3g s\n",
                loop.resume_after == 0 ? 0 : loop.resume_after + 1, frame, sim.time(),
                opt.out.c_str(), wall);
    return kExitOk;
}

template <typename Sim>
void attach_trace(const RunOptions& opt, Sim& sim, std::unique_ptr<TraceFile>& trace) {
    if (opt.admm_trace.empty()) return;
    trace = std::make_unique<TraceFile>(opt.admm_trace, sim.spec().substeps);
    sim.set_trace([t = trace.get()](const AdmmTraceLine& l) { t->write(l); });
    sim.set_reference(opt.reference);
}

#ifdef CONCORD_HAVE_MPI
// `mpirun -np N+1 concord run SCENE --mpi`: rank 0 is the controller (it writes the output
// directory), ranks 1..N are workers. Every rank reads the scene itself (the bodies' meshes
// and masses are known by id everywhere; only states travel).
int run_mpi(const RunOptions& opt, SceneSpec scene) {
    MpiSession session(nullptr, nullptr);
    MpiTransport transport(opt.worker_timeout);
    MpiHeartbeat heartbeat;  // the workers' sign of life (nothing on the controller)
    if (transport.rank() == 0) {
        struct sigaction sa {};
        sa.sa_handler = on_terminate;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGTERM, &sa, nullptr);
    }
    const int workers = transport.num_workers();
    auto fail = [&](const std::string& msg) -> int {
        if (transport.rank() == 0) std::fprintf(stderr, "concord: %s\n", msg.c_str());
        return kExitBadInput;
    };
    if (workers < 1)
        return fail("--mpi needs at least 2 processes (1 controller + N workers): mpirun -np N+1");
    if (opt.workers_option->count() && opt.workers != workers)
        return fail(fmt::format("--workers {} but mpirun started {} workers (-np {})", opt.workers,
                                workers, workers + 1));
    try {
        set_worker_count(scene.distributed, workers,
                         fmt::format("mpirun -np {} ({} workers)", workers + 1, workers));
    } catch (const InputError& e) {
        return fail(e.what());
    }
    // Every rank builds the model (an invalid scene fails the same way on each); the controller
    // alone checks that the bodies start apart, and when they do not, stops the workers, which
    // wait for their first command.
    const WorldModel model = build_world_model(scene, /*check_start=*/false);
    std::optional<ResumePoint> resume;
    if (transport.rank() == 0) {
        try {
            resume = plan_resume(opt, scene);
            check_start_state(model);
        } catch (const InputError& e) {
            for (int w = 1; w <= workers; ++w)
                transport.send(w, Tag::Command, encode(CommandKind::Shutdown));
            return fail(e.what());
        }
    }
    try {
        if (transport.rank() != 0) {
            AdmmWorker worker(model, transport);
            worker.serve();
            return kExitOk;
        }
        OutputWriter writer(opt.out, opt.force || opt.resume);
        DistributedSimulation sim(model, transport);
        std::unique_ptr<TraceFile> trace;
        attach_trace(opt, sim, trace);
        const int rc = simulate(opt, scene, sim, writer,
                                fmt::format("{} MPI workers", workers), resume);
        if (rc == kExitWorkerLost) MpiSession::abort(kExitWorkerLost);  // the others are waiting
        sim.shutdown();
        return rc;
    } catch (const std::exception& e) {
        // One rank failing alone would leave the others waiting: end them all.
        std::fprintf(stderr, "concord: rank %d: %s\n", transport.rank(), e.what());
        MpiSession::abort(dynamic_cast<const InputError*>(&e) ? kExitBadInput : kExitFailure);
    }
}
#endif

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
    if (opt.checkpoint_option->count()) scene.checkpoint_every = checkpoint_pace(opt);
    if (opt.mpi) {
#ifdef CONCORD_HAVE_MPI
        return run_mpi(opt, scene);
#else
        throw InputError("--mpi: this concord was built without MPI (install libopenmpi-dev and "
                         "rebuild)");
#endif
    }
    if (opt.workers_option->count())
        set_worker_count(scene.distributed, opt.workers, fmt::format("--workers {}", opt.workers));
    if (scene.distributed.workers <= 1 && !opt.admm_trace.empty())
        throw InputError("--admm-trace: the run is not distributed (use --workers N > 1)");
    // Before any work: a non-empty folder is refused (unless --force), or must hold this
    // scene's run (--resume).
    const std::optional<ResumePoint> resume = plan_resume(opt, scene);
    OutputWriter writer(opt.out, opt.force || opt.resume);
    if (scene.distributed.workers > 1) {
        DistributedWorld world(scene);
        std::unique_ptr<TraceFile> trace;
        attach_trace(opt, world.simulation(), trace);
        return simulate(opt, scene, world, writer,
                        fmt::format("{} in-process workers, {} threads", scene.distributed.workers,
                                    thread_count),
                        resume);
    }
    World world(scene);
    return simulate(opt, scene, world, writer, fmt::format("{} threads", thread_count), resume);
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
    opt->workers_option = cmd->add_option(
        "--workers", opt->workers,
        "Distributed run with N in-process workers (overrides the scene's distributed.workers)");
    cmd->add_flag("--mpi", opt->mpi,
                  "Distributed run over MPI: start with mpirun -np N+1 (1 controller, N workers)");
    cmd->add_option("--worker-timeout", opt->worker_timeout,
                    "--mpi: stop the run (exit code 3) when a worker process has not answered "
                    "for this many seconds (default 8; 0: wait for ever)");
    cmd->add_option("--admm-trace", opt->admm_trace,
                    "Write one JSON line per ADMM iteration to this file (distributed runs)");
    cmd->add_flag("--reference", opt->reference,
                  "With --admm-trace: add each iteration's MSE against a single-machine solve");
    cmd->add_flag("--force", opt->force,
                  "Write into a non-empty output directory, replacing a previous run");
    cmd->add_flag("--resume", opt->resume,
                  "Continue the interrupted run in the output directory from its last "
                  "checkpoint (same scene and options; starts one if the folder is empty)");
    opt->checkpoint_option = cmd->add_option(
        "--checkpoint-every", opt->checkpoint_every,
        "Write a checkpoint every K frames and after the last (overrides the scene's "
        "checkpoint_every; 0: after the last only; auto: paced to cost at most 2 %)");
    cmd->add_flag("--verbose,-v", opt->verbose, "One line per frame with every solver statistic");
    cmd->callback([opt, &action] { action = [opt] { return run_simulation(*opt); }; });
}

}  // namespace concord::cli
