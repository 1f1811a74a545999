#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "concord/export/frame_selection.hpp"
#include "concord/export/output_renderer.hpp"
#include "concord/export/palette.hpp"
#include "concord/export/plots.hpp"
#include "concord/export/selected_frames.hpp"
#include "concord/io/npy_file.hpp"
#include "export/export_test_util.hpp"

namespace concord {
namespace {

int differing_pixels(const Image& img, const Rgb& background) {
    int n = 0;
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x) {
            const auto* p = img.pixel(x, y);
            n += std::abs(p[0] - std::lround(background[0] * 255)) > 3 ||
                 std::abs(p[2] - std::lround(background[2] * 255)) > 3;
        }
    return n;
}

namespace {

// Pixels that are (shaded) multiples of a colour: x = c * s, s in [0.3, 1].
int share_of(const Image& img, const Rgb& c) {
    int n = 0;
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x) {
            const auto* p = img.pixel(x, y);
            const double s = p[0] / 255.0 / c[0];
            bool match = s > 0.3 && s < 1.01;
            for (int k = 1; k < 3; ++k) match = match && std::abs(p[k] / 255.0 - s * c[k]) < 0.02;
            n += match;
        }
    return n;
}

}  // namespace

TEST(SurveyRun, BoundsCoverEveryFrameAndSpeedsFollowTheMotion) {
    test::HandMadeOutput out("survey", 2, 5);
    OutputReader reader(out.str());
    const auto meshes = reader.load_meshes();
    const RunOverview o = survey_run(reader, meshes, true);
    EXPECT_EQ(o.frames, std::vector<int>({0, 1, 2, 3, 4}));
    EXPECT_NEAR(o.bounds.max().y(), 1.0 + std::sqrt(0.5), 0.3);  // the cube's corner at frame 0
    EXPECT_LT(o.bounds.min().y(), 0.6 - 0.5 + 1e-9);             // lower at frame 4
    ASSERT_EQ(o.speeds.size(), 10u);
    // Centroids fall 0.1 per 0.01 s: 10 m/s for every body in every frame (frame 0 copies 1).
    for (float v : o.speeds) EXPECT_NEAR(v, 10.0, 1e-6);
    EXPECT_NEAR(o.max_speed, 10.0, 1e-6);
}

TEST(OutputRenderer, DrawsBodiesAndPlanesInTheFittedView) {
    test::HandMadeOutput out("render", 2, 3);
    OutputReader reader(out.str());
    auto meshes = reader.load_meshes();
    const RunOverview o = survey_run(reader, meshes, false);
    RenderOptions opt;
    opt.width = 160;
    opt.height = 90;
    opt.planes = false;
    OutputRenderer renderer(reader, meshes, opt, o);
    EXPECT_TRUE(renderer.colour_note().empty());
    EXPECT_EQ(renderer.triangles_per_frame(), 24);
    std::vector<Image> images;
    for_each_selected_frame(reader, single_frame(0),
                            [&](const FrameRecord& r) { images.push_back(renderer.render(r)); });
    ASSERT_EQ(images.size(), 1u);
    const int bodies_only = differing_pixels(images[0], opt.background);
    EXPECT_GT(bodies_only, 200);
    EXPECT_LT(bodies_only, 160 * 90 / 2);
    // Up follows gravity (-y), so the camera sits above the scene.
    EXPECT_GT(renderer.camera().eye.y(), renderer.camera().target.y());

    opt.planes = true;
    OutputRenderer with_planes(reader, meshes, opt, o);
    for_each_selected_frame(reader, single_frame(0),
                            [&](const FrameRecord& r) { images.push_back(with_planes.render(r)); });
    EXPECT_GT(differing_pixels(images[1], opt.background), bodies_only + 500);
}

