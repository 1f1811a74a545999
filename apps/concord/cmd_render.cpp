// `concord render DIR [--frame K | --frames A:B] --out PATH`: pictures of a simulation without a
// GPU (software rasterizer), as one PNG or a numbered sequence plus an mp4 when ffmpeg exists.
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "commands.hpp"
#include "concord/export/image.hpp"
#include "concord/export/output_renderer.hpp"
#include "concord/export/selected_frames.hpp"
#include "concord/io/output_reader.hpp"
#include "concord/math/error.hpp"
#include "unfinished_run.hpp"

extern char** environ;

namespace concord::cli {
namespace {

namespace fs = std::filesystem;

struct RenderCommand {
    std::string dir;
    long frame = -1;
    std::string frames;
    std::string out;
    std::string colour = "body";
    bool no_planes = false;
    bool no_fluid = false;
    bool no_video = false;
    double fps = 0.0;
    RenderOptions options;
};

/// The first directory on PATH that has an executable `name`, or empty.
std::string find_on_path(const std::string& name) {
    const char* path = std::getenv("PATH");
    if (path == nullptr) return {};
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
        const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
        std::error_code ec;
        if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0)
            return candidate.string();
    }
    return {};
}

/// Encodes FOLDER/frame_*.png into FOLDER/animation.mp4; false (with a note) when it fails.
bool encode_video(const std::string& ffmpeg, const fs::path& folder, double fps) {
    const std::string pattern = (folder / "frame_*.png").string();
    const std::string video = (folder / "animation.mp4").string();
    const std::string rate = std::to_string(fps);
    std::vector<std::string> args = {ffmpeg, "-y", "-loglevel", "error", "-framerate", rate,
                                     "-pattern_type", "glob", "-i", pattern,
                                     // H.264 in yuv420p needs even sizes; pad by one if odd.
                                     "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264",
                                     "-pix_fmt", "yuv420p", video};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawn(&pid, ffmpeg.c_str(), nullptr, nullptr, argv.data(), environ) != 0)
        return false;
    int status = 0;
    if (::waitpid(pid, &status, 0) < 0) return false;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int run_render(RenderCommand& c) {
    OutputReader reader(c.dir);
    note_unfinished_run("render", reader);
    c.options.colour = parse_colour_mode(c.colour);
    c.options.planes = !c.no_planes;
    c.options.fluid = !c.no_fluid;
    std::vector<TriMesh> meshes = reader.load_meshes();
    const RunOverview overview =
        survey_run(reader, meshes, c.options.colour == ColourMode::Speed, c.options.fluid);
    if (overview.frames.empty()) throw InputError(c.dir + "/frames.jsonl: no frames");
    OutputRenderer renderer(reader, std::move(meshes), c.options, overview);
    if (!renderer.colour_note().empty())
        std::cerr << "concord render: " << renderer.colour_note() << "\n";

    const bool sequence = !c.frames.empty();
    FrameSelection selection;
    if (sequence) {
        selection = parse_frame_selection(c.frames, "--frames");
    } else {
        const long k = c.frame < 0 ? overview.frames.back() : c.frame;
        selection = single_frame(k);
        if (fs::path(c.out).extension() != ".png")
            throw InputError("--out: " + c.out + ": expected a .png file name");
    }
    if (sequence) {
        std::error_code ec;
        fs::create_directories(c.out, ec);
        if (!fs::is_directory(c.out, ec))
            throw InputError("--out: " + c.out + ": cannot create folder");
    }

    int written = 0;
    std::string last;
    for_each_selected_frame(reader, selection, [&](const FrameRecord& r) {
        std::string path = c.out;
        if (sequence) {
            std::string digits = std::to_string(r.frame);
            if (digits.size() < 5) digits.insert(0, 5 - digits.size(), '0');
            path = (fs::path(c.out) / ("frame_" + digits + ".png")).string();
        }
        write_png(renderer.render(r), path);
        last = path;
        ++written;
    });

    const Camera& cam = renderer.camera();
    std::cout << "concord render: wrote "
              << (sequence ? std::to_string(written) + " images to " + c.out : last) << " ("
              << c.options.width << "x" << c.options.height << ", "
              << renderer.triangles_per_frame() << " triangles"
              << (overview.has_fluid && c.options.fluid
                      ? " and up to " + std::to_string(overview.max_fluid_particles) +
                            " fluid particles"
                      : std::string())
              << " per frame, camera " << cam.eye.x() << "," << cam.eye.y() << "," << cam.eye.z()
              << ":" << cam.target.x() << "," << cam.target.y() << "," << cam.target.z() << ")"
              << std::endl;

    if (sequence && written > 1 && !c.no_video) {
        const std::string ffmpeg = find_on_path("ffmpeg");
        if (ffmpeg.empty()) {
            std::cout << "concord render: ffmpeg not found; no mp4 written (install ffmpeg for one)"
                      << std::endl;
        } else {
            double fps = c.fps;
            if (fps <= 0) {
                const double span = overview.times.back() - overview.times.front();
                fps = span > 0 ? (static_cast<double>(overview.frames.size()) - 1) / span : 30.0;
                fps = std::clamp(fps, 1.0, 120.0);
            }
            if (encode_video(ffmpeg, c.out, fps))
                std::cout << "concord render: wrote "
                          << (fs::path(c.out) / "animation.mp4").string() << " at " << fps
                          << " frames/s" << std::endl;
            else
                std::cerr << "concord render: ffmpeg failed; the PNG images are still there\n";
        }
    }
    return kExitOk;
}

}  // namespace

