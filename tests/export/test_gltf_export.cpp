#include <gtest/gtest.h>

#include <fstream>
#include <iostream>

#include "concord/export/glb_builder.hpp"
#include "concord/export/gltf_export.hpp"
#include "concord/export/polar_trs.hpp"
#include "concord/io/output_writer.hpp"
#include "concord/scene/scene_parser.hpp"
#include "concord/world/world.hpp"
#include "export/export_test_util.hpp"
#include "export/glb_reader.hpp"

namespace concord {
namespace {

TEST(GlbBuilder, ContainerIsAlignedAndSelfConsistent) {
    test::ScratchDir dir("glb_builder");
    GlbBuilder glb;
    glb.document()["scene"] = 0;
    glb.document()["scenes"] = {{{"name", "s"}}};
    const int a = glb.add_floats({1, 2, 3}, "VEC3", GlbBuilder::kArrayBuffer, true);
    const int b = glb.add_indices({0, 1, 2});
    const int c = glb.add_floats({0.5f}, "SCALAR", std::nullopt, false);
    glb.write(dir.file("x.glb"));
    test::Glb parsed(dir.file("x.glb"));
    ASSERT_EQ(parsed.error, "");
    EXPECT_EQ(parsed.json["asset"]["version"], "2.0");
    EXPECT_EQ(parsed.json["buffers"][0]["byteLength"], parsed.bin.size());
    for (const auto& view : parsed.json["bufferViews"])
        EXPECT_EQ(view["byteOffset"].get<int>() % 4, 0);
    EXPECT_EQ(parsed.json["accessors"][a]["min"], nlohmann::json({1, 2, 3}));
    EXPECT_EQ(parsed.json["accessors"][b]["componentType"], GlbBuilder::kUnsignedInt);
    EXPECT_EQ(parsed.floats(c), std::vector<float>({0.5f}));
    EXPECT_THROW(glb.add_floats({1, 2}, "VEC3", std::nullopt, false), std::invalid_argument);
}

TEST(GltfExport, OneNodePerBodyAndOneKeyframePerFrame) {
    test::HandMadeOutput out("gltf_export", 3, 6, /*with_static=*/true);
    OutputReader reader(out.str());
    const std::string path = out.dir.file("anim.glb");
    const GltfExportSummary s = export_gltf(reader, path, {});
    EXPECT_EQ(s.bodies, 3);
    EXPECT_EQ(s.distinct_meshes, 2);  // cube0 and cube2 have the same mesh, cube1 is smaller
    EXPECT_EQ(s.frames, 6);
    EXPECT_EQ(s.animated_bodies, 2);   // the static body has no channels
    EXPECT_LT(s.max_trs_error, 1e-6);  // rigid motions: only float rounding

    test::Glb glb(path);
    ASSERT_EQ(glb.error, "");
    const auto& j = glb.json;
    ASSERT_EQ(j["nodes"].size(), 4u);  // 3 bodies + 1 plane
    EXPECT_EQ(j["nodes"][0]["name"], "cube0");
    EXPECT_EQ(j["nodes"][3]["name"], "plane_0");
    EXPECT_EQ(j["scenes"][0]["nodes"].size(), 4u);
    // Shared geometry: cube0 and cube2 use the same POSITION accessor.
    EXPECT_EQ(j["meshes"][0]["primitives"][0]["attributes"]["POSITION"],
              j["meshes"][2]["primitives"][0]["attributes"]["POSITION"]);
    EXPECT_NE(j["meshes"][0]["primitives"][0]["attributes"]["POSITION"],
              j["meshes"][1]["primitives"][0]["attributes"]["POSITION"]);

    const auto& anim = j["animations"][0];
    ASSERT_EQ(anim["channels"].size(), 6u);  // 2 animated bodies x (T, R, S)
    const int input = anim["samplers"][0]["input"];
    const std::vector<float> times = glb.floats(input);
    ASSERT_EQ(times.size(), 6u);
    EXPECT_FLOAT_EQ(times[0], 0.0f);
    EXPECT_NEAR(times[5], 0.05, 1e-6);
    EXPECT_NEAR(j["accessors"][input]["max"][0].get<double>(), 0.05, 1e-6);

    // Body 1's keyframes reproduce x = p + A X at every frame.
    for (const auto& ch : anim["channels"]) {
        if (ch["target"]["node"] != 1) continue;
        const std::vector<float> v =
            glb.floats(anim["samplers"][ch["sampler"].get<int>()]["output"]);
        const std::string property = ch["target"]["path"];
        for (int k = 0; k < 6; ++k) {
            if (property == "translation") {
                const Vec3 p = test::HandMadeOutput::position(1, k);
                EXPECT_NEAR(v[3 * k + 1], p.y(), 1e-6);
                EXPECT_NEAR(v[3 * k], p.x(), 1e-6);
            } else if (property == "rotation") {
                const Eigen::Quaterniond q(v[4 * k + 3], v[4 * k], v[4 * k + 1], v[4 * k + 2]);
                EXPECT_TRUE(
                    q.toRotationMatrix().isApprox(test::HandMadeOutput::orientation(1, k), 1e-5));
                if (k > 0) {  // consecutive keys stay in one hemisphere
                    const double dot = v[4 * k] * v[4 * k - 4] + v[4 * k + 1] * v[4 * k - 3] +
                                       v[4 * k + 2] * v[4 * k - 2] + v[4 * k + 3] * v[4 * k - 1];
                    EXPECT_GT(dot, 0);
                }
            } else {
                EXPECT_NEAR(v[3 * k], 1.0, 1e-6);
            }
        }
    }
}

TEST(GltfExport, FrameSelectionAndNoPlanes) {
    test::HandMadeOutput out("gltf_select", 2, 8);
    OutputReader reader(out.str());
    GltfExportOptions options;
    options.frames = parse_frame_selection("2:4", "--frames");
    options.planes = false;
    const std::string path = out.dir.file("part.glb");
    const GltfExportSummary s = export_gltf(reader, path, options);
    EXPECT_EQ(s.frames, 3);
    test::Glb glb(path);
    ASSERT_EQ(glb.error, "");
    EXPECT_EQ(glb.json["nodes"].size(), 2u);
    // The first selected frame is the rest pose and time 0.
    const auto& t = glb.json["nodes"][0]["translation"];
    EXPECT_NEAR(t[1].get<double>(), test::HandMadeOutput::position(0, 2).y(), 1e-12);
    const std::vector<float> times = glb.floats(glb.json["animations"][0]["samplers"][0]["input"]);
    EXPECT_FLOAT_EQ(times.front(), 0.0f);
}

/// Runs scenes/elastic-cantilever.json for `steps` steps into `dir`, with the beam released from
/// a bend (so that eta is far from 0 from frame 0 on), a rigid twin of the beam (a static body
/// with the same box mesh, which must not get the beam's morph targets) and an elastic sibling
/// (the same mesh and modes, falling free: it shares the beam's targets, not its weights).
void run_elastic_cantilever(const std::string& dir, int steps) {
    std::ifstream in(std::string(CONCORD_SOURCE_DIR) + "/scenes/elastic-cantilever.json");
    nlohmann::json j = nlohmann::json::parse(in);
    for (auto& body : j["bodies"])
        if (body["name"] == "beam") body["elastic"]["initial"] = {0.01, 0.0, 0.0, 0.01};
    nlohmann::json sibling = j["bodies"][1];
    sibling["name"] = "sibling";
    sibling["position"] = {0, -2, 0};
    sibling["elastic"]["initial"] = {0.0, 0.02, 0.0, 0.0};
    j["bodies"].push_back(sibling);
    j["bodies"].push_back(
        {{"name", "twin"},
         {"shape", {{"box", {{"size", {1, 0.1, 0.05}}, {"divisions", {16, 2, 1}}}}}},
         {"motion", "static"},
         {"position", {0, -1, 0}}});
    const SceneSpec scene =
        parse_scene(j, "elastic-cantilever.json", std::string(CONCORD_SOURCE_DIR) + "/scenes");
    World world(scene);
    OutputWriter writer(dir, false);
    writer.write_header(scene, world);
    writer.write_frame(0, world.time(), world, nullptr);
    for (int k = 1; k <= steps; ++k) {
        const StepStats& stats = world.step();
        writer.write_frame(k, world.time(), world, &stats);
    }
}

TEST(GltfExport, ElasticBodiesGetOneMorphTargetPerMode) {
    test::ScratchDir dir("gltf_elastic");
    const int steps = 4, frames = steps + 1;
    run_elastic_cantilever(dir.file("out"), steps);
    OutputReader reader(dir.file("out"));
    const auto& bodies = reader.bodies();
    int beam = -1, twin = -1, sibling = -1;
    for (std::size_t b = 0; b < bodies.size(); ++b) {
        if (bodies[b].name == "beam") beam = static_cast<int>(b);
        if (bodies[b].name == "twin") twin = static_cast<int>(b);
        if (bodies[b].name == "sibling") sibling = static_cast<int>(b);
    }
    ASSERT_GE(beam, 0);
    ASSERT_GE(twin, 0);
    ASSERT_GE(sibling, 0);
    const TriMesh mesh = reader.load_mesh(beam);
    const MatX phi = reader.load_modes(beam);
    const Eigen::Index m = phi.cols(), nv = mesh.vertices.rows();
    ASSERT_EQ(m, 4);  // 3 bending modes + 1 torsion mode
    const std::vector<FrameRecord> records = reader.read_all_frames();
    ASSERT_EQ(records.size(), static_cast<std::size_t>(frames));

    const std::string path = dir.file("elastic.glb");
    const GltfExportSummary s = export_gltf(reader, path, {});
    EXPECT_EQ(s.elastic_bodies, 2);
    EXPECT_EQ(s.frames, frames);
    test::Glb glb(path);
    ASSERT_EQ(glb.error, "");
    const auto& j = glb.json;

    // The beam's mesh: one POSITION target per mode, holding Phi_k at the vertices, with the
    // min/max glTF requires; default weights 0; the node starts with frame 0's eta.
    const auto& beam_mesh = j["meshes"][j["nodes"][beam]["mesh"].get<int>()];
    const auto& targets = beam_mesh["primitives"][0]["targets"];
    ASSERT_EQ(targets.size(), static_cast<std::size_t>(m));
    EXPECT_EQ(beam_mesh["weights"], nlohmann::json(std::vector<double>(4, 0.0)));
    EXPECT_EQ(beam_mesh["extras"]["targetNames"][3], "mode_3");
    ASSERT_EQ(j["nodes"][beam]["weights"].size(), static_cast<std::size_t>(m));
    std::vector<std::vector<float>> target(static_cast<std::size_t>(m));
    for (Eigen::Index k = 0; k < m; ++k) {
        const int a = targets[k]["POSITION"];
        EXPECT_EQ(j["accessors"][a]["count"].get<Eigen::Index>(), nv);
        ASSERT_TRUE(j["accessors"][a].contains("min"));
        ASSERT_TRUE(j["accessors"][a].contains("max"));
        target[static_cast<std::size_t>(k)] = glb.floats(a);
        const auto& t = target[static_cast<std::size_t>(k)];
        for (Eigen::Index r = 0; r < 3 * nv; ++r)
            ASSERT_EQ(t[static_cast<std::size_t>(r)], static_cast<float>(phi(r, k)));
        for (int c = 0; c < 3; ++c) {
            float lo = t[c], hi = t[c];
            for (Eigen::Index v = 0; v < nv; ++v) {
                lo = std::min(lo, t[static_cast<std::size_t>(3 * v + c)]);
                hi = std::max(hi, t[static_cast<std::size_t>(3 * v + c)]);
            }
            EXPECT_EQ(j["accessors"][a]["min"][c].get<float>(), lo);
            EXPECT_EQ(j["accessors"][a]["max"][c].get<float>(), hi);
        }
        EXPECT_NEAR(j["nodes"][beam]["weights"][k].get<double>(), records[0].q[beam][12 + k], 0);
    }
    // The twin shares the beam's vertex data but its own mesh has no targets; neither have the
    // affine bodies' meshes or nodes.
    const auto& twin_mesh = j["meshes"][j["nodes"][twin]["mesh"].get<int>()];
    EXPECT_EQ(twin_mesh["primitives"][0]["attributes"]["POSITION"],
              beam_mesh["primitives"][0]["attributes"]["POSITION"]);
    // The sibling's mesh has the beam's target accessors.
    const auto& sibling_mesh = j["meshes"][j["nodes"][sibling]["mesh"].get<int>()];
    EXPECT_EQ(sibling_mesh["primitives"][0]["targets"], targets);
    for (std::size_t b = 0; b < bodies.size(); ++b) {
        if (static_cast<int>(b) == beam || static_cast<int>(b) == sibling) continue;
        const auto& mb = j["meshes"][j["nodes"][b]["mesh"].get<int>()];
        EXPECT_FALSE(mb["primitives"][0].contains("targets")) << bodies[b].name;
        EXPECT_FALSE(mb.contains("weights")) << bodies[b].name;
        EXPECT_FALSE(j["nodes"][b].contains("weights")) << bodies[b].name;
    }

    // A "weights" channel per elastic body; the beam's has frames x m outputs: eta of every frame.
    const auto& anim = j["animations"][0];
    std::map<std::string, std::vector<float>> track;  // the beam's tracks by path
    int weight_channels = 0;
    for (const auto& ch : anim["channels"]) {
        const auto& sampler = anim["samplers"][ch["sampler"].get<int>()];
        if (ch["target"]["path"] == "weights") {
            ++weight_channels;
            EXPECT_EQ(sampler["interpolation"], "LINEAR");
        }
        if (ch["target"]["node"] == beam)
            track[ch["target"]["path"]] = glb.floats(sampler["output"]);
    }
    EXPECT_EQ(weight_channels, 2);
    const std::vector<float>& w = track["weights"];
    ASSERT_EQ(w.size(), static_cast<std::size_t>(frames * m));
    for (int f = 0; f < frames; ++f)
        for (Eigen::Index k = 0; k < m; ++k)
            EXPECT_EQ(w[static_cast<std::size_t>(f * m + k)],
                      static_cast<float>(records[f].q[beam][12 + k]));

    // Reconstruction, frame by frame, of every beam vertex from the glTF alone:
    // Y = X + sum_k w_k target_k (the morph), x = T + R diag(s) Y (the node).
    double morph_error = 0.0, pose_error = 0.0, bend = 0.0, trs_bound = 0.0;
    for (int f = 0; f < frames; ++f) {
        const VecX& row = records[f].q[beam];
        const Vertices exact = row_world_vertices(mesh, phi, row);
        const AffineMap map = affine_map_from_row(row);
        const auto at = [&](const std::string& property, int i) {
            return static_cast<double>(track[property][static_cast<std::size_t>(i)]);
        };
        TRS trs;
        trs.translation = Vec3(at("translation", 3 * f), at("translation", 3 * f + 1),
                               at("translation", 3 * f + 2));
        trs.rotation = Eigen::Quaterniond(at("rotation", 4 * f + 3), at("rotation", 4 * f),
                                          at("rotation", 4 * f + 1), at("rotation", 4 * f + 2));
        trs.scale = Vec3(at("scale", 3 * f), at("scale", 3 * f + 1), at("scale", 3 * f + 2));
        // The polar TRS of this frame's A, in double: its error bounds the TRS part.
        const TRS polar = trs_from_affine(map);
        Vertices morphed(nv, 3);
        for (Eigen::Index v = 0; v < nv; ++v) {
            Vec3 Y = mesh.vertices.row(v).transpose().cast<float>().cast<double>();
            for (Eigen::Index k = 0; k < m; ++k)
                for (int c = 0; c < 3; ++c)
                    Y[c] +=
                        static_cast<double>(w[static_cast<std::size_t>(f * m + k)]) *
                        target[static_cast<std::size_t>(k)][static_cast<std::size_t>(3 * v + c)];
            morphed.row(v) = Y.transpose();
            // The morph part alone, with the exact affine map: only float rounding of X, Phi
            // and eta (relative 6e-8 of values below 1 m, summed over 4 modes).
            morph_error = std::max(morph_error, (map.apply(Y) - exact.row(v).transpose()).norm());
            bend = std::max(
                bend,
                (exact.row(v).transpose() - map.apply(mesh.vertices.row(v).transpose())).norm());
            const Vec3 x = trs.translation + trs.linear() * Y;
            pose_error = std::max(pose_error, (x - exact.row(v).transpose()).norm());
        }
        trs_bound = std::max(trs_bound, trs_error(polar, map, morphed));
    }
    std::cout << "morph error " << morph_error << " m, whole pose error " << pose_error
              << " m, TRS error " << s.max_trs_error << " m, largest modal displacement " << bend
              << " m\n";
    EXPECT_LT(morph_error, 1e-6);
    // The whole glTF pose: the polar TRS approximation of A (reported) plus the float rounding
    // of T, the quaternion and the scale (about 1e-7 of the 0.5 m lever arm).
    EXPECT_LE(pose_error, s.max_trs_error + 1e-6);
    EXPECT_GT(bend, 1e-3);  // the modes matter: without them a vertex would be this far off
    // The reported TRS error is the one on the deformed vertices (up to their float rounding).
    EXPECT_NEAR(s.max_trs_error, trs_bound, 1e-6);

    // A modes file whose vertex count differs from the mesh's is an InputError naming it.
    const std::string modes_file = dir.file("out") + "/" + bodies[beam].modes;
    nlohmann::json modes = nlohmann::json::parse(test::read_file(modes_file));
    modes["num_vertices"] = nv - 1;
    modes["values"].erase(modes["values"].end() - 3 * m, modes["values"].end());
    test::write_file(modes_file, modes.dump());
    EXPECT_TRUE(test::contains(
        test::error_of([&] { export_gltf(OutputReader(dir.file("out")), path, {}); }),
        "meshes/beam.modes.json: num_vertices " + std::to_string(nv - 1) + " differs from the " +
            std::to_string(nv) + " vertices of meshes/beam.obj"));
}

TEST(GltfExport, RigidExportHasNoMorphTargets) {
    test::HandMadeOutput out("gltf_rigid", 2, 3);
    OutputReader reader(out.str());
    const std::string path = out.dir.file("rigid.glb");
    EXPECT_EQ(export_gltf(reader, path, {}).elastic_bodies, 0);
    const std::string text = test::read_file(path);
    EXPECT_EQ(text.find("targets"), std::string::npos);
    EXPECT_EQ(text.find("weights"), std::string::npos);
}

TEST(GltfExport, BadInputIsAnInputError) {
    test::HandMadeOutput out("gltf_bad", 1, 3);
    OutputReader reader(out.str());
    GltfExportOptions options;
    options.frames = single_frame(10);
    EXPECT_TRUE(
        test::contains(test::error_of([&] { export_gltf(reader, out.dir.file("a.glb"), options); }),
                       "frames.jsonl: no saved frame 10 (saved frames: 0..2)"));
    // Equal times cannot be keyframes.
    test::write_file(
        out.dir.file("frames.jsonl"),
        test::read_file(out.dir.file("frames.jsonl")) +
            R"({"frame": 3, "time": 0.02, "q": [[0,0,0,1,0,0,0,1,0,0,0,1]], "stats": {}})"
            "\n");
    EXPECT_TRUE(test::contains(
        test::error_of([&] { export_gltf(reader, out.dir.file("a.glb"), {}); }), "frame 3: time"));
    EXPECT_TRUE(test::contains(
        test::error_of([&] {
            export_gltf(reader, "/nonexistent/dir/a.glb", GltfExportOptions{single_frame(0), true});
        }),
        "/nonexistent/dir/a.glb: cannot write file"));
}

}  // namespace
}  // namespace concord
