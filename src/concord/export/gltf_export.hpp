// `concord export --format gltf`: an output directory as one animated glTF 2.0 binary (.glb).
#pragma once

#include <cstdint>
#include <string>

#include "concord/export/frame_selection.hpp"
#include "concord/io/output_reader.hpp"

namespace concord {

struct GltfExportOptions {
    FrameSelection frames;  ///< default: every saved frame
    bool planes = true;     ///< add a finite square for each half-space plane of the scene
};

struct GltfExportSummary {
    int bodies = 0;
    int distinct_meshes = 0;     ///< bodies with identical meshes share vertex and index data
    int frames = 0;              ///< keyframes per animated body
    int animated_bodies = 0;     ///< static bodies get no animation channels
    int elastic_bodies = 0;      ///< reduced elastic bodies: meshes with one morph target per mode
    double max_trs_error = 0.0;  ///< largest vertex displacement the TRS approximation causes, m
    std::uintmax_t bytes = 0;
};

/// Writes `path` (.glb): one node per body (named after it) whose mesh is the body's local
/// mesh, a material per body in its body colour, and one animation with translation, rotation
/// and scale channels per moving body, one keyframe per selected frame (time relative to the
/// first, LINEAR interpolation). TRS comes from the polar decomposition of A (polar_trs.hpp);
/// the error that approximation makes is measured over every vertex and returned.
/// A reduced elastic body (x = p + A (X + Phi eta)) also gets one POSITION morph target per mode
/// k (Phi_k at the vertices, local coordinates; mesh weights 0, node weights the first frame's
/// eta) and a "weights" channel with eta per keyframe, so only its A is approximated (by TRS);
/// its TRS error is measured on the deformed vertices X + Phi eta.
/// Throws InputError for a bad selection, a malformed frame or modes file, non-increasing frame
/// times, or an unwritable file.
GltfExportSummary export_gltf(const OutputReader& reader, const std::string& path,
                              const GltfExportOptions& options);

}  // namespace concord
