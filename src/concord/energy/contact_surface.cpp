#include "concord/energy/contact_surface.hpp"

#include <tbb/parallel_for.h>

namespace concord {

ContactSurface build_contact_surface(const std::vector<AffineBody>& bodies) {
    ContactSurface s;
    int total = 0;
    s.body_vertex_begin.reserve(bodies.size() + 1);
    for (const auto& b : bodies) {
        s.body_vertex_begin.push_back(total);
        total += b.mesh.num_vertices();
    }
    s.body_vertex_begin.push_back(total);
    s.rest.resize(total, 3);
    for (std::size_t b = 0; b < bodies.size(); ++b) {
        const TriMesh& m = bodies[b].mesh;
        s.rest.middleRows(s.body_vertex_begin[b], m.num_vertices()) = m.vertices;
        append_body(s.mesh, static_cast<int>(b), m.num_vertices(), m.faces, m.edges);
    }
    return s;
}

Vertices ContactSurface::positions(const VecX& q) const {
    Vertices x(rest.rows(), 3);
    const int num_bodies = static_cast<int>(body_vertex_begin.size()) - 1;
    tbb::parallel_for(0, num_bodies, [&](int b) {
        const Vec12 qb = q.segment<12>(12 * b);
        const Vec3 p = affine_translation(qb);
        const Mat3 A = affine_matrix(qb);
        for (int v = body_vertex_begin[b]; v < body_vertex_begin[b + 1]; ++v)
            x.row(v) = (p + A * rest.row(v).transpose()).transpose();
    });
    return x;
}

}  // namespace concord
