// The frame loop every front end runs (`concord run`, single-machine, in-process distributed or
// MPI, and World.run in Python), for any simulator with step(), time(), num_bodies(), body(i)
// and state_row(i): World, DistributedWorld, DistributedSimulation.
#pragma once

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
            {b.name, &b.mesh, b.motion, b.is_elastic() ? b.modal->vertex_modes.get() : nullptr});
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

/// One saved frame: `substeps` steps, their statistics folded as frames.jsonl reports them.
template <typename Sim>
StepStats step_frame(Sim& sim, int substeps) {
    StepStats stats;
    for (int s = 0; s < substeps; ++s) accumulate_substep(stats, sim.step(), s == 0);
    return stats;
}

/// Writes frame 0 (the current state), once writer.write_header(scene, output_bodies(sim)) is
/// done, then scene.frames frames of scene.substeps steps each. After each frame,
/// after_frame(frame, stats) is called; returning false ends the loop early (an interrupt).
/// Returns the frames written after frame 0. An exception from a step propagates:
/// writer.frames_written() - 1 is then the last complete frame in the directory.
template <typename Sim, typename AfterFrame>
int run_frames(Sim& sim, const SceneSpec& scene, OutputWriter& writer, AfterFrame&& after_frame) {
    writer.write_frame(0, sim.time(), state_rows(sim), nullptr);
    int frame = 0;
    while (frame < scene.frames) {
        const StepStats stats = step_frame(sim, scene.substeps);
        ++frame;
        writer.write_frame(frame, sim.time(), state_rows(sim), &stats);
        if (!after_frame(frame, stats)) break;
    }
    return frame;
}

}  // namespace concord
