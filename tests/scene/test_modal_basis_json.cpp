// Modal bases as the scene file gives them (scene/modal_basis_json.hpp): every generator from
// JSON, data files, damping, and errors that name the key path.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>

#include "concord/math/error.hpp"
#include "concord/scene/modal_basis_json.hpp"

using namespace concord;
using nlohmann::json;

namespace {

ModalBasis from(const json& j, const std::string& base_dir = "") {
    return modal_basis_from_json(JsonNode(j, "scene.json", "modal_bases.b"), base_dir);
}

std::string error_of(const json& j) {
    try {
        from(j);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

// A 3 x 3 x 3 grid of points in the unit cube and a quadratic (non-affine) field on it.
json grid_points() {
    json p = json::array();
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 3; ++k) p.push_back({0.5 * i, 0.5 * j, 0.5 * k});
    return p;
}

json quadratic_field(const json& points) {
    json f = json::array();
    for (const auto& p : points) {
        const double x = p[0].get<double>();
        f.push_back(0.0);
        f.push_back(x * x);
        f.push_back(0.0);
    }
    return f;
}

}  // namespace

TEST(ModalBasisJson, BeamWithDamping) {
    const ModalBasis b = from({{"type", "beam"},
                               {"length", 2.0},
                               {"bending_y_modes", 2},
                               {"torsion_modes", 1},
                               {"damping", {{"ratio", 0.1}}}});
    ASSERT_EQ(b.num_modes, 3);
    // Mass-normalised modes: C = diag(2 zeta omega) with omega^2 = K.
    for (int k = 0; k < 3; ++k)
        EXPECT_NEAR(b.modal_damping(k, k), 0.2 * std::sqrt(b.modal_stiffness(k, k)),
                    1e-9 * b.modal_damping(k, k));
    const ModalBasis r = from({{"type", "beam"}, {"bending_y_modes", 1},
                               {"damping", {{"rayleigh", {0.5, 0.01}}}}});
    EXPECT_NEAR(r.modal_damping(0, 0), 0.5 + 0.01 * r.modal_stiffness(0, 0), 1e-9);
}

TEST(ModalBasisJson, SampledKeepsTheUsersStiffness) {
    const json pts = grid_points();
    const ModalBasis b = from({{"type", "sampled"},
                               {"points", pts},
                               {"modes", {quadratic_field(pts)}},
                               {"total_mass", 27.0},
                               {"stiffness", {100.0}}});
    ASSERT_EQ(b.num_modes, 1);
    EXPECT_DOUBLE_EQ(b.modal_stiffness(0, 0), 100.0);
    // The field is interpolated exactly at the sample points.
    const Vertices at = (Vertices(1, 3) << 1.0, 0.5, 0.5).finished();
    EXPECT_NEAR(b.sample(at)(1, 0), 1.0, 1e-12);
}

TEST(ModalBasisJson, PodFromSnapshots) {
    const json pts = grid_points();
    json masses = json::array();
    for (std::size_t i = 0; i < pts.size(); ++i) masses.push_back(1.0);
    const ModalBasis b = from({{"type", "pod"},
                               {"points", pts},
                               {"masses", masses},
                               {"snapshots", {quadratic_field(pts)}},
                               {"num_modes", 1},
                               {"frequencies", {10.0}}});
    ASSERT_EQ(b.num_modes, 1);
    EXPECT_NEAR(b.modal_stiffness(0, 0), 100.0, 1e-9);
    EXPECT_NEAR(b.modal_mass(0, 0), 1.0, 1e-10);  // mass-normalised
}

TEST(ModalBasisJson, FemFromADataFile) {
    // Four unit masses on a line with springs k = 100 between them and to walls at both ends
    // (K = K1 (x) I3): lambda_j = 2 k (1 - cos(j pi / 5)), each three times.
    const int n = 4;
    json nodes = json::array(), mass = json::array(), stiffness = json::array();
    for (int i = 0; i < n; ++i) nodes.push_back({0.1 * i, 0.0, 0.0});
    for (int r = 0; r < 3 * n; ++r) {
        json mrow = json::array(), krow = json::array();
        for (int c = 0; c < 3 * n; ++c) {
            mrow.push_back(r == c ? 1.0 : 0.0);
            const int i = r / 3, j = c / 3;
            double k = 0.0;
            if (r % 3 == c % 3) k = i == j ? 200.0 : (std::abs(i - j) == 1 ? -100.0 : 0.0);
            krow.push_back(k);
        }
        mass.push_back(mrow);
        stiffness.push_back(krow);
    }
    const auto dir = std::filesystem::temp_directory_path() / ("concord_fem_json_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "chain.json") << json{{"nodes", nodes}, {"mass", mass}, {"stiffness", stiffness}}.dump();
    const ModalBasis b = from({{"type", "fem"}, {"file", "chain.json"}, {"num_modes", 3},
                               {"constrained", true}},
                              dir.string());
    std::filesystem::remove_all(dir);
    ASSERT_EQ(b.num_modes, 3);
    const double lambda1 = 200.0 * (1.0 - std::cos(std::numbers::pi / 5.0));
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(b.modal_stiffness(k, k), lambda1, 1e-9 * lambda1);
}

TEST(ModalBasisJson, ErrorsNameTheKeyPath) {
    EXPECT_NE(error_of({{"type", "spline"}}).find("modal_bases.b.type"), std::string::npos);
    EXPECT_NE(error_of({{"type", "beam"}, {"bending_y_modes", 1}, {"lenght", 1}})
                  .find("modal_bases.b.lenght"),
              std::string::npos);
    EXPECT_NE(error_of({{"type", "beam"}, {"bending_y_modes", 1}, {"density", -1}})
                  .find("modal_bases.b.density"),
              std::string::npos);
    const json pts = grid_points();
    EXPECT_NE(error_of({{"type", "sampled"}, {"points", pts}, {"modes", {{1.0, 2.0}}},
                        {"total_mass", 1.0}, {"stiffness", {1.0}}})
                  .find("modal_bases.b.modes[0]"),
              std::string::npos);
    EXPECT_NE(error_of({{"type", "beam"}, {"bending_y_modes", 2}, {"damping", {{"ratio", {0.1}}}}})
                  .find("modal_bases.b.damping.ratio"),
              std::string::npos);
    EXPECT_NE(error_of({{"type", "fem"}, {"file", "missing.json"}}).find("modal_bases.b.file"),
              std::string::npos);
    // A generator's own complaint (an affine mode) is prefixed by the entry's path.
    json affine = json::array();
    for (const auto& p : pts) {
        affine.push_back(p[1].get<double>());
        affine.push_back(0.0);
        affine.push_back(0.0);
    }
    EXPECT_NE(error_of({{"type", "sampled"}, {"points", pts}, {"modes", {affine}},
                        {"total_mass", 1.0}, {"stiffness", {1.0}}})
                  .find("modal_bases.b"),
              std::string::npos);
}
