// Checks that a triangle mesh bounds a solid: closed, manifold, oriented, non-degenerate.
#pragma once

#include <string>
#include <vector>

#include "concord/geometry/mesh.hpp"

namespace concord {

/// Relative area below which a face counts as degenerate: |(b - a) x (c - a)| <= this times the
/// square of the mesh's bounding-box diagonal. Rounding alone leaves collinear points with about
/// 1e-16 of it; faces at the threshold have edges around 1e-7 of the mesh size.
inline constexpr double kDegenerateFaceRelativeArea = 1e-14;

/// What validate_mesh found. Each flag is about the whole mesh; `problems` lists the offending
/// elements, at most a few of each kind followed by a count of the rest. All vertex and face
/// numbers are 0-based indices into the mesh.
struct MeshReport {
    bool closed = false;                 ///< no boundary edge (an edge with a single face)
    bool manifold = false;               ///< no edge with more than two faces, no bow-tie vertex
    bool consistently_oriented = false;  ///< every two-face edge is traversed once each way
    bool has_degenerate_faces = false;   ///< repeated vertex or zero area (see threshold above)
    bool has_duplicate_faces = false;    ///< two faces on the same three vertices
    bool outward = false;                ///< signed volume > 0 (faces counter-clockwise outside)
    double signed_volume = 0.0;          ///< meaningful when closed and consistently oriented
    std::vector<std::string> problems;   ///< e.g. "boundary edge (3, 7)"
    std::vector<std::string> warnings;   ///< harmless findings, e.g. unreferenced vertices

    /// A mesh that can be used as a solid for mass properties and contact.
    bool ok() const {
        return closed && manifold && consistently_oriented && outward && !has_degenerate_faces &&
               !has_duplicate_faces;
    }
};

/// Examines the faces and vertices only (the mesh's connectivity arrays may be stale). Faces
/// with indices outside [0, V) or non-finite vertices stop the examination: the report then
/// has every flag false and names the first such element.
MeshReport validate_mesh(const TriMesh& mesh);

/// Throws InputError "NAME: mesh is not closed: boundary edge (3, 7) (and 5 more)" and likewise
/// for a non-manifold or inconsistently oriented mesh, an inside-out mesh (negative signed
/// volume) or one that encloses no volume. Degenerate and duplicate faces are not checked here.
void require_closed_oriented(const TriMesh& mesh, const std::string& name);

}  // namespace concord
