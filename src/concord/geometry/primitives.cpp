#include "concord/geometry/primitives.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <numbers>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "concord/math/error.hpp"

namespace concord {

namespace {

// Caps that keep a typo from allocating gigabytes; far beyond what contact can afford anyway.
constexpr int kMaxSegments = 1 << 16;
constexpr int kMaxSubdivisions = 8;

std::string to_text(double x) {
    std::ostringstream s;
    s.precision(17);
    s << x;
    return s.str();
}

void require_positive(double value, const char* primitive, const char* parameter) {
    if (!(value > 0.0) || !std::isfinite(value)) {
        throw InputError(std::string(primitive) + ": " + parameter +
                         " must be positive and finite, got " + to_text(value));
    }
}

void require_positive(const Vec3& value, const char* primitive, const char* parameter) {
    if (!(value.array() > 0.0).all() || !value.allFinite()) {
        throw InputError(std::string(primitive) + ": " + parameter +
                         " must be positive and finite in x, y and z, got (" + to_text(value.x()) +
                         ", " + to_text(value.y()) + ", " + to_text(value.z()) + ")");
    }
}

void require_count(int value, int minimum, int maximum, const char* primitive,
                   const char* parameter) {
    if (value < minimum || value > maximum) {
        throw InputError(std::string(primitive) + ": " + parameter + " must be in [" +
                         std::to_string(minimum) + ", " + std::to_string(maximum) + "], got " +
                         std::to_string(value));
    }
}

// Collects vertices and triangles, then hands them to make_mesh.
class MeshBuilder {
  public:
    int add_vertex(const Vec3& p) {
        points_.push_back(p);
        return static_cast<int>(points_.size()) - 1;
    }
    void add_triangle(int a, int b, int c) { triangles_.push_back({a, b, c}); }
    /// Quad a-b-c-d counter-clockwise seen from outside, split along a-c.
    void add_quad(int a, int b, int c, int d) {
        add_triangle(a, b, c);
        add_triangle(a, c, d);
    }
    TriMesh build() const {
        Vertices v(static_cast<Eigen::Index>(points_.size()), 3);
        for (std::size_t i = 0; i < points_.size(); ++i) {
            v.row(static_cast<Eigen::Index>(i)) = points_[i].transpose();
        }
        Faces f(static_cast<Eigen::Index>(triangles_.size()), 3);
        for (std::size_t i = 0; i < triangles_.size(); ++i) {
            for (int k = 0; k < 3; ++k) f(static_cast<Eigen::Index>(i), k) = triangles_[i][k];
        }
        return make_mesh(std::move(v), std::move(f));
    }
    const Vec3& point(int i) const { return points_[static_cast<std::size_t>(i)]; }

