// An output directory's frames.jsonl as every reader sees it (OutputReader and FrameStream, the
// resume scan, the unfinished-run note), in a directory whose header two boxes wrote.
#include <cstdint>
#include <filesystem>

#include <fstream>

#include "concord/io/output_reader.hpp"
#include "concord/io/run_resume.hpp"
#include "concord/math/error.hpp"
#include "fuzz_util.hpp"

namespace {

const std::string& output_dir() {
    static const std::string dir = [] {
        // The header `concord run` writes for two tetrahedra (docs/cli.md, "Output directory").
        const std::filesystem::path d = concord::fuzz::scratch() / "out";
        std::filesystem::remove_all(d);
        std::filesystem::create_directories(d / "meshes");
        const char* tetra = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
        std::ofstream(d / "meshes" / "a.obj") << tetra;
        std::ofstream(d / "meshes" / "b.obj") << tetra;
        std::ofstream(d / "bodies.json")
            << R"([{"name": "a", "mesh": "meshes/a.obj", "motion": "dynamic"},
                   {"name": "b", "mesh": "meshes/b.obj", "motion": "static"}])";
        std::ofstream(d / "scene.json") << R"({"name": "fuzz", "frames": 5, "planes": []})";
        return d.string();
    }();
    return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string& dir = output_dir();
    concord::fuzz::write_input("out/frames.jsonl", data, size);
    try {
        concord::OutputReader reader(dir);
        concord::FrameStream stream = reader.frames();
        concord::FrameRecord r;
        while (stream.next(r)) {
        }
        (void)reader.unfinished_run_note();
        (void)concord::scan_frames(dir + "/frames.jsonl");
    } catch (const concord::InputError&) {
    }
    return 0;
}
