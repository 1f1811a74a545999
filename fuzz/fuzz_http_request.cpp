// The viewer's HTTP request path (`concord view`): any request head gets an answer, and a file
// is only ever served from inside its mount, whatever the target (dot segments, %-escapes,
// a symbolic link that points out of the folder).
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "concord/export/static_http_server.hpp"
#include "fuzz_util.hpp"

namespace fs = std::filesystem;

namespace {

struct Site {
    fs::path root, outside;
    std::vector<concord::HttpMount> mounts;
    Site() {
        root = concord::fuzz::scratch() / "site";
        outside = concord::fuzz::scratch() / "secret";
        fs::remove_all(root);
        fs::create_directories(root / "data" / "meshes");
        fs::create_directories(outside);
        std::ofstream(root / "index.html") << "<html></html>";
        std::ofstream(root / "data" / "frames.jsonl") << "{}\n";
        std::ofstream(root / "data" / "meshes" / "a.obj") << "v 0 0 0\n";
        std::ofstream(outside / "key.txt") << "secret";
        std::error_code ec;
        fs::create_directory_symlink(outside, root / "data" / "link", ec);
        mounts = {{"/data/", root / "data"}, {"/", root}};
        root = fs::canonical(root);
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const Site site;
    const std::string head(reinterpret_cast<const char*>(data), size);
    const concord::HttpAnswer a = concord::answer_request(site.mounts, head, "index.html");
    if (a.file) {
        // Served files lie below the served root, never in `outside`.
        const auto [root_end, it] =
            std::mismatch(site.root.begin(), site.root.end(), a.file->begin(), a.file->end());
        if (root_end != site.root.end() || a.status != 200) std::abort();
    } else if (a.status == 200) {
        std::abort();
    }
    return 0;
}