TEST(OutputRenderer, DrawsTheFluidParticlesOfEachFrame) {
    // The hand-made run with a fluid: 4 x 4 x 4 particles of radius 0.05 beside the cubes at
    // frame 0, moved 1 m along -x at frame 1, none at frame 2 (an empty file).
    test::HandMadeOutput out("render_fluid", 1, 3);
    test::write_file(out.dir.file("scene.json"),
               R"({"name": "hand-made", "gravity": [0, -9.81, 0], "fluids": [{"name": "water",
                   "particle_radius": 0.05}]})");
    std::filesystem::create_directories(out.dir.path() / "fluid");
    for (int f = 0; f < 3; ++f) {
        NpyMatrix m{f < 2 ? 64u : 0u, 5, {}};
        for (std::size_t i = 0; i < m.rows; ++i) {
            const float row[5] = {-2.0f - f + 0.1f * (i % 4), 0.5f + 0.1f * (i / 4 % 4),
                                  0.1f * (i / 16), 0.5f * f, 100.0f};
            m.data.insert(m.data.end(), row, row + 5);
        }
        test::write_file(out.dir.file("fluid/" +
                                std::string(f == 0   ? "000000"
                                            : f == 1 ? "000001"
                                                     : "000002") +
                                ".npy"),
                   npy_bytes(m));
    }
    OutputReader reader(out.str());
    auto meshes = reader.load_meshes();
    const RunOverview o = survey_run(reader, meshes, false);
    EXPECT_TRUE(o.has_fluid);
    EXPECT_DOUBLE_EQ(o.fluid_radius, 0.05);
    EXPECT_EQ(o.max_fluid_particles, 64);
    // sqrt(2 g h) with h = 0.3, the height of the particles' centres at frame 0.
    EXPECT_NEAR(o.fluid_speed_scale, std::sqrt(2 * 9.81 * 0.3), 1e-6);
    EXPECT_NEAR(o.bounds.min().x(), -3.0, 1e-6);  // the particles of frame 1 are in the view
    EXPECT_FALSE(survey_run(reader, meshes, false, false).has_fluid);

    RenderOptions opt;
    opt.width = 160;
    opt.height = 90;
    OutputRenderer with(reader, meshes, opt, o);
    opt.fluid = false;
    OutputRenderer without(reader, meshes, opt, o);
    // Water is blue (b > r); the cube's body colour 0 is red.
    const auto water = [](const Image& img) {
        int n = 0;
        for (int y = 0; y < img.height; ++y)
            for (int x = 0; x < img.width; ++x) n += img.pixel(x, y)[2] > img.pixel(x, y)[0] + 40;
        return n;
    };
    std::vector<int> drawn, blue, none;
    for_each_selected_frame(reader, parse_frame_selection("0:2", "--frames"),
                            [&](const FrameRecord& r) {
                                blue.push_back(water(with.render(r)));
                                drawn.push_back(static_cast<int>(with.particles_drawn()));
                                none.push_back(water(without.render(r)));
                            });
    EXPECT_EQ(drawn, std::vector<int>({64, 64, 0}));
    EXPECT_GT(blue[0], 40);
    EXPECT_GT(blue[1], 40);
    EXPECT_EQ(blue[2], 0);
    EXPECT_EQ(none, std::vector<int>({0, 0, 0}));

    // A fluid file that is not (n, 5) is an error naming it.
    test::write_file(out.dir.file("fluid/000001.npy"), npy_bytes(NpyMatrix{1, 3, {0, 0, 0}}));
    EXPECT_TRUE(test::contains(test::error_of([&] { survey_run(reader, meshes, false); }),
                               "fluid/000001.npy: expected 5 columns"));
}

TEST(OutputRenderer, ColourModesWithoutData) {
    test::HandMadeOutput out("render_modes", 1, 2);
    OutputReader reader(out.str());
    auto meshes = reader.load_meshes();
    const RunOverview o = survey_run(reader, meshes, false);
    EXPECT_TRUE(o.first_owners.empty());
    RenderOptions opt;
    // Worker colours of a single-machine run: an error, not a picture in body colours.
    opt.colour = ColourMode::Worker;
    EXPECT_TRUE(test::contains(test::error_of([&] { OutputRenderer(reader, meshes, opt, o); }),
                               "/frames.jsonl: --color worker needs a distributed run"));
    // A run without per-body contact counts (written before stats.body_contacts existed):
    // body colours with a note.
    opt.colour = ColourMode::Contacts;
    EXPECT_TRUE(test::contains(OutputRenderer(reader, meshes, opt, o).colour_note(),
                               "stats.body_contacts"));
    EXPECT_TRUE(test::contains(test::error_of([] { parse_colour_mode("rainbow"); }),
                               "--color: expected body"));
    EXPECT_EQ(parse_colour_mode("speed"), ColourMode::Speed);
}

/// Adds what `concord run --workers 2` writes to frames 1.. of a hand-made run: body b owned by
/// worker owners(k)[b] in frame k; frame 0 keeps default stats, as in a real run.
void make_distributed(const test::HandMadeOutput& out,
                      const std::function<std::vector<int>(int)>& owners) {
    const std::string path = out.str() + "/frames.jsonl";
    std::ifstream in(path);
    std::string line, text;
    for (int k = 0; std::getline(in, line); ++k) {
        nlohmann::json j = nlohmann::json::parse(line);
        if (k > 0) {
            j["stats"]["admm_iterations"] = 3;
            j["stats"]["workers"] = 2;
            j["stats"]["owners"] = owners(k);
            j["stats"]["planes"] = {{1.0}, nlohmann::json::array(), nlohmann::json::array()};
            j["stats"]["overlap_width"] = 0.1;
        }
        text += j.dump() + "\n";
    }
    in.close();
    test::write_file(path, text);
}

