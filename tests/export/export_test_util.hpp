// Hand-made output directories for the export, render and plot tests.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "concord/math/types.hpp"
#include "io/io_test_util.hpp"

namespace concord::test {

/// A unit cube's OBJ text (8 vertices, 12 triangles), centred at the origin, side `s`.
inline std::string cube_obj(double s = 1.0) {
    const double h = s / 2;
    std::string out;
    for (int i = 0; i < 8; ++i) {
        out += "v " + std::to_string(i & 1 ? h : -h) + " " + std::to_string(i & 2 ? h : -h) + " " +
               std::to_string(i & 4 ? h : -h) + "\n";
    }
    out +=
        "f 1 3 4\nf 1 4 2\nf 5 6 8\nf 5 8 7\nf 1 2 6\nf 1 6 5\nf 3 7 8\nf 3 8 4\nf 1 5 7\nf 1 7 3\n"
        "f 2 4 8\nf 2 8 6\n";
    return out;
}

/// Round-trip decimal text of a double.
inline std::string exact(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", x);
    return buf;
}

/// One body's row: p then A row-major.
inline std::string q_row(const Vec3& p, const Mat3& A) {
    std::string out = "[";
    for (int k = 0; k < 3; ++k) out += exact(p[k]) + ",";
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) out += exact(A(r, c)) + (r == 2 && c == 2 ? "]" : ",");
    return out;
}

inline Mat3 rotation_y(double angle) {
    return Eigen::AngleAxisd(angle, Vec3::UnitY()).toRotationMatrix();
}

/// An output directory with `bodies` cubes (the last one static when `with_static`) and
/// `frames` frames: body b starts at (2b, 1, 0), falls 0.1 per frame and turns about y.
struct HandMadeOutput {
    ScratchDir dir;
    int bodies;
    int frames;

    static Vec3 position(int b, int k) { return Vec3(2.0 * b, 1.0 - 0.1 * k, 0.0); }
    static Mat3 orientation(int b, int k) { return rotation_y(0.2 * k * (b + 1)); }

    HandMadeOutput(const std::string& name, int num_bodies, int num_frames,
                   bool with_static = false, double dt = 0.01)
        : dir(name), bodies(num_bodies), frames(num_frames) {
        std::filesystem::create_directories(dir.path() / "meshes");
        write_file(
            dir.file("scene.json"),
            R"({"name": "hand-made", "gravity": [0, -9.81, 0], "planes": [{"point": [0, 0, 0], "normal": [0, 1, 0]}]})");
        // Built with += only: GCC 12 warns falsely (-Wrestrict) on long chains of operator+.
        std::string list = "[";
        for (int b = 0; b < bodies; ++b) {
            const std::string n = "cube" + std::to_string(b);
            write_file(dir.file("meshes/" + n + ".obj"), cube_obj(b == 1 ? 0.5 : 1.0));
            const bool is_static = with_static && b == bodies - 1;
            if (b) list += ",";
            list += R"({"name": ")";
            list += n;
            list += R"(", "mesh": "meshes/)";
            list += n;
            list += R"(.obj", "motion": ")";
            list += is_static ? "static" : "dynamic";
            list += "\"}";
        }
        write_file(dir.file("bodies.json"), list + "]");
        std::string lines;
        for (int k = 0; k < frames; ++k) {
            lines += R"({"frame": )";
            lines += std::to_string(k);
            lines += R"(, "time": )";
            lines += exact(k * dt);
            lines += R"(, "q": [)";
            for (int b = 0; b < bodies; ++b) {
                const bool is_static = with_static && b == bodies - 1;
                if (b) lines += ",";
                lines += q_row(position(b, is_static ? 0 : k), orientation(b, is_static ? 0 : k));
            }
            lines += R"(], "stats": {"newton_iterations": )";
            lines += std::to_string(2 + k % 3);
            lines += R"(, "contacts": )";
            lines += std::to_string(k % 2);
            lines +=
                R"(, "candidates": 4, "min_distance": 0.001, "t_coll": 0.001, "t_solve": 0.002, "t_frame": 0.004}})";
            lines += "\n";
        }
        write_file(dir.file("frames.jsonl"), lines);
    }

    std::string str() const { return dir.str(); }
};

}  // namespace concord::test