  private:
    std::vector<Vec3> points_;
    std::vector<std::array<int, 3>> triangles_;
};

// A point of a profile curve in the half plane (r >= 0, y) that is swept around the y axis.
struct ProfilePoint {
    double r, y;
};

// Sweeps a profile around the y axis in `segments` steps. The profile must run counter-clockwise
// around the cross-section it bounds (solid on its left in the (r, y) plane): then the swept
// faces face outward. An open profile starts and ends on the axis (r == 0), where the ring
// collapses to a single pole vertex; a closed profile (closed_loop) stays off the axis and its
// last point connects back to the first.
TriMesh revolve(const std::vector<ProfilePoint>& profile, int segments, bool closed_loop) {
    MeshBuilder mesh;
    const std::size_t n = profile.size();
    std::vector<int> first_vertex(n);
    std::vector<bool> pole(n);
    for (std::size_t k = 0; k < n; ++k) {
        pole[k] = profile[k].r == 0.0;
        if (pole[k]) {
            first_vertex[k] = mesh.add_vertex(Vec3(0.0, profile[k].y, 0.0));
            continue;
        }
        for (int i = 0; i < segments; ++i) {
            // Angle increases from +x towards +z, so the sweep direction at angle 0 is +z.
            const double angle = 2.0 * std::numbers::pi * i / segments;
            const int v = mesh.add_vertex(
                Vec3(profile[k].r * std::cos(angle), profile[k].y, profile[k].r * std::sin(angle)));
            if (i == 0) first_vertex[k] = v;
        }
    }
    auto ring = [&](std::size_t k, int i) {
        return pole[k] ? first_vertex[k] : first_vertex[k] + (i % segments);
    };
    const std::size_t bands = closed_loop ? n : n - 1;
    for (std::size_t k = 0; k < bands; ++k) {
        const std::size_t next = (k + 1) % n;
        for (int i = 0; i < segments; ++i) {
            if (pole[k]) {
                mesh.add_triangle(ring(k, i), ring(next, i), ring(next, i + 1));
            } else if (pole[next]) {
                mesh.add_triangle(ring(k, i), ring(next, i), ring(k, i + 1));
            } else {
                mesh.add_quad(ring(k, i), ring(next, i), ring(next, i + 1), ring(k, i + 1));
            }
        }
    }
    return mesh.build();
}

}  // namespace

TriMesh box(const Vec3& size) {
    require_positive(size, "box", "size");
    const Vec3 half = 0.5 * size;
    MeshBuilder mesh;
    // Vertex i has x, y, z at the upper end where bits 0, 1, 2 of i are set.
    for (int i = 0; i < 8; ++i) {
        mesh.add_vertex(Vec3((i & 1) ? half.x() : -half.x(), (i & 2) ? half.y() : -half.y(),
                             (i & 4) ? half.z() : -half.z()));
    }
    mesh.add_quad(0, 4, 6, 2);  // -x
    mesh.add_quad(1, 3, 7, 5);  // +x
    mesh.add_quad(0, 1, 5, 4);  // -y
    mesh.add_quad(2, 6, 7, 3);  // +y
    mesh.add_quad(0, 2, 3, 1);  // -z
    mesh.add_quad(4, 5, 7, 6);  // +z
    return mesh.build();
}

TriMesh box(const Vec3& size, const Eigen::Vector3i& divisions) {
    require_positive(size, "box", "size");
    for (int a = 0; a < 3; ++a) require_count(divisions[a], 1, 1024, "box", "divisions");
    if (divisions == Eigen::Vector3i::Ones()) return box(size);
    const Vec3 half = 0.5 * size;
    const Eigen::Vector3i& n = divisions;
    MeshBuilder mesh;
    // One vertex per surface grid point, shared by the faces that meet at it.
    std::vector<int> id(static_cast<std::size_t>((n[0] + 1) * (n[1] + 1) * (n[2] + 1)), -1);
    auto vertex = [&](const Eigen::Vector3i& g) {
        int& v = id[static_cast<std::size_t>(g[0] + (n[0] + 1) * (g[1] + (n[1] + 1) * g[2]))];
        if (v < 0) {
            Vec3 p;
            for (int a = 0; a < 3; ++a) p[a] = -half[a] + size[a] * g[a] / n[a];
            v = mesh.add_vertex(p);
        }
        return v;
    };
    // Face normal to axis a at its low or high end; (u, v, a) right-handed, so (u, v) quads
    // are counter-clockwise seen from +a and reversed on the low face.
    for (int a = 0; a < 3; ++a) {
        const int u = (a + 1) % 3, w = (a + 2) % 3;
        for (int side = 0; side < 2; ++side)
            for (int i = 0; i < n[u]; ++i)
                for (int j = 0; j < n[w]; ++j) {
                    Eigen::Vector3i g;
                    g[a] = side * n[a];
                    auto at = [&](int di, int dj) {
                        g[u] = i + di;
                        g[w] = j + dj;
                        return vertex(g);
                    };
                    const int c0 = at(0, 0), c1 = at(1, 0), c2 = at(1, 1), c3 = at(0, 1);
                    if (side == 1)
                        mesh.add_quad(c0, c1, c2, c3);
                    else
                        mesh.add_quad(c0, c3, c2, c1);
                }
    }
    return mesh.build();
}

TriMesh icosphere(double radius, int subdivisions) {
    require_positive(radius, "icosphere", "radius");
    require_count(subdivisions, 0, kMaxSubdivisions, "icosphere", "subdivisions");

    const double phi = std::numbers::phi;
    std::vector<Vec3> points = {{-1, phi, 0}, {1, phi, 0}, {-1, -phi, 0}, {1, -phi, 0},
                                {0, -1, phi}, {0, 1, phi}, {0, -1, -phi}, {0, 1, -phi},
                                {phi, 0, -1}, {phi, 0, 1}, {-phi, 0, -1}, {-phi, 0, 1}};
    for (Vec3& p : points) p.normalize();
    std::vector<std::array<int, 3>> triangles = {
        {0, 11, 5},  {0, 5, 1},  {0, 1, 7},  {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
        {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
        {3, 8, 9},   {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};

    for (int level = 0; level < subdivisions; ++level) {
        // Each edge gets one midpoint, shared by the two triangles on either side.
        std::map<std::pair<int, int>, int> midpoint_of;
        auto midpoint = [&](int a, int b) {
            const std::pair<int, int> key(std::min(a, b), std::max(a, b));
            const auto [it, inserted] = midpoint_of.try_emplace(key, 0);
            if (inserted) {
                points.push_back((points[a] + points[b]).normalized());
                it->second = static_cast<int>(points.size()) - 1;
            }
            return it->second;
        };
        std::vector<std::array<int, 3>> finer;
        finer.reserve(triangles.size() * 4);
        for (const auto& [a, b, c] : triangles) {
            const int ab = midpoint(a, b), bc = midpoint(b, c), ca = midpoint(c, a);
            finer.push_back({a, ab, ca});
            finer.push_back({ab, b, bc});
            finer.push_back({ca, bc, c});
            finer.push_back({ab, bc, ca});
        }
        triangles = std::move(finer);
    }

    MeshBuilder mesh;
    for (const Vec3& p : points) mesh.add_vertex(radius * p);
    for (const auto& [a, b, c] : triangles) {
        // The base icosahedron's faces are listed without regard to orientation; a convex
        // polyhedron around the origin faces outward exactly when each normal points away from
        // the origin, and subdivision keeps the orientation of the parent face.
        const Vec3 normal = (points[b] - points[a]).cross(points[c] - points[a]);
        if (normal.dot(points[a] + points[b] + points[c]) > 0.0) {
            mesh.add_triangle(a, b, c);
        } else {
            mesh.add_triangle(a, c, b);
        }
    }
    return mesh.build();
}

TriMesh cylinder(double radius, double height, int segments) {
    require_positive(radius, "cylinder", "radius");
    require_positive(height, "cylinder", "height");
    require_count(segments, 3, kMaxSegments, "cylinder", "segments");
    const double h = 0.5 * height;
    return revolve({{0.0, -h}, {radius, -h}, {radius, h}, {0.0, h}}, segments, false);
}

TriMesh capsule(double radius, double cylinder_height, int segments, int rings) {
    require_positive(radius, "capsule", "radius");
    require_positive(cylinder_height, "capsule", "cylinder_height");
    require_count(segments, 3, kMaxSegments, "capsule", "segments");
    require_count(rings, 1, kMaxSegments, "capsule", "rings");
    const double h = 0.5 * cylinder_height;
    std::vector<ProfilePoint> profile;
    profile.push_back({0.0, -h - radius});
    // Bottom hemisphere from the pole up to the equator, then the top one down from its
    // equator to the pole; the two equators bound the cylindrical band.
    for (int k = 1; k <= rings; ++k) {
        const double polar = 0.5 * std::numbers::pi * k / rings;
        profile.push_back({radius * std::sin(polar), -h - radius * std::cos(polar)});
    }
    for (int k = rings; k >= 1; --k) {
        const double polar = 0.5 * std::numbers::pi * k / rings;
        profile.push_back({radius * std::sin(polar), h + radius * std::cos(polar)});
    }
    profile.push_back({0.0, h + radius});
    // sin(pi/2) is exactly 1 and cos(pi/2) a few 1e-17, so both equator rings sit on the
    // cylinder; nothing coincides because cylinder_height > 0.
    return revolve(profile, segments, false);
}

TriMesh torus(double major, double minor, int major_segments, int minor_segments) {
    require_positive(major, "torus", "major");
    require_positive(minor, "torus", "minor");
    if (!(minor < major)) {
        throw InputError("torus: minor radius " + to_text(minor) +
                         " must be smaller than major radius " + to_text(major));
    }
    require_count(major_segments, 3, kMaxSegments, "torus", "major_segments");
    require_count(minor_segments, 3, kMaxSegments, "torus", "minor_segments");
    std::vector<ProfilePoint> profile;
    for (int k = 0; k < minor_segments; ++k) {
        const double angle = 2.0 * std::numbers::pi * k / minor_segments;
        profile.push_back({major + minor * std::cos(angle), minor * std::sin(angle)});
    }
    return revolve(profile, major_segments, true);
}

TriMesh open_box_container(const Vec3& inner_size, double wall_thickness) {
    require_positive(inner_size, "open_box_container", "inner_size");
    require_positive(wall_thickness, "open_box_container", "wall_thickness");
    const double t = wall_thickness;
    const double outer_x = 0.5 * inner_size.x() + t, outer_z = 0.5 * inner_size.z() + t;
    const double inner_x = 0.5 * inner_size.x(), inner_z = 0.5 * inner_size.z();
    const double top = 0.5 * (inner_size.y() + t), bottom = -top, floor = bottom + t;

    MeshBuilder mesh;
    // Four corners of a rectangle at height y, counter-clockwise seen from below (-y).
    auto rectangle = [&mesh](double half_x, double y, double half_z) {
        const int first = mesh.add_vertex(Vec3(-half_x, y, -half_z));
        mesh.add_vertex(Vec3(half_x, y, -half_z));
        mesh.add_vertex(Vec3(half_x, y, half_z));
        mesh.add_vertex(Vec3(-half_x, y, half_z));
        return first;
    };
    const int outer_bottom = rectangle(outer_x, bottom, outer_z);
    const int outer_top = rectangle(outer_x, top, outer_z);
    const int inner_top = rectangle(inner_x, top, inner_z);
    const int inner_floor = rectangle(inner_x, floor, inner_z);

    mesh.add_quad(outer_bottom, outer_bottom + 1, outer_bottom + 2, outer_bottom + 3);
    for (int j = 0; j < 4; ++j) {
        const int n = (j + 1) % 4;
        mesh.add_quad(outer_bottom + j, outer_top + j, outer_top + n, outer_bottom + n);
        mesh.add_quad(outer_top + j, inner_top + j, inner_top + n, outer_top + n);  // rim
        mesh.add_quad(inner_top + j, inner_floor + j, inner_floor + n, inner_top + n);
    }
    mesh.add_quad(inner_floor, inner_floor + 3, inner_floor + 2, inner_floor + 1);
    return mesh.build();
}

TriMesh funnel(double top_radius, double bottom_radius, double height, double wall_thickness,
               int segments) {
    require_positive(top_radius, "funnel", "top_radius");
    require_positive(bottom_radius, "funnel", "bottom_radius");
    require_positive(height, "funnel", "height");
    require_positive(wall_thickness, "funnel", "wall_thickness");
    require_count(segments, 3, kMaxSegments, "funnel", "segments");
    // A horizontal shift d moves a line of slope s = dr/dy by d / sqrt(1 + s^2) along its
    // normal, so this shift gives the requested perpendicular thickness.
    const double slope = (top_radius - bottom_radius) / height;
    const double shift = wall_thickness * std::sqrt(1.0 + slope * slope);
    const double h = 0.5 * height;
    // The wall's cross-section, counter-clockwise: along the bottom rim outward, up the outer
    // surface, along the top rim inward, down the inner surface.
    return revolve({{bottom_radius, -h},
                    {bottom_radius + shift, -h},
                    {top_radius + shift, h},
                    {top_radius, h}},
                   segments, true);
}

}  // namespace concord