TEST(OutputRenderer, WorkerColoursFollowTheOwnersOfTheFrame) {
    test::HandMadeOutput out("render_workers", 3, 3, true);
    // Body 0 moves from worker 0 to worker 1 in frame 2; body 2 is static (-1).
    make_distributed(out, [](int k) { return std::vector<int>{k < 2 ? 0 : 1, 1, -1}; });
    OutputReader reader(out.str());
    auto meshes = reader.load_meshes();
    const RunOverview o = survey_run(reader, meshes, false);
    EXPECT_EQ(o.first_owners, std::vector<int>({0, 1, -1}));
    RenderOptions opt;
    opt.width = 160;
    opt.height = 90;
    opt.supersample = 1;
    opt.planes = false;
    opt.colour = ColourMode::Worker;
    OutputRenderer renderer(reader, meshes, opt, o);
    EXPECT_TRUE(renderer.colour_note().empty());
    std::vector<Image> images;
    for_each_selected_frame(reader, parse_frame_selection("0:2", "--frames"),
                            [&](const FrameRecord& r) { images.push_back(renderer.render(r)); });
    ASSERT_EQ(images.size(), 3u);
    const Rgb blue = worker_colour(0), orange = worker_colour(1), grey = worker_colour(-1);
    // Frame 0 (default stats) shows frame 1's owners: worker 0 (blue) and 1 (orange), static grey.
    for (int f : {0, 1}) {
        EXPECT_GT(share_of(images[f], blue), 100) << f;
        EXPECT_GT(share_of(images[f], orange), 30) << f;
        EXPECT_GT(share_of(images[f], grey), 100) << f;
    }
    // In frame 2 body 0 belongs to worker 1: no blue is left.
    EXPECT_EQ(share_of(images[2], blue), 0);
    EXPECT_GT(share_of(images[2], orange), share_of(images[1], orange) + 100);
    // No body colour is drawn in worker mode.
    EXPECT_EQ(share_of(images[1], body_colour(0)), 0);

    // A frame whose owners do not match the bodies is named.
    make_distributed(out, [](int k) {
        return k < 2 ? std::vector<int>{0, 1, -1} : std::vector<int>{0};
    });
    OutputReader bad_reader(out.str());
    const RunOverview bad = survey_run(bad_reader, meshes, false);
    OutputRenderer bad_renderer(bad_reader, meshes, opt, bad);
    EXPECT_TRUE(test::contains(test::error_of([&] {
                                   for_each_selected_frame(
                                       bad_reader, single_frame(2),
                                       [&](const FrameRecord& r) { bad_renderer.render(r); });
                               }),
                               "frame 2: stats.owners has 1 entries, expected 3"));
}

/// Sets stats.body_contacts of frame k to counts(k) (nothing when it returns an empty list).
void set_body_contacts(const test::HandMadeOutput& out,
                       const std::function<std::vector<int>(int)>& counts) {
    const std::string path = out.str() + "/frames.jsonl";
    std::ifstream in(path);
    std::string line, text;
    for (int k = 0; std::getline(in, line); ++k) {
        nlohmann::json j = nlohmann::json::parse(line);
        if (const std::vector<int> c = counts(k); !c.empty()) j["stats"]["body_contacts"] = c;
        text += j.dump() + "\n";
    }
    in.close();
    test::write_file(path, text);
}

