#include "concord/fluid/fluid_sampling.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "concord/fluid/neighbor_grid.hpp"

namespace concord {

namespace {

Eigen::Array3i lattice_dims(const Vec3& lo, const Vec3& hi, double spacing) {
    Eigen::Array3i n;
    for (int a = 0; a < 3; ++a) {
        const double cells = (hi[a] - lo[a]) / spacing;
        n[a] = cells > 0 ? static_cast<int>(std::min(std::floor(cells + 1e-9), 2.0e9)) : 0;
    }
    return n;
}

}  // namespace

std::int64_t box_lattice_count(const Vec3& lo, const Vec3& hi, double spacing) {
    const Eigen::Array3i n = lattice_dims(lo, hi, spacing);
    return static_cast<std::int64_t>(n[0]) * n[1] * n[2];
}

std::vector<Vec3> box_lattice(const Vec3& lo, const Vec3& hi, double spacing) {
    const Eigen::Array3i n = lattice_dims(lo, hi, spacing);
    std::vector<Vec3> points;
    points.reserve(static_cast<std::size_t>(box_lattice_count(lo, hi, spacing)));
    for (int i = 0; i < n[0]; ++i)
        for (int j = 0; j < n[1]; ++j)
            for (int k = 0; k < n[2]; ++k)
                points.push_back(lo + spacing * Vec3(i + 0.5, j + 0.5, k + 0.5));
    return points;
}

std::vector<Vec3> mesh_lattice(const TriMesh& mesh, double spacing) {
    const AABB box = mesh.bounds();
    std::vector<Vec3> inside;
    for (const Vec3& x : box_lattice(box.min, box.max, spacing))
        if (point_in_closed_mesh(mesh, x)) inside.push_back(x);
    return inside;
}

std::vector<Vec3> points_clear_of(const std::vector<Vec3>& points,
                                  const std::vector<Vec3>& obstacles, double clearance) {
    if (obstacles.empty() || clearance <= 0.0) return points;
    NeighborGrid grid;
    grid.build(obstacles, clearance);
    std::vector<char> keep(points.size());
    tbb::parallel_for(std::size_t(0), points.size(), [&](std::size_t i) {
        keep[i] = grid.for_each_near(points[i], clearance, [](int) { return false; });
    });
    std::vector<Vec3> out;
    for (std::size_t i = 0; i < points.size(); ++i)
        if (keep[i]) out.push_back(points[i]);
    return out;
}

std::vector<Vec3> sample_surface(const TriMesh& mesh, double spacing, double depth) {
    std::vector<Vec3> out;
    const auto& V = mesh.vertices;
    auto corner = [&](int f, int k) -> Vec3 { return V.row(mesh.faces(f, k)).transpose(); };
    // Area-weighted face normals (twice the area), unit face normals.
    std::vector<Vec3> area_normal(static_cast<std::size_t>(mesh.num_faces()));
    for (int f = 0; f < mesh.num_faces(); ++f)
        area_normal[static_cast<std::size_t>(f)] =
            (corner(f, 1) - corner(f, 0)).cross(corner(f, 2) - corner(f, 0));
    auto unit = [](const Vec3& n) -> Vec3 {
        const double l = n.norm();
        return l > 0.0 ? Vec3(n / l) : Vec3::Zero();
    };
    auto inward = [&](const Vec3& x, const Vec3& normal) -> Vec3 {
        return x - depth * unit(normal);
    };
    for (int v = 0; v < mesh.num_vertices(); ++v) {
        Vec3 n = Vec3::Zero();
        for (int k = mesh.vertex_face_offsets[static_cast<std::size_t>(v)];
             k < mesh.vertex_face_offsets[static_cast<std::size_t>(v) + 1]; ++k)
            n += area_normal[static_cast<std::size_t>(
                mesh.vertex_faces[static_cast<std::size_t>(k)])];
        out.push_back(inward(V.row(v).transpose(), n));
    }
    for (int e = 0; e < mesh.num_edges(); ++e) {
        const Vec3 a = V.row(mesh.edges(e, 0)).transpose(), b = V.row(mesh.edges(e, 1)).transpose();
        Vec3 n = Vec3::Zero();
        for (int k = 0; k < 2; ++k)
            if (const int f = mesh.edge_faces(e, k); f >= 0)
                n += unit(area_normal[static_cast<std::size_t>(f)]);
        const int cuts = std::max(1, static_cast<int>(std::ceil((b - a).norm() / spacing)));
        for (int k = 1; k < cuts; ++k)
            out.push_back(inward(a + (b - a) * (static_cast<double>(k) / cuts), n));
    }
    for (int f = 0; f < mesh.num_faces(); ++f) {
        const Vec3 a = corner(f, 0), b = corner(f, 1), c = corner(f, 2);
        const Vec3& n = area_normal[static_cast<std::size_t>(f)];
        const double longest = std::max({(b - a).norm(), (c - b).norm(), (a - c).norm()});
        const int cuts = std::max(1, static_cast<int>(std::ceil(longest / spacing)));
        for (int i = 1; i < cuts; ++i)
            for (int j = 1; i + j < cuts; ++j) {
                const double u = static_cast<double>(i) / cuts, w = static_cast<double>(j) / cuts;
                out.push_back(inward(a + u * (b - a) + w * (c - a), n));
            }
    }
    return out;
}

namespace {

/// Ray parity of x against every face (no bounds check).
bool ray_parity_inside(const TriMesh& mesh, const Vec3& x) {
    // A direction with irrational-looking components: rays along it miss edges and vertices of
    // axis-aligned and diagonal geometry.
    const Vec3 dir = Vec3(0.5773502691896258, 0.5897270174934519, 0.5648544232911432).normalized();
    const auto& V = mesh.vertices;
    int crossings = 0;
    for (int f = 0; f < mesh.num_faces(); ++f) {
        const Vec3 a = V.row(mesh.faces(f, 0)).transpose(), b = V.row(mesh.faces(f, 1)).transpose(),
                   c = V.row(mesh.faces(f, 2)).transpose();
        // Moller-Trumbore.
        const Vec3 e1 = b - a, e2 = c - a;
        const Vec3 pv = dir.cross(e2);
        const double det = e1.dot(pv);
        if (std::abs(det) < 1e-300) continue;
        const double inv = 1.0 / det;
        const Vec3 tv = x - a;
        const double u = tv.dot(pv) * inv;
        if (u < 0.0 || u > 1.0) continue;
        const Vec3 qv = tv.cross(e1);
        const double w = dir.dot(qv) * inv;
        if (w < 0.0 || u + w > 1.0) continue;
        if (e2.dot(qv) * inv > 0.0) ++crossings;
    }
    return (crossings % 2) == 1;
}

}  // namespace

bool point_in_closed_mesh(const TriMesh& mesh, const Vec3& x) {
    const AABB box = mesh.bounds();
    if ((x.array() < box.min.array()).any() || (x.array() > box.max.array()).any()) return false;
    return ray_parity_inside(mesh, x);
}

MeshInside::MeshInside(const TriMesh& mesh, int max_cells) : bounds_(mesh.bounds()) {
    if (bounds_.empty()) return;
    const Vec3 extent = bounds_.max - bounds_.min;
    const double side = std::max(extent.maxCoeff(), 1e-300) / std::max(1, max_cells);
    for (int a = 0; a < 3; ++a) {
        n_[static_cast<std::size_t>(a)] =
            std::clamp(static_cast<int>(std::ceil(extent[a] / side)), 1, std::max(1, max_cells));
        cell_[a] = std::max(extent[a], 1e-300) / n_[static_cast<std::size_t>(a)];
    }
    const auto nx = static_cast<std::size_t>(n_[0]), ny = static_cast<std::size_t>(n_[1]),
               nz = static_cast<std::size_t>(n_[2]);
    auto at = [&](std::size_t i, std::size_t j, std::size_t k) { return (i * ny + j) * nz + k; };
    constexpr std::uint8_t kUnknown = 3;
    state_.assign(nx * ny * nz, kUnknown);
    // Cells a face's box touches (closed intervals, widened by a hair: conservative).
    const auto& V = mesh.vertices;
    for (int f = 0; f < mesh.num_faces(); ++f) {
        AABB fb;
        for (int c = 0; c < 3; ++c) fb.expand(Vec3(V.row(mesh.faces(f, c)).transpose()));
        std::array<std::size_t, 3> lo{}, hi{};
        for (int a = 0; a < 3; ++a) {
            const double pad = 1e-9 * cell_[a];
            const auto last = static_cast<double>(n_[static_cast<std::size_t>(a)] - 1);
            lo[static_cast<std::size_t>(a)] = static_cast<std::size_t>(
                std::clamp(std::floor((fb.min[a] - pad - bounds_.min[a]) / cell_[a]), 0.0, last));
            hi[static_cast<std::size_t>(a)] = static_cast<std::size_t>(
                std::clamp(std::floor((fb.max[a] + pad - bounds_.min[a]) / cell_[a]), 0.0, last));
        }
        for (std::size_t i = lo[0]; i <= hi[0]; ++i)
            for (std::size_t j = lo[1]; j <= hi[1]; ++j)
                for (std::size_t k = lo[2]; k <= hi[2]; ++k) state_[at(i, j, k)] = 0;
    }
    // Every connected region of untouched cells lies on one side: one ray from its first cell's
    // centre classifies all of it.
    std::vector<std::array<std::size_t, 3>> stack;
    for (std::size_t i = 0; i < nx; ++i)
        for (std::size_t j = 0; j < ny; ++j)
            for (std::size_t k = 0; k < nz; ++k) {
                if (state_[at(i, j, k)] != kUnknown) continue;
                const Vec3 centre = bounds_.min + cell_.cwiseProduct(Vec3(
                                                      static_cast<double>(i) + 0.5,
                                                      static_cast<double>(j) + 0.5,
                                                      static_cast<double>(k) + 0.5));
                const std::uint8_t region = ray_parity_inside(mesh, centre) ? 2 : 1;
                state_[at(i, j, k)] = region;
                stack.push_back({i, j, k});
                while (!stack.empty()) {
                    const auto c = stack.back();
                    stack.pop_back();
                    for (int a = 0; a < 3; ++a)
                        for (int d = -1; d <= 1; d += 2) {
                            auto nb = c;
                            const auto ia = static_cast<std::size_t>(a);
                            if ((d < 0 && nb[ia] == 0) ||
                                (d > 0 && nb[ia] + 1 >= static_cast<std::size_t>(n_[ia])))
                                continue;
                            nb[ia] = d < 0 ? nb[ia] - 1 : nb[ia] + 1;
                            std::uint8_t& st = state_[at(nb[0], nb[1], nb[2])];
                            if (st != kUnknown) continue;
                            st = region;
                            stack.push_back(nb);
                        }
                }
            }
}

bool MeshInside::contains(const TriMesh& mesh, const Vec3& x) const {
    if (state_.empty() || (x.array() < bounds_.min.array()).any() ||
        (x.array() > bounds_.max.array()).any())
        return false;
    std::array<std::size_t, 3> c{};
    for (int a = 0; a < 3; ++a)
        c[static_cast<std::size_t>(a)] = static_cast<std::size_t>(std::clamp(
            std::floor((x[a] - bounds_.min[a]) / cell_[a]), 0.0,
            static_cast<double>(n_[static_cast<std::size_t>(a)] - 1)));
    const std::uint8_t st =
        state_[(c[0] * static_cast<std::size_t>(n_[1]) + c[1]) * static_cast<std::size_t>(n_[2]) +
               c[2]];
    return st == 0 ? ray_parity_inside(mesh, x) : st == 2;
}

Vec3 closest_point_on_triangle(const Vec3& x, const Vec3& a, const Vec3& b, const Vec3& c) {
    // Ericson, Real-Time Collision Detection, 5.1.5: which region of the triangle x projects to.
    const Vec3 ab = b - a, ac = c - a, ax = x - a;
    const double d1 = ab.dot(ax), d2 = ac.dot(ax);
    if (d1 <= 0.0 && d2 <= 0.0) return a;
    const Vec3 bx = x - b;
    const double d3 = ab.dot(bx), d4 = ac.dot(bx);
    if (d3 >= 0.0 && d4 <= d3) return b;
    const double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) return a + (d1 / (d1 - d3)) * ab;
    const Vec3 cx = x - c;
    const double d5 = ab.dot(cx), d6 = ac.dot(cx);
    if (d6 >= 0.0 && d5 <= d6) return c;
    const double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) return a + (d2 / (d2 - d6)) * ac;
    const double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0)
        return b + ((d4 - d3) / ((d4 - d3) + (d5 - d6))) * (c - b);
    const double denom = 1.0 / (va + vb + vc);
    return a + ab * (vb * denom) + ac * (vc * denom);
}

Vec3 closest_point_on_mesh(const TriMesh& mesh, const Vec3& x) {
    const auto& V = mesh.vertices;
    Vec3 best = x;
    double best_d2 = std::numeric_limits<double>::infinity();
    for (int f = 0; f < mesh.num_faces(); ++f) {
        const Vec3 p = closest_point_on_triangle(x, V.row(mesh.faces(f, 0)).transpose(),
                                                 V.row(mesh.faces(f, 1)).transpose(),
                                                 V.row(mesh.faces(f, 2)).transpose());
        const double d2 = (p - x).squaredNorm();
        if (d2 < best_d2) {
            best_d2 = d2;
            best = p;
        }
    }
    return best;
}

}  // namespace concord
