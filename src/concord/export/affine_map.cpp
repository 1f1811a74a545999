#include "concord/export/affine_map.hpp"

#include <stdexcept>

namespace concord {

AffineMap affine_map_from_row(const VecX& row) {
    if (row.size() < 12)
        throw std::invalid_argument("affine_map_from_row: a row needs at least 12 coordinates");
    AffineMap m;
    m.p = row.head<3>();
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) m.A(r, c) = row[3 + 3 * r + c];
    return m;
}

Vertices world_vertices(const TriMesh& mesh, const AffineMap& map) {
    Vertices out(mesh.vertices.rows(), 3);
    for (Eigen::Index v = 0; v < mesh.vertices.rows(); ++v) {
        out.row(v) = map.apply(mesh.vertices.row(v).transpose()).transpose();
    }
    return out;
}

}  // namespace concord
