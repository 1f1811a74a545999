// Random multi-body scenes for broad-phase tests.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

#include "concord/collision/broad_phase/collision_mesh.hpp"
#include "concord/math/types.hpp"

namespace concord::test {

/// A collision mesh with positions at the start and end of a step.
struct Scene {
    CollisionMesh mesh;
    Vertices x0, x1;
};

struct RandomSceneOptions {
    int min_bodies = 1;
    int max_bodies = 6;
    int max_vertices_per_body = 12;
    double world_size = 2.0;    ///< body centres are uniform in [0, world_size]^3
    double spread_scale = 1.0;  ///< scales the spread of a body's vertices around its centre
};

/// Bodies of random triangle soups: some tiny or collapsed to a point (zero-size boxes), some
/// with positions snapped to a coarse lattice (equal Morton codes, boxes that exactly touch),
/// some with degenerate faces; each static, translating, or moving every vertex on its own.
inline Scene random_scene(std::mt19937& rng, const RandomSceneOptions& options = {}) {
    std::uniform_int_distribution<int> num_bodies_dist(options.min_bodies, options.max_bodies);
    std::uniform_int_distribution<int> num_vertices_dist(0, options.max_vertices_per_body);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::normal_distribution<double> normal(0.0, 1.0);
    auto random_vec = [&] { return Vec3(normal(rng), normal(rng), normal(rng)); };

    Scene scene;
    std::vector<Vec3> start, end;
    const int num_bodies = num_bodies_dist(rng);
    for (int body = 0; body < num_bodies; ++body) {
        const int nv = num_vertices_dist(rng);
        const Vec3 centre = options.world_size * Vec3(unit(rng), unit(rng), unit(rng));
        const double spread =
            options.spread_scale * std::array<double, 4>{0.0, 0.01, 0.3, 1.0}[rng() % 4];
        const bool snapped = rng() % 4 == 0;
        const int motion = static_cast<int>(rng() % 3);  // 0 static, 1 translate, 2 per vertex
        const Vec3 translation = 0.3 * random_vec();
        for (int v = 0; v < nv; ++v) {
            Vec3 p = centre + spread * random_vec();
            if (snapped) p = (p * 4.0).array().round() / 4.0;
            Vec3 q = p;
            if (motion == 1) q = p + translation;
            if (motion == 2) q = p + 0.2 * random_vec();
            start.push_back(p);
            end.push_back(q);
        }
        Faces faces(0, 3);
        if (nv > 0) {
            std::uniform_int_distribution<int> local(0, nv - 1);
            const int nf = static_cast<int>(rng() % static_cast<unsigned>(2 * nv + 1));
            faces.resize(nf, 3);
            for (int f = 0; f < nf; ++f) {
                faces(f, 0) = local(rng);
                faces(f, 1) = local(rng);
                faces(f, 2) = rng() % 8 == 0 ? faces(f, 1) : local(rng);
            }
        }
        append_body(scene.mesh, body, nv, faces);
    }
    const int n = static_cast<int>(start.size());
    scene.x0.resize(n, 3);
    scene.x1.resize(n, 3);
    for (int v = 0; v < n; ++v) {
        scene.x0.row(v) = start[static_cast<std::size_t>(v)];
        scene.x1.row(v) = end[static_cast<std::size_t>(v)];
    }
    return scene;
}

/// Number of bodies of a scene's mesh (one more than the largest body of a vertex).
inline int num_bodies(const Scene& s) {
    int n = 0;
    for (int b : s.mesh.vertex_body) n = std::max(n, b + 1);
    return n;
}

/// Many small bodies (a few thousand faces in all), large enough that parallel loops split.
inline Scene large_random_scene(std::mt19937& rng, int num_bodies) {
    return random_scene(rng, {.min_bodies = num_bodies,
                              .max_bodies = num_bodies,
                              .max_vertices_per_body = 40,
                              .world_size = 0.5 * std::cbrt(static_cast<double>(num_bodies)),
                              .spread_scale = 0.1});
}

}  // namespace concord::test
