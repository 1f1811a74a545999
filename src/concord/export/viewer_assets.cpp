#include "concord/export/viewer_assets.hpp"

#include <cstdlib>
#include <vector>

#include "concord/math/error.hpp"

namespace concord {

namespace fs = std::filesystem;

namespace {

bool has_index(const fs::path& dir) {
    std::error_code ec;
    return fs::is_regular_file(dir / "index.html", ec);
}

}  // namespace

fs::path find_viewer_assets(const std::string& explicit_dir) {
    if (!explicit_dir.empty()) {
        if (has_index(explicit_dir)) return fs::path(explicit_dir);
        throw InputError(explicit_dir + ": no index.html (expected the built viewer, viewer/dist)");
    }
    if (const char* env = std::getenv("CONCORD_VIEWER_DIR"); env != nullptr && *env != '\0') {
        if (has_index(env)) return fs::path(env);
        throw InputError(std::string("CONCORD_VIEWER_DIR=") + env + ": no index.html there");
    }
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        for (fs::path dir = exe.parent_path(); !dir.empty(); dir = dir.parent_path()) {
            if (has_index(dir / "viewer" / "dist")) return dir / "viewer" / "dist";
            if (has_index(dir / "share" / "concord" / "viewer"))
                return dir / "share" / "concord" / "viewer";
            if (dir == dir.root_path()) break;
        }
    }
    throw InputError(
        "viewer assets not found (viewer/dist above " +
        (ec ? std::string("the executable") : exe.string()) +
        "): build them with scripts/setup.sh, or `npm ci && npm run build` in viewer/, or pass "
        "--assets DIR");
}

}  // namespace concord
