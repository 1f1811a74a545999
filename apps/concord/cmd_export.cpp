// `concord export DIR --format gltf|obj|ply [--out PATH] [--frames A:B]`: the simulation as an
// animated glTF binary for Blender and three.js, or as per-frame world-space mesh files.
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <string>

#include "commands.hpp"
#include "unfinished_run.hpp"
#include "concord/export/gltf_export.hpp"
#include "concord/export/mesh_sequence_export.hpp"
#include "concord/io/output_reader.hpp"
#include "concord/math/error.hpp"

namespace concord::cli {
namespace {

namespace fs = std::filesystem;

struct ExportOptions {
    std::string dir;
    std::string format;
    std::string out;
    std::string frames;
    bool no_planes = false;
};

int run_export(const ExportOptions& o) {
    OutputReader reader(o.dir);
    note_unfinished_run("export", reader);
    const FrameSelection selection = parse_frame_selection(o.frames, "--frames");
    if (o.format == "gltf") {
        std::string path = o.out.empty() ? (fs::path(o.dir) / "animation.glb").string() : o.out;
        std::error_code ec;
        if (fs::is_directory(path, ec)) path = (fs::path(path) / "animation.glb").string();
        if (fs::path(path).extension() != ".glb")
            throw InputError("--out: " + path + ": a glTF binary's name ends in .glb");
        GltfExportOptions options;
        options.frames = selection;
        options.planes = !o.no_planes;
        const GltfExportSummary s = export_gltf(reader, path, options);
        std::cout << "concord export: wrote " << path << " (" << s.bodies << " bodies, "
                  << s.distinct_meshes << " distinct meshes, " << s.frames << " keyframes, "
                  << s.animated_bodies << " animated bodies, ";
        if (s.elastic_bodies > 0)
            std::cout << s.elastic_bodies << " elastic bodies with one morph target per mode, ";
        std::cout << s.bytes << " bytes); "
                  << "TRS approximation error at most " << std::setprecision(3) << s.max_trs_error
                  << " m" << std::endl;
        return kExitOk;
    }
    const MeshSequenceFormat format =
        o.format == "obj" ? MeshSequenceFormat::Obj : MeshSequenceFormat::Ply;
    const std::string out = o.out.empty() ? (fs::path(o.dir) / o.format).string() : o.out;
    const MeshSequenceSummary s = export_mesh_sequence(reader, out, format, selection);
    std::cout << "concord export: wrote " << s.files << " " << o.format << " file(s) to " << out
              << " (" << fs::path(s.first_file).filename().string() << " .. "
              << fs::path(s.last_file).filename().string() << ", " << s.vertices_per_frame
              << " vertices and " << s.faces_per_frame << " triangles each)";
    if (s.fluid_files > 0) std::cout << " and " << s.fluid_files << " fluid point clouds";
    std::cout << std::endl;
    return kExitOk;
}

}  // namespace

void register_export(CLI::App& app, Action& action) {
    auto o = std::make_shared<ExportOptions>();
    auto* cmd = app.add_subcommand("export", "Export an output directory as glTF or mesh files");
    cmd->add_option("dir", o->dir, "Output directory written by `concord run`")->required();
    cmd->add_option("--format", o->format,
                    "gltf: one animated .glb; obj or ply: one world-space mesh file per frame")
        ->required()
        ->check(CLI::IsMember({"gltf", "obj", "ply"}));
    cmd->add_option("--out", o->out,
                    "gltf: the .glb file (default DIR/animation.glb); obj/ply: the folder "
                    "(default DIR/obj or DIR/ply)");
    cmd->add_option("--frames", o->frames, "Frame numbers A:B, A:, :B or K (default: all)");
    cmd->add_flag("--no-planes", o->no_planes, "gltf: leave out the scene's planes");
    cmd->callback([o, &action] { action = [o] { return run_export(*o); }; });
}

}  // namespace concord::cli
