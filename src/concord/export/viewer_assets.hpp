// Where the built web viewer (viewer/dist, made by scripts/setup.sh) is found at run time.
#pragma once

#include <filesystem>
#include <string>

namespace concord {

/// The folder holding the viewer's index.html, looked up in this order:
///   1. `explicit_dir` when not empty (the --assets option);
///   2. the CONCORD_VIEWER_DIR environment variable;
///   3. viewer/dist in the source tree above the running executable (a build folder inside the
///      checkout), then share/concord/viewer next to the executable's prefix (an install).
/// Throws InputError naming what was tried and how to build the assets when none has them.
std::filesystem::path find_viewer_assets(const std::string& explicit_dir);

}  // namespace concord
