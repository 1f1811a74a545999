#include "concord/io/run_resume.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "concord/io/output_layout.hpp"
#include "concord/math/error.hpp"
#include "concord/scene/distributed_json.hpp"
#include "concord/scene/scene_json.hpp"

namespace concord {

namespace fs = std::filesystem;

std::string output_layout::checkpoint_path(int frame) {
    return fmt::format("{}/{:06d}.ckpt", kCheckpointFolder, frame);
}

std::string output_layout::fluid_path(int frame) {
    return fmt::format("{}/{:06d}.npy", kFluidFolder, frame);
}

namespace {

/// The resolved scene without what does not change results (see scene_digest): the frame
/// count, the checkpoint pace, and the layout of a distributed run (workers, grid, slab axis).
nlohmann::json result_relevant(nlohmann::json j) {
    if (!j.is_object()) return j;
    j.erase("frames");
    j.erase("checkpoint_every");
    // scene.json leaves the key out when it holds the defaults: compare every key.
    nlohmann::json d = j.contains("distributed") ? j["distributed"]
                                                 : distributed_spec_to_json(DistributedSpec{});
    if (d.is_object()) {
        d.erase("workers");
        d.erase("grid");
        d.erase("axis");
    }
    j["distributed"] = std::move(d);
    return j;
}

/// The frame number a frames.jsonl line starts with: {"frame": N, ... (the writer's keys are
/// sorted, so "frame" comes first).
std::optional<int> leading_frame(const std::string& line) {
    std::size_t i = 0;
    auto skip_space = [&] {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    };
    auto expect = [&](std::string_view token) {
        skip_space();
        if (line.compare(i, token.size(), token) != 0) return false;
        i += token.size();
        return true;
    };
    if (!expect("{") || !expect("\"frame\"") || !expect(":")) return std::nullopt;
    skip_space();
    int f = -1;
    const char* begin = line.data() + i;
    const auto [end, ec] = std::from_chars(begin, line.data() + line.size(), f);
    if (ec != std::errc() || end == begin || f < 0) return std::nullopt;
    return f;
}

}  // namespace

std::string scene_digest(const SceneSpec& scene) {
    const std::string text = result_relevant(scene_to_json(scene)).dump();
    return fmt::format("fnv1a64:{:016x}", fnv1a64(text.data(), text.size()));
}

bool nothing_to_resume(const std::string& dir) {
    std::error_code ec;
    if (!fs::exists(dir, ec)) return true;
    return fs::is_directory(dir, ec) && fs::is_empty(dir, ec);
}

FramesOnDisk scan_frames(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot read file");
    FramesOnDisk out;
    std::string line;
    std::uint64_t offset = 0;
    int line_number = 0;
    while (std::getline(in, line)) {
        ++line_number;
        const bool complete = !in.eof();  // getline stopped at a newline
        if (!complete) {
            out.partial_tail = !line.empty();
            break;
        }
        offset += line.size() + 1;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const auto f = leading_frame(line);
        if (!f || *f <= out.last_frame)
            throw InputError(fmt::format("{}: line {}: not a frame line in order", path, line_number));
        out.last_frame = *f;
        out.complete_bytes = offset;
    }
    if (in.bad()) throw InputError(path + ": read error");
    return out;
}

std::optional<ResumePoint> find_resume_point(const std::string& dir, const SceneSpec& scene) {
    const fs::path root(dir);
    const fs::path scene_file = root / output_layout::kScene;
    std::error_code ec;
    if (!fs::exists(scene_file, ec))
        throw InputError(dir + ": no earlier run to resume (no " + output_layout::kScene +
                         "); use --force to start a new run here");
    nlohmann::json written;
    {
        std::ifstream in(scene_file);
        try {
            written = nlohmann::json::parse(in);
        } catch (const nlohmann::json::exception&) {
            throw InputError(scene_file.string() + ": not valid JSON; the run cannot be resumed");
        }
    }
    const nlohmann::json now = result_relevant(scene_to_json(scene));
    written = result_relevant(std::move(written));
    if (written != now) {
        const nlohmann::json patch = nlohmann::json::diff(written, now);
        const std::string where =
            patch.empty() ? std::string("?") : patch.front().value("path", std::string("?"));
        throw InputError(dir + ": the scene differs from the interrupted run's at " + where +
                         " (resume with the same scene and options, or use --force to start over)");
    }
    const std::string frames_path = (root / output_layout::kFrames).string();
    const FramesOnDisk frames = scan_frames(frames_path);

    // Checkpoints, newest first: the newest whose frame is complete on disk and that loads.
    std::vector<std::pair<int, fs::path>> found;
    const fs::path folder = root / output_layout::kCheckpointFolder;
    if (fs::is_directory(folder, ec))
        for (const auto& entry : fs::directory_iterator(folder, ec)) {
            const std::string name = entry.path().filename().string();
            if (entry.path().extension() != ".ckpt") continue;
            int f = -1;
            const auto [end, err] = std::from_chars(name.data(), name.data() + name.size(), f);
            if (err == std::errc() && end == name.data() + name.size() - 5 && f >= 0)
                found.emplace_back(f, entry.path());
        }
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    const std::string digest = scene_digest(scene);
    for (const auto& [f, path] : found) {
        if (f > frames.last_frame) continue;  // written, but its frame line was not
        Checkpoint c;
        try {
            c = load_checkpoint(path.string());
        } catch (const InputError&) {
            continue;  // damaged: the one before will do
        }
        if (c.frame != f) continue;
        if (c.scene_digest != digest)
            throw InputError(path.string() +
                             ": written by a run of another scene (use --force to start over)");
        ResumePoint p;
        p.checkpoint = std::move(c);
        p.last_complete_frame = frames.last_frame;
        // The byte offset of the end of frame f's line.
        std::ifstream in(frames_path, std::ios::binary);
        std::string line;
        std::uint64_t offset = 0;
        while (std::getline(in, line) && !in.eof()) {
            offset += line.size() + 1;
            if (leading_frame(line) == f) {
                p.frames_bytes = offset;
                return p;
            }
        }
        throw InputError(frames_path + ": frame " + std::to_string(f) + " is missing");
    }
    return std::nullopt;
}

}  // namespace concord
