// The scene's collision surface together with the body-local coordinates of every vertex, so
// that world positions (x = p_b + A_b X) and the affine Jacobians of contact points are at hand.
#pragma once

#include <vector>

#include "concord/body/affine_body.hpp"
#include "concord/collision/broad_phase/collision_mesh.hpp"

namespace concord {

struct ContactSurface {
    CollisionMesh mesh;                 ///< global faces/edges with body ids
    Vertices rest;                      ///< body-local X of each global vertex
    std::vector<int> body_vertex_begin; ///< first global vertex of each body (size B + 1)

    int num_vertices() const { return static_cast<int>(rest.rows()); }
    int body_of_vertex(int v) const { return mesh.vertex_body[static_cast<std::size_t>(v)]; }

    /// World position of global vertex v under state q (all bodies).
    Vec3 position(const VecX& q, int v) const {
        const int b = body_of_vertex(v);
        return affine_apply(q.segment<12>(12 * b), rest.row(v).transpose());
    }
    /// World positions of every vertex (parallel over bodies).
    Vertices positions(const VecX& q) const;
};

ContactSurface build_contact_surface(const std::vector<AffineBody>& bodies);

}  // namespace concord
