// Closed triangle meshes of simple solids, for tests and example scenes.
#pragma once

#include "concord/geometry/mesh.hpp"
#include "concord/math/types.hpp"

namespace concord {

// Every primitive is closed, edge- and vertex-manifold, consistently oriented with outward
// normals (counter-clockwise seen from outside), free of degenerate faces, and has its
// connectivity built. Origins: box and container have their bounding-box centre at the origin;
// the icosphere its centre; solids of revolution have the y axis as their axis and extend
// equally above and below y = 0 (their bounding box is centred too when the segment count
// around the axis is even). Round shapes are polyhedra whose vertices lie on the ideal surface
// (inscribed), so their volume is slightly below the smooth one. Bad parameters (non-positive or
// non-finite sizes, too few segments) raise InputError naming the primitive and the parameter.

/// Axis-aligned box with edge lengths size: 8 vertices, 12 triangles.
TriMesh box(const Vec3& size);

/// Box whose faces are split into a grid of divisions[a] cells along each axis a (1..1024),
/// so it can bend smoothly when it is a reduced elastic body. All ones: box(size).
TriMesh box(const Vec3& size, const Eigen::Vector3i& divisions);

/// Sphere from a subdivided icosahedron: 10 * 4^s + 2 vertices, 20 * 4^s triangles, all vertices
/// at distance radius from the origin. 0 <= subdivisions <= 8.
TriMesh icosphere(double radius, int subdivisions);

/// Cylinder along y with height in y from -height/2 to height/2, an n-gon cross-section
/// (segments >= 3) and capped by triangle fans around a centre vertex on each cap.
TriMesh cylinder(double radius, double height, int segments);

/// Capsule along y: a cylinder of cylinder_height (> 0) between two hemispheres of radius, so
/// the total height is cylinder_height + 2 radius. segments >= 3 around the axis; rings >= 1
/// latitude bands per hemisphere.
TriMesh capsule(double radius, double cylinder_height, int segments, int rings);

/// Torus around the y axis: tube centre circle of radius major in the xz plane, tube radius
/// minor (0 < minor < major). major_segments, minor_segments >= 3.
TriMesh torus(double major, double minor, int major_segments, int minor_segments);

/// Open-top box container with y up: a solid with walls and floor of wall_thickness around a
/// cavity of inner_size (x, y, z), open at the top. Outer size is (ix + 2t, iy + t, iz + 2t);
/// the cavity floor is at y = -(iy + t)/2 + t and the rim at y = (iy + t)/2. 16 vertices,
/// 28 triangles (a sphere topologically).
TriMesh open_box_container(const Vec3& inner_size, double wall_thickness);

/// Funnel along y: a frustum-shaped shell open at both ends, with wall_thickness measured
/// perpendicular to the slanted wall. top_radius (at y = height/2) and bottom_radius (at
/// y = -height/2) are the radii of the inner surface; the outer surface lies wall_thickness
/// further out. Flat annular rims close the shell at both ends, so the mesh is a closed solid
/// of torus topology with 4 * segments vertices and 8 * segments triangles.
TriMesh funnel(double top_radius, double bottom_radius, double height, double wall_thickness,
               int segments);

}  // namespace concord