void register_render(CLI::App& app, Action& action) {
    auto c = std::make_shared<RenderCommand>();
    auto* cmd =
        app.add_subcommand("render", "Render frames of an output directory to PNG without a GPU");
    cmd->add_option("dir", c->dir, "Output directory written by `concord run`")->required();
    auto* frame = cmd->add_option("--frame", c->frame, "Frame number to render (default: the last)")
                      ->check(CLI::NonNegativeNumber);
    cmd->add_option("--frames", c->frames,
                    "Render frames A:B (inclusive; A: or :B open) into the --out folder")
        ->excludes(frame);
    cmd->add_option("--out", c->out, "PNG file, or with --frames a folder for frame_NNNNN.png")
        ->required();
    cmd->add_option("--width", c->options.width, "Image width in pixels (default 960)")
        ->check(CLI::Range(1, 8192));
    cmd->add_option("--height", c->options.height, "Image height in pixels (default 540)")
        ->check(CLI::Range(1, 8192));
    cmd->add_option(
        "--camera", c->options.camera,
        "Eye EX,EY,EZ or eye and target EX,EY,EZ:TX,TY,TZ (default: the viewer's view)");
    cmd->add_option("--fov", c->options.fov_deg, "Vertical field of view in degrees (default 40)")
        ->check(CLI::Range(1.0, 170.0));
    cmd->add_option("--color", c->colour,
                    "Colour bodies by body, worker (their owner in a distributed run), speed or "
                    "contacts")
        ->check(CLI::IsMember({"body", "worker", "speed", "contacts"}));
    cmd->add_option("--supersample", c->options.supersample,
                    "Samples per pixel along each axis, 1-4 (default 2)")
        ->check(CLI::Range(1, 4));
    cmd->add_flag("--no-planes", c->no_planes, "Leave out the scene's planes");
    cmd->add_flag("--no-fluid", c->no_fluid, "Leave out the fluid's particles");
    cmd->add_flag("--no-video", c->no_video,
                  "With --frames: do not make an mp4 even if ffmpeg exists");
    cmd->add_option("--fps", c->fps, "Frame rate of the mp4 (default: real time, 1-120)")
        ->check(CLI::PositiveNumber);
    cmd->callback([c, &action] { action = [c] { return run_render(*c); }; });
}

}  // namespace concord::cli
