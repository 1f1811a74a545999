// The frame loop every front end runs (`concord run`, single-machine, in-process distributed or
// MPI, and World.run in Python), for any simulator with step(), time(), num_bodies(), body(i)
// and state_row(i): World, DistributedWorld, DistributedSimulation.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "concord/body/affine_body.hpp"
#include "concord/body/modal_part.hpp"
#include "concord/io/output_writer.hpp"
#include "concord/io/step_stats_json.hpp"
#include "concord/scene/scene_spec.hpp"
#include "concord/world/step_stats.hpp"

namespace concord {

/// The bodies as the output directory describes them (meshes in local coordinates).
template <typename Sim>
std::vector<OutputBody> output_bodies(const Sim& sim) {
    std::vector<OutputBody> bodies;
    bodies.reserve(static_cast<std::size_t>(sim.num_bodies()));
    for (int i = 0; i < sim.num_bodies(); ++i) {
        const auto& b = sim.body(i);
        bodies.push_back(
            {b.name, &b.mesh(), b.motion, b.is_elastic() ? b.modal->vertex_modes.get() : nullptr});
    }
    return bodies;
}

/// Every body's frames.jsonl row at the current state.
template <typename Sim>
std::vector<VecX> state_rows(const Sim& sim) {
    std::vector<VecX> q;
    q.reserve(static_cast<std::size_t>(sim.num_bodies()));
    for (int i = 0; i < sim.num_bodies(); ++i) q.emplace_back(sim.state_row(i));
    return q;
}

/// Writes the simulator's fluid particles of `frame` (fluid/NNNNNN.npy) when it has a fluid.
template <typename Sim>
void write_fluid_frame(Sim& sim, OutputWriter& writer, int frame) {
    if constexpr (requires { sim.fluid_particles(); }) {
        if (const auto* fluid = sim.fluid_particles()) writer.write_fluid(frame, *fluid);
    }
}

/// Frame 0's statistics: none, except the fluid's particle count when there is a fluid.
template <typename Sim>
std::optional<StepStats> initial_frame_stats(Sim& sim) {
    if constexpr (requires { sim.fluid_particles(); }) {
        if (const auto* fluid = sim.fluid_particles()) {
            StepStats s;
            s.body_contacts.assign(static_cast<std::size_t>(sim.num_bodies()), 0);
            s.fluid = FluidStepStats{};
            s.fluid->particles = static_cast<int>(fluid->size());
            return s;
        }
    }
    return std::nullopt;
}

/// One saved frame: `substeps` steps, their statistics folded as frames.jsonl reports them.
template <typename Sim>
StepStats step_frame(Sim& sim, int substeps) {
    StepStats stats;
    for (int s = 0; s < substeps; ++s) accumulate_substep(stats, sim.step(), s == 0);
    return stats;
}

/// How the frame loop starts and checkpoints.
struct FrameLoopOptions {
    /// 0: a new run, frame 0 (the current state) is written first. k > 0: a resumed run whose
    /// directory already holds frames 0 to k (OutputWriter::resume), the simulator at frame k.
    int resume_after = 0;
    /// A checkpoint every this many frames (frame % every == 0) and after the last frame
    /// written, also when the loop ends early; 0: only after the last; kCheckpointAuto: after
    /// frame 1, then after a frame once the wall time since the last checkpoint is at least
    /// kAutoCostRatio times what that checkpoint took (so that checkpoints cost at most 1 /
    /// kAutoCostRatio of the run; which frames get one then depends on timing, the results do
    /// not); kNoCheckpoints: none at all.
    int checkpoint_every = kNoCheckpoints;
    static constexpr int kNoCheckpoints = -2;
    static constexpr int kCheckpointAuto = SceneSpec::kCheckpointAuto;
    static constexpr double kAutoCostRatio = 50.0;
    std::string scene_digest;  ///< recorded in every checkpoint (run_resume.hpp)
};

/// Writes frame 0 (the current state), once writer.write_header(scene, output_bodies(sim)) is
/// done, then frames up to scene.frames of scene.substeps steps each (from options.resume_after
/// + 1 for a resumed run). After each frame, after_frame(frame, stats) is called; returning
/// false ends the loop early (an interrupt). Checkpoints (sim.capture_checkpoint()) as options
/// say. Returns the last frame in the directory. An exception from a step propagates:
/// writer.frames_written() - 1 is then the last complete frame in the directory.
template <typename Sim, typename AfterFrame>
int run_frames(Sim& sim, const SceneSpec& scene, OutputWriter& writer,
               const FrameLoopOptions& options, AfterFrame&& after_frame) {
    using Clock = std::chrono::steady_clock;
    const int every = options.checkpoint_every;
    int frame = options.resume_after;
    int last_checkpoint = frame > 0 ? frame : -1;  // a resumed run starts at a checkpoint
    Clock::time_point last_end{};
    double last_cost = -1.0;  // seconds the last checkpoint took (auto pacing); < 0: none yet
    auto checkpoint = [&] {
        const auto t0 = Clock::now();
        Checkpoint c = sim.capture_checkpoint();
        c.frame = frame;
        c.scene_digest = options.scene_digest;
        writer.write_checkpoint(c);
        last_end = Clock::now();
        last_cost = std::chrono::duration<double>(last_end - t0).count();
        last_checkpoint = frame;
    };
    auto due = [&] {
        if (every > 0) return frame % every == 0;
        if (every != FrameLoopOptions::kCheckpointAuto) return false;
        return last_cost < 0 || std::chrono::duration<double>(Clock::now() - last_end).count() >=
                                    FrameLoopOptions::kAutoCostRatio * last_cost;
    };
    if (frame == 0) {
        write_fluid_frame(sim, writer, 0);
        const std::optional<StepStats> initial = initial_frame_stats(sim);
        writer.write_frame(0, sim.time(), state_rows(sim), initial ? &*initial : nullptr);
    }
    while (frame < scene.frames) {
        const StepStats stats = step_frame(sim, scene.substeps);
        ++frame;
        write_fluid_frame(sim, writer, frame);
        writer.write_frame(frame, sim.time(), state_rows(sim), &stats);
        if (due()) checkpoint();
        if (!after_frame(frame, stats)) break;
    }
    if (every != FrameLoopOptions::kNoCheckpoints && last_checkpoint != frame) checkpoint();
    return frame;
}

/// A new run without checkpoints (the Python API's loops).
template <typename Sim, typename AfterFrame>
int run_frames(Sim& sim, const SceneSpec& scene, OutputWriter& writer, AfterFrame&& after_frame) {
    return run_frames(sim, scene, writer, FrameLoopOptions{},
                      std::forward<AfterFrame>(after_frame));
}

}  // namespace concord
