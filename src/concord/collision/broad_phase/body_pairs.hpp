// Which bodies may touch during a step, without listing the primitive pairs that say so.
//
// An island search needs the pairs of bodies with at least one contact candidate, not the
// candidates: in a dense pile the candidates over a step's motion bounds run to hundreds of
// thousands (a tree over every primitive, built and queried each step), the body pairs to a
// few per body. This finds the body pairs from the bodies' boxes and then, per pair, only looks
// for one overlapping pair of primitive boxes near the other body, stopping at the first.
#pragma once

#include <utility>
#include <vector>

#include "concord/collision/broad_phase/body_parts.hpp"
#include "concord/collision/broad_phase/broad_phase.hpp"

namespace concord {

/// A mesh's vertices, edges and faces listed body by body: what interacting_body_pairs needs
/// of the mesh besides positions, built once for a mesh that is searched every step.
struct MeshByBody {
    int num_bodies = 0;
    PrimitivesByBody vertices, edges, faces;
    MeshByBody() = default;
    explicit MeshByBody(const CollisionMesh& mesh);
};

/// The pairs (a, b), a < b, sorted and unique, of different bodies between which
/// find_candidates(mesh, x0, x1, params) reports at least one candidate; exactly that set, on
/// any number of threads. Throws InputError on the inputs find_candidates refuses.
std::vector<std::pair<int, int>> interacting_body_pairs(const CollisionMesh& mesh,
                                                        const Vertices& x0, const Vertices& x1,
                                                        const BroadPhaseParams& params = {});
/// The same with the mesh's primitives by body given (`by_body` must be MeshByBody(mesh)).
std::vector<std::pair<int, int>> interacting_body_pairs(const CollisionMesh& mesh,
                                                        const MeshByBody& by_body,
                                                        const Vertices& x0, const Vertices& x1,
                                                        const BroadPhaseParams& params = {});

}  // namespace concord
