// File names inside an output directory (described in docs/cli.md, "Output directory").
#pragma once

#include <string>

namespace concord::output_layout {

inline constexpr const char* kScene = "scene.json";
inline constexpr const char* kBodies = "bodies.json";
inline constexpr const char* kFrames = "frames.jsonl";
inline constexpr const char* kMeshFolder = "meshes";
inline constexpr const char* kCheckpointFolder = "checkpoints";
inline constexpr const char* kFluidFolder = "fluid";

/// "checkpoints/NNNNNN.ckpt": the checkpoint written with frame N (six digits or more).
std::string checkpoint_path(int frame);

/// "fluid/NNNNNN.npy": the fluid's particles at frame N (six digits or more).
std::string fluid_path(int frame);

/// "meshes/NAME.obj": where body NAME's local-coordinate mesh is written, relative to the folder.
inline std::string mesh_path(const std::string& body_name) {
    return std::string(kMeshFolder) + "/" + body_name + ".obj";
}

/// "meshes/NAME.modes.json": the mode values of elastic body NAME at its mesh vertices.
inline std::string modes_path(const std::string& body_name) {
    return std::string(kMeshFolder) + "/" + body_name + ".modes.json";
}

}  // namespace concord::output_layout
