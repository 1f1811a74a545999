// Helpers shared by the geometry tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>

#include "concord/geometry/mesh.hpp"
#include "concord/math/error.hpp"
#include "concord/math/types.hpp"

namespace concord::test {

inline std::string mesh_data_path(const std::string& name) {
    return std::string(CONCORD_SOURCE_DIR) + "/tests/data/meshes/" + name;
}

/// Writes `contents` to a fresh file in the test's temporary directory and returns its path.
inline std::string write_temp_file(const std::string& name, const std::string& contents) {
    const std::filesystem::path dir =
        std::filesystem::path(::testing::TempDir()) / "concord_geometry_tests";
    std::filesystem::create_directories(dir);
    const std::string path = (dir / name).string();
    std::ofstream(path, std::ios::binary | std::ios::trunc) << contents;
    return path;
}

/// Passes when `action` throws InputError whose message contains `expected`.
inline ::testing::AssertionResult throws_input_error(const std::function<void()>& action,
                                                     const std::string& expected) {
    try {
        action();
    } catch (const InputError& e) {
        const std::string what = e.what();
        if (what.find(expected) != std::string::npos) return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure()
               << "InputError \"" << what << "\" does not contain \"" << expected << "\"";
    } catch (const std::exception& e) {
        return ::testing::AssertionFailure() << "threw a non-InputError: " << e.what();
    }
    return ::testing::AssertionFailure() << "did not throw (expected \"" << expected << "\")";
}

inline Mat3 random_rotation(std::mt19937& rng) {
    std::normal_distribution<double> n(0.0, 1.0);
    return Eigen::Quaterniond(n(rng), n(rng), n(rng), n(rng)).normalized().toRotationMatrix();
}

/// x -> R x + t applied to every vertex, connectivity rebuilt.
inline TriMesh transformed(const TriMesh& mesh, const Mat3& R, const Vec3& t) {
    Vertices v = mesh.vertices;
    for (Eigen::Index i = 0; i < v.rows(); ++i)
        v.row(i) = (R * v.row(i).transpose() + t).transpose();
    return make_mesh(std::move(v), mesh.faces);
}

}  // namespace concord::test