TEST(OutputRenderer, ContactColoursFollowTheCountsOfTheFrame) {
    test::HandMadeOutput out("render_contacts", 3, 3, true);
    // Frame 1: body 0 has the run's largest count (4), body 1 none, the static body 2 has 2.
    // Frame 2 has no key (a frame of an older writer): every body shows zero.
    set_body_contacts(out, [](int k) {
        return k == 1   ? std::vector<int>{4, 0, 2}
               : k == 0 ? std::vector<int>{0, 0, 0}
                        : std::vector<int>{};
    });
    OutputReader reader(out.str());
    auto meshes = reader.load_meshes();
    const RunOverview o = survey_run(reader, meshes, false);
    EXPECT_TRUE(o.has_body_contacts);
    EXPECT_EQ(o.max_body_contacts, 4);
    RenderOptions opt;
    opt.width = 160;
    opt.height = 90;
    opt.supersample = 1;
    opt.planes = false;
    opt.colour = ColourMode::Contacts;
    OutputRenderer renderer(reader, meshes, opt, o);
    EXPECT_TRUE(renderer.colour_note().empty());
    std::vector<Image> images;
    for_each_selected_frame(reader, parse_frame_selection("0:2", "--frames"),
                            [&](const FrameRecord& r) { images.push_back(renderer.render(r)); });
    ASSERT_EQ(images.size(), 3u);
    const Rgb none = ramp_colour(0.0), half = ramp_colour(0.5), top = ramp_colour(1.0);
    EXPECT_GT(share_of(images[1], top), 100);
    EXPECT_GT(share_of(images[1], half), 50);
    EXPECT_GT(share_of(images[1], none), 30);
    for (int f : {0, 2}) {
        EXPECT_EQ(share_of(images[f], top), 0) << f;
        EXPECT_EQ(share_of(images[f], half), 0) << f;
        EXPECT_GT(share_of(images[f], none), share_of(images[1], none) + 100) << f;
    }

    // A frame whose counts do not match the bodies is named.
    set_body_contacts(out, [](int k) { return k == 2 ? std::vector<int>{1} : std::vector<int>{}; });
    OutputReader bad_reader(out.str());
    const RunOverview bad = survey_run(bad_reader, meshes, false);
    OutputRenderer bad_renderer(bad_reader, meshes, opt, bad);
    EXPECT_TRUE(test::contains(test::error_of([&] {
                                   for_each_selected_frame(
                                       bad_reader, single_frame(2),
                                       [&](const FrameRecord& r) { bad_renderer.render(r); });
                               }),
                               "frame 2: stats.body_contacts has 1 entries, expected 3"));
}

TEST(OutputRenderer, ExplicitCameraIsUsed) {
    test::HandMadeOutput out("render_camera", 1, 1);
    OutputReader reader(out.str());
    auto meshes = reader.load_meshes();
    const RunOverview o = survey_run(reader, meshes, false);
    RenderOptions opt;
    opt.camera = "0,10,0.001:0,0,0";
    OutputRenderer renderer(reader, meshes, opt, o);
    EXPECT_EQ(renderer.camera().eye, Vec3(0, 10, 0.001));
    opt.camera = "1,2";
    EXPECT_TRUE(test::contains(test::error_of([&] { OutputRenderer(reader, meshes, opt, o); }),
                               "--camera: "));
    opt.camera = "0,0,0:0,0,0";
    EXPECT_TRUE(test::contains(test::error_of([&] { OutputRenderer(reader, meshes, opt, o); }),
                               "the eye is at the target"));
}

TEST(Palette, MatchesTheViewerFormulas) {
    // Values printed by viewer/src/palette.js for the same inputs.
    const Rgb b0 = body_colour(0), b3 = body_colour(3);
    EXPECT_NEAR(b0[0], 0.7975, 1e-4);
    EXPECT_NEAR(b0[1], 0.3025, 1e-4);
    EXPECT_NEAR(b0[2], 0.3025, 1e-4);
    EXPECT_NEAR(b3[0], 0.7975, 1e-4);
    EXPECT_NEAR(b3[1], 0.3025, 1e-4);
    EXPECT_NEAR(b3[2], 0.73582, 1e-4);
    EXPECT_NEAR(ramp_colour(0.5)[1], 0.569, 1e-6);
    EXPECT_NEAR(ramp_colour(0.125)[0], (0.267 + 0.231) / 2, 1e-6);
    EXPECT_NEAR(ramp_colour(std::nan(""))[0], 0.267, 1e-6);
    EXPECT_NEAR(ramp_colour(7)[2], 0.145, 1e-6);
    EXPECT_NEAR(worker_colour(11)[0], worker_colour(1)[0], 0);
    EXPECT_NEAR(worker_colour(-1)[0], 0.3, 1e-6);
    EXPECT_NEAR(fluid_colour(0)[2], 0.80, 1e-6);
    EXPECT_NEAR(fluid_colour(0.5)[0], (0.16 + 0.82) / 2, 1e-6);
    EXPECT_NEAR(fluid_colour(std::nan(""))[1], 0.42, 1e-6);
    EXPECT_NEAR(fluid_colour(3)[1], 0.91, 1e-6);
}

TEST(FrameStatsChart, OnePointPerFrame) {
    test::HandMadeOutput out("stats_chart", 1, 7);
    OutputReader reader(out.str());
    const Chart c = frame_stats_chart(reader);
    ASSERT_EQ(c.panels.size(), 4u);
    EXPECT_EQ(c.panels[0].series[0].label, "contacts");
    EXPECT_EQ(c.panels[0].series[0].lines[0].size(), 7u);
    EXPECT_DOUBLE_EQ(c.panels[1].series[0].lines[0][4].y(), 3);  // 2 + 4 % 3
    EXPECT_TRUE(c.panels[3].log_y);
    EXPECT_TRUE(
        test::contains(chart_to_svg(c), "data-series=\"Newton iterations\" data-count=\"7\""));
}

}  // namespace
}  // namespace concord
