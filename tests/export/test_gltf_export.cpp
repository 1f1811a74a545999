#include <gtest/gtest.h>

#include "concord/export/glb_builder.hpp"
#include "concord/export/gltf_export.hpp"
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
