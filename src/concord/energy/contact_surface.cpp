#include "concord/energy/contact_surface.hpp"

#include <tbb/parallel_for.h>

namespace concord {

ContactSurface build_contact_surface(std::span<const AffineBody* const> bodies) {
    ContactSurface s;
    int total = 0;
    s.body_vertex_begin.reserve(bodies.size() + 1);
    std::vector<const TriMesh*> meshes;
    meshes.reserve(bodies.size());
    for (const AffineBody* b : bodies) {
        s.body_vertex_begin.push_back(total);
        total += b->mesh().num_vertices();
        meshes.push_back(&b->mesh());
    }
    s.body_vertex_begin.push_back(total);
    s.rest.resize(total, 3);
    for (std::size_t b = 0; b < bodies.size(); ++b)
        s.rest.middleRows(s.body_vertex_begin[b], bodies[b]->mesh().num_vertices()) =
            bodies[b]->mesh().vertices;
    append_bodies(s.mesh, 0, meshes);
    return s;
}

ContactSurface build_contact_surface(const std::vector<AffineBody>& bodies) {
    std::vector<const AffineBody*> ptrs;
    ptrs.reserve(bodies.size());
    for (const AffineBody& b : bodies) ptrs.push_back(&b);
    return build_contact_surface(ptrs);
}

Vertices ContactSurface::positions(const VecX& q) const {
    Vertices x(rest.rows(), 3);
    const int num_bodies = static_cast<int>(body_vertex_begin.size()) - 1;
    tbb::parallel_for(0, num_bodies, [&](int b) {
        const Vec12 qb = q.segment<12>(12 * b);
        const Vec3 p = affine_translation(qb);
        const Mat3 A = affine_matrix(qb);
        if (const SurfaceModes* m = elastic(b)) {
            const VecX eta = q.segment(m->modal_offset, m->num_modes);
            const VecX u = *m->vertex_modes * eta;  // Phi eta for every vertex, stacked
            const int v0 = body_vertex_begin[b];
            for (int v = v0; v < body_vertex_begin[b + 1]; ++v)
                x.row(v) = (p + A * (rest.row(v).transpose() + u.segment<3>(3 * (v - v0))))
                               .transpose();
            return;
        }
        for (int v = body_vertex_begin[b]; v < body_vertex_begin[b + 1]; ++v)
            x.row(v) = (p + A * rest.row(v).transpose()).transpose();
    });
    return x;
}

VecX ContactSurface::chord_deviation(const VecX& q0, const VecX& q1) const {
    if (!has_elastic()) return {};
    VecX dev = VecX::Zero(rest.rows());
    const int num_bodies = static_cast<int>(body_vertex_begin.size()) - 1;
    for (int b = 0; b < num_bodies; ++b) {
        const SurfaceModes* m = elastic(b);
        if (m == nullptr) continue;
        const Mat3 dA = affine_matrix(q1.segment<12>(12 * b)) - affine_matrix(q0.segment<12>(12 * b));
        const VecX deta = q1.segment(m->modal_offset, m->num_modes) -
                          q0.segment(m->modal_offset, m->num_modes);
        const VecX u = *m->vertex_modes * deta;
        const int v0 = body_vertex_begin[static_cast<std::size_t>(b)];
        // 1% on top of the exact bound for the rounding of these few products.
        for (int v = v0; v < body_vertex_begin[static_cast<std::size_t>(b) + 1]; ++v)
            dev[v] = 0.2525 * (dA * u.segment<3>(3 * (v - v0))).norm();
    }
    return dev;
}

void assign_surface_modes(ContactSurface& s, const std::vector<const AffineBody*>& bodies,
                          const std::vector<int>& modal_offsets) {
    s.modes.clear();
    bool any = false;
    for (const AffineBody* b : bodies) any = any || (b->modal && b->modal->num_modes > 0);
    if (!any) return;
    s.modes.resize(bodies.size());
    for (std::size_t k = 0; k < bodies.size(); ++k) {
        const AffineBody& b = *bodies[k];
        if (!b.modal || b.modal->num_modes == 0) continue;
        s.modes[k].modal_offset = modal_offsets[k];
        s.modes[k].num_modes = b.modal->num_modes;
        s.modes[k].vertex_modes = b.modal->vertex_modes;
    }
}

}  // namespace concord
