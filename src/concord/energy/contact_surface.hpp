// The scene's collision surface together with the body-local coordinates of every vertex, so
// that world positions (x = p_b + A_b X) and the affine Jacobians of contact points are at hand.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "concord/body/affine_body.hpp"
#include "concord/collision/broad_phase/collision_mesh.hpp"

namespace concord {

/// The modal coordinates of one elastic body of a surface: where they are in the state vector
/// the surface is evaluated on, and the mode values at the body's vertices (shared, read-only).
struct SurfaceModes {
    int modal_offset = -1;
    int num_modes = 0;
    std::shared_ptr<const MatX> vertex_modes;  ///< 3 n_b x m, rows of the body's vertices
};

struct ContactSurface {
    CollisionMesh mesh;                 ///< global faces/edges with body ids
    Vertices rest;                      ///< body-local X of each global vertex
    std::vector<int> body_vertex_begin; ///< first global vertex of each body (size B + 1)
    /// Per body, empty when no body is elastic: x = p + A (X + Phi eta) for elastic bodies.
    std::vector<SurfaceModes> modes;

    int num_vertices() const { return static_cast<int>(rest.rows()); }
    int body_of_vertex(int v) const { return mesh.vertex_body[static_cast<std::size_t>(v)]; }
    bool has_elastic() const { return !modes.empty(); }
    /// The elastic description of body b, or null for an affine body.
    const SurfaceModes* elastic(int b) const {
        if (modes.empty()) return nullptr;
        const SurfaceModes& m = modes[static_cast<std::size_t>(b)];
        return m.num_modes > 0 ? &m : nullptr;
    }
    /// Phi (3 x m) of vertex v of elastic body b.
    auto vertex_phi(const SurfaceModes& m, int v) const {
        const int b = body_of_vertex(v);
        return m.vertex_modes->middleRows(3 * (v - body_vertex_begin[static_cast<std::size_t>(b)]), 3);
    }
    /// Body-local position of vertex v under q: X, or X + Phi eta on an elastic body.
    Vec3 local_position(const VecX& q, int v) const {
        const Vec3 X = rest.row(v).transpose();
        const SurfaceModes* m = elastic(body_of_vertex(v));
        if (m == nullptr) return X;
        return X + vertex_phi(*m, v) * q.segment(m->modal_offset, m->num_modes);
    }

    /// World position of global vertex v under state q (all bodies).
    Vec3 position(const VecX& q, int v) const {
        const int b = body_of_vertex(v);
        return affine_apply(q.segment<12>(12 * b), local_position(q, v));
    }
    /// World positions of every vertex (parallel over bodies).
    Vertices positions(const VecX& q) const;
    /// Per vertex, a bound on how far the vertex's path along the straight state segment
    /// q0 -> q1 strays from the chord between its end positions: the elastic map is bilinear
    /// in (A, eta), so x(t) = chord(t) - t (1 - t) dA Phi d_eta and the bound is
    /// |dA Phi d_eta| / 4 (zero on affine bodies). Empty when no body is elastic.
    VecX chord_deviation(const VecX& q0, const VecX& q1) const;
};

/// The surface of these bodies, in this order (body k of the surface is bodies[k]).
ContactSurface build_contact_surface(std::span<const AffineBody* const> bodies);
ContactSurface build_contact_surface(const std::vector<AffineBody>& bodies);

/// Fills s.modes for `bodies` (in surface order) with the modal coordinates of elastic body k
/// at modal_offsets[k] of the state vector (-1 for affine bodies); leaves s.modes empty when
/// no body is elastic.
void assign_surface_modes(ContactSurface& s, const std::vector<const AffineBody*>& bodies,
                          const std::vector<int>& modal_offsets);

}  // namespace concord
