#include "concord/geometry/mesh_validation.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "concord/math/error.hpp"

namespace concord {

namespace {

constexpr std::size_t kExamplesPerKind = 5;

// Below this fraction of the bounding box's diagonal cubed, a closed mesh has no interior.
constexpr double kZeroVolumeRelative = 1e-12;

std::string to_text(double x) {
    std::ostringstream s;
    s.precision(6);
    s << x;
    return s.str();
}

std::string edge_text(int a, int b) {
    // Built by appending: GCC 12 warns falsely (-Wrestrict) about "(" + std::string.
    std::string s = "(";
    s += std::to_string(a);
    s += ", ";
    s += std::to_string(b);
    s += ')';
    return s;
}

// The first few findings of one kind and how many there were in all.
struct Findings {
    explicit Findings(std::string kind_plural) : plural(std::move(kind_plural)) {}

    std::string plural;  // e.g. "boundary edges", for "... and 12 more boundary edges"
    std::vector<std::string> examples;
    std::size_t count = 0;

    void add(std::string text) {
        if (examples.size() < kExamplesPerKind) examples.push_back(std::move(text));
        ++count;
    }
    bool empty() const { return count == 0; }
    void append_to(std::vector<std::string>& out) const {
        out.insert(out.end(), examples.begin(), examples.end());
        if (count > examples.size()) {
            out.push_back("... and " + std::to_string(count - examples.size()) + " more " + plural);
        }
    }
    // "first example (and 4 more)" for one-line error messages.
    std::string summary() const {
        std::string s = examples.empty() ? std::string() : examples.front();
        if (count > 1) s += " (and " + std::to_string(count - 1) + " more)";
        return s;
    }
};

struct Analysis {
    Findings invalid{"invalid elements"};
    Findings boundary{"boundary edges"};
    Findings non_manifold_edges{"non-manifold edges"};
    Findings non_manifold_vertices{"non-manifold vertices"};
    Findings misoriented{"inconsistently oriented edges"};
    Findings degenerate{"degenerate faces"};
    Findings duplicates{"duplicate faces"};
    Findings unreferenced{"unreferenced vertices"};
    double signed_volume = 0.0;
    double scale = 0.0;  // bounding-box diagonal
};

bool find_invalid_elements(const TriMesh& mesh, Analysis& a) {
    const int nv = mesh.num_vertices();
    if (mesh.num_faces() == 0) a.invalid.add("mesh has no faces");
    for (int v = 0; v < nv; ++v) {
        if (!mesh.vertices.row(v).allFinite()) {
            a.invalid.add("vertex " + std::to_string(v) + " has a non-finite coordinate");
        }
    }
    for (int f = 0; f < mesh.num_faces(); ++f) {
        for (int k = 0; k < 3; ++k) {
            const int v = mesh.faces(f, k);
            if (v < 0 || v >= nv) {
                a.invalid.add("face " + std::to_string(f) + " references vertex " +
                              std::to_string(v) + " but the mesh has " + std::to_string(nv) +
                              " vertices");
            }
        }
    }
    return !a.invalid.empty();
}

// Boundary, non-manifold and inconsistently oriented edges, from half-edges grouped by their
// undirected edge. Self-loops of faces that repeat a vertex are left to the degenerate check.
void examine_edges(const TriMesh& mesh, Analysis& a) {
    struct HalfEdge {
        int lo, hi, from, face;
        bool operator<(const HalfEdge& o) const {
            return std::tie(lo, hi, face, from) < std::tie(o.lo, o.hi, o.face, o.from);
        }
    };
    std::vector<HalfEdge> half_edges;
    half_edges.reserve(static_cast<std::size_t>(mesh.num_faces()) * 3);
    for (int f = 0; f < mesh.num_faces(); ++f) {
        for (int k = 0; k < 3; ++k) {
            const int from = mesh.faces(f, k), to = mesh.faces(f, (k + 1) % 3);
            if (from != to) half_edges.push_back({std::min(from, to), std::max(from, to), from, f});
        }
    }
    std::sort(half_edges.begin(), half_edges.end());
    for (std::size_t i = 0; i < half_edges.size();) {
        std::size_t j = i;
        while (j < half_edges.size() && half_edges[j].lo == half_edges[i].lo &&
               half_edges[j].hi == half_edges[i].hi) {
            ++j;
        }
        const HalfEdge& first = half_edges[i];
        const std::string edge = edge_text(first.lo, first.hi);
        const std::size_t faces = j - i;
        if (faces == 1) {
            a.boundary.add("boundary edge " + edge + " (only face " + std::to_string(first.face) +
                           ")");
        } else if (faces > 2) {
            a.non_manifold_edges.add("non-manifold edge " + edge + " shared by " +
                                     std::to_string(faces) + " faces");
        } else if (half_edges[i + 1].from == first.from) {
            a.misoriented.add("inconsistently oriented edge " + edge + ": faces " +
                              std::to_string(first.face) + " and " +
                              std::to_string(half_edges[i + 1].face) +
                              " traverse it in the same direction");
        }
        i = j;
    }
}

// A vertex is manifold when its faces form one fan: faces meeting at the vertex are linked when
// they share an edge through it, and all must end up linked together. Vertices on non-manifold
// edges are already reported through those edges.
void examine_vertices(const TriMesh& mesh, Analysis& a) {
    const int nv = mesh.num_vertices();
    // (vertex, other vertex of an edge through it, face) for both edges of each face corner.
    std::vector<std::array<int, 3>> spokes;
    spokes.reserve(static_cast<std::size_t>(mesh.num_faces()) * 6);
    std::vector<bool> used(static_cast<std::size_t>(nv), false);
    for (int f = 0; f < mesh.num_faces(); ++f) {
        const int v[3] = {mesh.faces(f, 0), mesh.faces(f, 1), mesh.faces(f, 2)};
        if (v[0] == v[1] || v[1] == v[2] || v[2] == v[0]) {
            for (int k = 0; k < 3; ++k) used[v[k]] = true;
            continue;
        }
        for (int k = 0; k < 3; ++k) {
            used[v[k]] = true;
            spokes.push_back({v[k], v[(k + 1) % 3], f});
            spokes.push_back({v[k], v[(k + 2) % 3], f});
        }
    }
    for (int v = 0; v < nv; ++v) {
        if (!used[v])
            a.unreferenced.add("vertex " + std::to_string(v) + " is not used by any face");
    }
    std::sort(spokes.begin(), spokes.end());

    std::vector<int> faces, parent;
    for (std::size_t i = 0; i < spokes.size();) {
        std::size_t end = i;
        while (end < spokes.size() && spokes[end][0] == spokes[i][0]) ++end;
        // Local union-find over the faces around this vertex.
        faces.clear();
        for (std::size_t s = i; s < end; ++s) faces.push_back(spokes[s][2]);
        std::sort(faces.begin(), faces.end());
        faces.erase(std::unique(faces.begin(), faces.end()), faces.end());
        parent.resize(faces.size());
        std::iota(parent.begin(), parent.end(), 0);
        auto local = [&faces](int f) {
            return static_cast<int>(std::lower_bound(faces.begin(), faces.end(), f) -
                                    faces.begin());
        };
        auto root = [&parent](int x) {
            while (parent[x] != x) x = parent[x] = parent[parent[x]];
            return x;
        };
        // Spokes to the same other vertex are one edge; its faces belong to one fan.
        bool on_non_manifold_edge = false;
        std::size_t faces_on_edge = 1;
        for (std::size_t s = i + 1; s < end; ++s) {
            if (spokes[s][1] == spokes[s - 1][1]) {
                parent[root(local(spokes[s][2]))] = root(local(spokes[s - 1][2]));
                if (++faces_on_edge > 2) on_non_manifold_edge = true;
            } else {
                faces_on_edge = 1;
            }
        }
        if (!on_non_manifold_edge) {
            int fans = 0;
            for (std::size_t k = 0; k < faces.size(); ++k) {
                if (root(static_cast<int>(k)) == static_cast<int>(k)) ++fans;
            }
            if (fans > 1) {
                a.non_manifold_vertices.add("non-manifold vertex " + std::to_string(spokes[i][0]) +
                                            ": its faces form " + std::to_string(fans) +
                                            " separate fans");
            }
        }
        i = end;
    }
}

void examine_faces(const TriMesh& mesh, Analysis& a) {
    const double area_threshold = kDegenerateFaceRelativeArea * a.scale * a.scale;
    std::vector<std::pair<std::array<int, 3>, int>> sorted_faces;
    sorted_faces.reserve(static_cast<std::size_t>(mesh.num_faces()));
    for (int f = 0; f < mesh.num_faces(); ++f) {
        std::array<int, 3> v = {mesh.faces(f, 0), mesh.faces(f, 1), mesh.faces(f, 2)};
        const std::string face = "degenerate face " + std::to_string(f) + " (vertices " +
                                 std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " +
                                 std::to_string(v[2]) + ")";
        if (v[0] == v[1] || v[1] == v[2] || v[2] == v[0]) {
            a.degenerate.add(face + ": repeated vertex");
            continue;
        }
        const Vec3 p0 = mesh.vertices.row(v[0]), p1 = mesh.vertices.row(v[1]),
                   p2 = mesh.vertices.row(v[2]);
        const double twice_area = (p1 - p0).cross(p2 - p0).norm();
        if (twice_area <= area_threshold) {
            a.degenerate.add(face + ": area " + to_text(0.5 * twice_area));
        }
        std::sort(v.begin(), v.end());
        sorted_faces.emplace_back(v, f);
    }
    std::sort(sorted_faces.begin(), sorted_faces.end());
    for (std::size_t i = 1; i < sorted_faces.size(); ++i) {
        if (sorted_faces[i].first == sorted_faces[i - 1].first) {
            const auto& v = sorted_faces[i].first;
            a.duplicates.add("duplicate faces " + std::to_string(sorted_faces[i - 1].second) +
                             " and " + std::to_string(sorted_faces[i].second) + " (vertices " +
                             std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " +
                             std::to_string(v[2]) + ")");
        }
    }
}

// Sum of signed tetrahedra against the bounding-box centre rather than the origin, so a mesh far
// from the origin does not lose digits to cancellation.
double signed_volume(const TriMesh& mesh, const Vec3& reference) {
    double six_volume = 0.0;
    for (int f = 0; f < mesh.num_faces(); ++f) {
        const Vec3 a = mesh.vertices.row(mesh.faces(f, 0)).transpose() - reference;
        const Vec3 b = mesh.vertices.row(mesh.faces(f, 1)).transpose() - reference;
        const Vec3 c = mesh.vertices.row(mesh.faces(f, 2)).transpose() - reference;
        six_volume += a.dot(b.cross(c));
    }
    return six_volume / 6.0;
}

Analysis analyze(const TriMesh& mesh) {
    Analysis a;
    if (find_invalid_elements(mesh, a)) return a;
    const AABB bounds = mesh.bounds();
    a.scale = bounds.diagonal();
    examine_edges(mesh, a);
    examine_vertices(mesh, a);
    examine_faces(mesh, a);
    a.signed_volume = signed_volume(mesh, bounds.center());
    return a;
}

bool encloses_no_volume(const Analysis& a) {
    return std::abs(a.signed_volume) <= kZeroVolumeRelative * a.scale * a.scale * a.scale;
}

}  // namespace

MeshReport validate_mesh(const TriMesh& mesh) {
    const Analysis a = analyze(mesh);
    MeshReport report;
    if (!a.invalid.empty()) {
        a.invalid.append_to(report.problems);
        return report;
    }
    report.closed = a.boundary.empty();
    report.manifold = a.non_manifold_edges.empty() && a.non_manifold_vertices.empty();
    report.consistently_oriented = a.misoriented.empty();
    report.has_degenerate_faces = !a.degenerate.empty();
    report.has_duplicate_faces = !a.duplicates.empty();
    report.signed_volume = a.signed_volume;
    report.outward = a.signed_volume > 0.0;
    for (const Findings* kind : {&a.boundary, &a.non_manifold_edges, &a.non_manifold_vertices,
                                 &a.misoriented, &a.degenerate, &a.duplicates}) {
        kind->append_to(report.problems);
    }
    if (report.closed && report.consistently_oriented) {
        if (encloses_no_volume(a)) {
            report.problems.push_back("mesh encloses no volume (signed volume " +
                                      to_text(a.signed_volume) + ")");
        } else if (a.signed_volume < 0.0) {
            report.problems.push_back("mesh is inside out (signed volume " +
                                      to_text(a.signed_volume) + " < 0)");
        }
    }
    a.unreferenced.append_to(report.warnings);
    return report;
}

void require_closed_oriented(const TriMesh& mesh, const std::string& name) {
    const Analysis a = analyze(mesh);
    auto fail = [&name](const std::string& what) { throw InputError(name + ": " + what); };
    if (!a.invalid.empty()) fail(a.invalid.summary());
    if (!a.boundary.empty()) fail("mesh is not closed: " + a.boundary.summary());
    if (!a.non_manifold_edges.empty())
        fail("mesh is not manifold: " + a.non_manifold_edges.summary());
    if (!a.non_manifold_vertices.empty()) {
        fail("mesh is not manifold: " + a.non_manifold_vertices.summary());
    }
    if (!a.misoriented.empty())
        fail("mesh is not consistently oriented: " + a.misoriented.summary());
    if (encloses_no_volume(a)) {
        fail("mesh encloses no volume (signed volume " + to_text(a.signed_volume) + ")");
    }
    if (a.signed_volume < 0.0) {
        fail("mesh is inside out: signed volume " + to_text(a.signed_volume) +
             " < 0 (faces are oriented inward)");
    }
}

}  // namespace concord
