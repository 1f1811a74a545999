// A broad phase that answers many queries of nearby segments (the Newton iterations of one
// time step) from one cached query over an enlarged envelope.
#pragma once

#include <vector>

#include "concord/collision/broad_phase/broad_phase.hpp"

namespace concord {

/// Same results as BroadPhase::find (and find_candidates), bit for bit: when every vertex's
/// segment x0 -> x1 lies inside the envelope of the cached query, the candidates are the cached
/// ones whose swept boxes overlap (the swept boxes lie inside the envelope's, so no pair can be
/// missing, and the box test is the one the trees apply at their leaves); otherwise a new
/// envelope is queried: each vertex's segment grown by the largest displacement of its body's
/// vertices on it (at least dhat). Newton iterates move less and less, so most queries of a
/// solve are answered by a linear pass over the cached pairs instead of building two trees.
class EnvelopeBroadPhase {
  public:
    Candidates find(const CollisionMesh& mesh, const Vertices& x0, const Vertices& x1,
                    const BroadPhaseParams& params = {});
    /// Forget the cached envelope (e.g. when the mesh or the pair filter change).
    void reset() { valid_ = false; }
    /// Envelope queries made (for tests and statistics).
    int rebuilds() const { return rebuilds_; }

  private:
    BroadPhase broad_phase_;
    bool valid_ = false;
    const CollisionMesh* mesh_ = nullptr;
    double dhat_ = 0.0;
    BroadPhaseMethod method_ = BroadPhaseMethod::lbvh;
    Vertices lo_, hi_;
    Candidates cached_;
    std::vector<AABB> vertex_boxes_, edge_boxes_, face_boxes_;
    int rebuilds_ = 0;
};

}  // namespace concord
