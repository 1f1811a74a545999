// Where particles start and where boundary samples sit: lattices filling a box or a closed mesh,
// samples on a surface mesh, and the point-in-closed-mesh test the fluid's checks use.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "concord/geometry/aabb.hpp"
#include "concord/geometry/mesh.hpp"
#include "concord/math/types.hpp"

namespace concord {

/// The lattice of spacing s inside the box [lo, hi]: points lo + (k + 1/2) s for k = 0 .. n - 1
/// on each axis, n = floor((hi - lo) / s) (so every point is at least s / 2 inside the box).
std::vector<Vec3> box_lattice(const Vec3& lo, const Vec3& hi, double spacing);
/// The number of points box_lattice would return (0 for an empty box), without making them.
std::int64_t box_lattice_count(const Vec3& lo, const Vec3& hi, double spacing);

/// The points of box_lattice(mesh.bounds(), spacing) inside the closed mesh.
std::vector<Vec3> mesh_lattice(const TriMesh& mesh, double spacing);

/// The points farther than `clearance` from every obstacle point (order kept).
std::vector<Vec3> points_clear_of(const std::vector<Vec3>& points,
                                  const std::vector<Vec3>& obstacles, double clearance);

/// Samples on the surface at most `spacing` apart: every vertex, points along every edge, and a
/// barycentric grid inside every face (no point repeated along a shared edge), each moved
/// `depth` inwards along the surface normal there (a face's; an edge's two faces' mean; a
/// vertex's area-weighted mean). The mesh must be oriented outwards for depth != 0.
std::vector<Vec3> sample_surface(const TriMesh& mesh, double spacing, double depth = 0.0);

/// Whether x lies inside the closed, consistently oriented mesh (ray parity along a fixed
/// direction that no axis-aligned or diagonal feature contains). Points on the surface may go
/// either way.
bool point_in_closed_mesh(const TriMesh& mesh, const Vec3& x);

/// point_in_closed_mesh answered mostly without rays: a grid over the mesh's bounds (at most
/// `max_cells` cells along the longest side) whose cells that no face's bounding box touches
/// lie wholly on one side of the surface and are classified once, one ray per connected region
/// of them; a point in a cell some face's box touches casts its ray as before. The answers are
/// point_in_closed_mesh's. Holds no reference to the mesh: pass the one it was built from.
class MeshInside {
  public:
    MeshInside() = default;
    explicit MeshInside(const TriMesh& mesh, int max_cells = 32);
    bool contains(const TriMesh& mesh, const Vec3& x) const;
    const AABB& bounds() const { return bounds_; }

  private:
    AABB bounds_;
    Vec3 cell_ = Vec3::Ones();
    std::array<int, 3> n_{0, 0, 0};
    std::vector<std::uint8_t> state_;  ///< per cell: 0 near the surface, 1 outside, 2 inside
};

/// The point of triangle (a, b, c) closest to x (Voronoi regions of its vertices, edges and
/// face).
Vec3 closest_point_on_triangle(const Vec3& x, const Vec3& a, const Vec3& b, const Vec3& c);

/// The point of the mesh's surface closest to x (every face tried).
Vec3 closest_point_on_mesh(const TriMesh& mesh, const Vec3& x);

}  // namespace concord
