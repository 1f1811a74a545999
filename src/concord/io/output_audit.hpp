// The exact intersection audit of every saved frame of an output directory (`concord audit`).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "concord/collision/audit/intersection_audit.hpp"
#include "concord/io/output_reader.hpp"

namespace concord {

struct FrameAudit {
    int frame = 0;
    double time = 0.0;
    AuditResult result;
};

struct OutputAuditSummary {
    int frames = 0;
    int bodies = 0;
    int planes = 0;
    int frames_with_intersections = 0;
    std::int64_t triangle_hits = 0;  ///< over all frames
    std::int64_t plane_hits = 0;     ///< over all frames
    std::optional<FrameAudit> first_intersection;
    /// Runs with a fluid (fluid/NNNNNN.npy): particles inside a closed body surface or behind a
    /// plane, per frame (docs/fluids.md).
    bool has_fluid = false;
    std::int64_t fluid_particles = 0;  ///< in the last frame read
    int frames_with_fluid_in_bodies = 0;
    std::int64_t fluid_in_bodies = 0;  ///< over all frames
    struct FluidHit {
        int frame = 0;
        double time = 0.0;
        std::int64_t particles = 0;  ///< inside something in that frame
        int body = -1;               ///< what holds the first of them; -1: a plane
    };
    std::optional<FluidHit> first_fluid_in_body;

    bool clean() const { return frames_with_intersections == 0 && frames_with_fluid_in_bodies == 0; }
};

/// Places every body's mesh at x = p + A X for each frame of `reader` and runs
/// audit_intersections between different bodies and against the planes of scene.json; with a
/// fluid, also counts the particles of each frame's fluid file inside a closed body surface
/// (ray parity) or behind a plane. Reads
/// the frames one at a time; `on_frame` (if set) is called after each. Throws InputError for
/// unreadable input (see OutputReader and FrameStream).
OutputAuditSummary audit_output(const OutputReader& reader,
                                const std::function<void(int frame)>& on_frame = {});

/// One line for humans: "clean: 101 frames, 3 bodies, 1 plane" or "INTERSECTION in 2 of 101
/// frames; first at frame 17 (t = 0.17): bodies "a" and "b" (3 triangle pairs) ...".
std::string audit_summary_line(const OutputAuditSummary& summary, const OutputReader& reader);

}  // namespace concord
