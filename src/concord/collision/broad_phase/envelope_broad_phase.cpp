#include "concord/collision/broad_phase/envelope_broad_phase.hpp"

#include <tbb/parallel_invoke.h>

#include <algorithm>

#include "concord/collision/broad_phase/swept_boxes.hpp"

namespace concord {

Candidates EnvelopeBroadPhase::find(const CollisionMesh& mesh, const Vertices& x0,
                                    const Vertices& x1, const BroadPhaseParams& params) {
    validate_broad_phase_input(mesh, x0, x1, params.dhat);
    const bool same_query = valid_ && mesh_ == &mesh && dhat_ == params.dhat &&
                            method_ == params.method && lo_.rows() == x0.rows();
    const bool inside = same_query && (x0.array() >= lo_.array()).all() &&
                        (x1.array() >= lo_.array()).all() && (x0.array() <= hi_.array()).all() &&
                        (x1.array() <= hi_.array()).all();
    if (!inside) {
        // Per body: the largest displacement of its vertices on this segment, at least dhat.
        int num_bodies = 0;
        for (int b : mesh.vertex_body) num_bodies = std::max(num_bodies, b + 1);
        std::vector<double> margin(static_cast<std::size_t>(num_bodies), params.dhat);
        for (Eigen::Index v = 0; v < x0.rows(); ++v) {
            double& m = margin[static_cast<std::size_t>(mesh.vertex_body[static_cast<std::size_t>(v)])];
            m = std::max(m, (x1.row(v) - x0.row(v)).norm());
        }
        lo_ = x0.cwiseMin(x1);
        hi_ = x0.cwiseMax(x1);
        for (Eigen::Index v = 0; v < x0.rows(); ++v) {
            const double m = margin[static_cast<std::size_t>(mesh.vertex_body[static_cast<std::size_t>(v)])];
            lo_.row(v).array() -= m;
            hi_.row(v).array() += m;
        }
        cached_ = broad_phase_.find(mesh, lo_, hi_, params);
        valid_ = true;
        mesh_ = &mesh;
        dhat_ = params.dhat;
        method_ = params.method;
        ++rebuilds_;
    }
    // The cached pairs whose boxes over this segment overlap, in the cached (sorted) order.
    const double inflation = 0.5 * params.dhat;
    tbb::parallel_invoke([&] { swept_vertex_boxes(x0, x1, inflation, vertex_boxes_); },
                         [&] { swept_edge_boxes(mesh.edges, x0, x1, inflation, edge_boxes_); },
                         [&] { swept_face_boxes(mesh.faces, x0, x1, inflation, face_boxes_); });
    Candidates out;
    for (const PointTriangleCandidate& c : cached_.point_triangle)
        if (vertex_boxes_[static_cast<std::size_t>(c.vertex)].overlaps(
                face_boxes_[static_cast<std::size_t>(c.face)]))
            out.point_triangle.push_back(c);
    for (const EdgeEdgeCandidate& c : cached_.edge_edge)
        if (edge_boxes_[static_cast<std::size_t>(c.edge_a)].overlaps(
                edge_boxes_[static_cast<std::size_t>(c.edge_b)]))
            out.edge_edge.push_back(c);
    return out;
}

}  // namespace concord
