// A broad phase that answers many queries of nearby segments (the Newton iterations of one
// time step) from one cached query over an enlarged envelope.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "concord/collision/broad_phase/broad_phase.hpp"

namespace concord {

/// Same results as BroadPhase::find (and find_candidates), bit for bit: when every vertex's
/// segment x0 -> x1 lies inside the envelope of the cached query, the candidates are the cached
/// ones whose swept boxes overlap (the swept boxes lie inside the envelope's, so no pair can be
/// missing, and the box test is the one the trees apply at their leaves). A body whose segment
/// leaves the envelope gets a new envelope (its segment grown by kMarginFactor times the
/// largest displacement of its vertices on it, at least dhat), and only the pairs involving
/// such bodies are queried again, against the others' unchanged envelopes: per pair of bodies
/// whose boxes overlap (one of them moved), the primitives of each that reach the other's box,
/// compared within the pairs of their parts (BodyParts) that overlap. That costs less than querying
/// everything afresh even when every body left (a pile's first Newton step of a time step),
/// so the whole envelope is queried again only for a new mesh or query, or a loose cache. Newton
/// iterates move less and less, and in a dense scene only a few bodies at a time leave their
/// envelopes, so most queries of a solve cost a linear pass over the cached pairs instead of
/// building two trees.
class EnvelopeBroadPhase {
  public:
    /// `ahead` (optional): where the segments of the next queries are expected to go from x0
    /// (a time step's predicted positions, asked for at its start). An envelope built by this
    /// query (afresh, or for the bodies that left theirs) then covers x0 -> ahead as well, so
    /// that the first long Newton step stays inside it instead of querying everything again.
    /// The answer is the same with or without it.
    Candidates find(const CollisionMesh& mesh, const Vertices& x0, const Vertices& x1,
                    const BroadPhaseParams& params = {}, const Vertices* ahead = nullptr);
    /// Forget the cached envelope (e.g. when the mesh or the pair filter change).
    void reset() { valid_ = false; }
    /// Seeds this cache, for `mesh`, from `donor`'s over `donor_mesh`, a mesh that holds some of
    /// the same bodies: body b of `mesh` is body donor_body[b] there (-1: not there). Such a
    /// body's envelope and the cached pairs among such bodies are taken over; the other bodies
    /// get an envelope at the next find, as bodies that left theirs do. Each taken body must have
    /// the same vertices, edges and faces in the same order in both meshes, each kind consecutive
    /// (as append_bodies lays a body out); a body whose counts differ is treated as new. The pair
    /// filter of later queries must agree with the donor's on the taken bodies. Answers stay those
    /// of a fresh query, bit for bit. Does nothing when the donor holds no cache or no body is
    /// taken over. For a system built afresh when its set of bodies changes (an island that merged,
    /// a worker's share after the planes moved), which otherwise queries every primitive again.
    ///
    /// `x` (optional): the positions of `mesh` where the next query starts. A body with a vertex
    /// outside its envelope there is not taken over.
    void adopt(const EnvelopeBroadPhase& donor, const CollisionMesh& donor_mesh,
               const CollisionMesh& mesh, std::span<const int> donor_body,
               const Vertices* x = nullptr);
    /// Whether the cache holds an envelope (one a new system can adopt).
    bool cached() const { return valid_; }
    /// Bodies taken over by the last adopt() (for tests and statistics).
    int adopted_bodies() const { return adopted_bodies_; }
    /// Envelope queries over every body (for tests and statistics).
    int rebuilds() const { return rebuilds_; }
    /// Envelope updates of only the bodies that left their envelopes.
    int partial_updates() const { return partial_updates_; }

    /// Margin of a body's envelope as a share of its largest vertex displacement on the
    /// segment: wider envelopes are left less often but hold many more pairs (long Newton
    /// steps in a dense pile), and leaving one costs only that body's update.
    static constexpr double kMarginFactor = 0.25;
    /// The whole envelope is also queried again when the cache holds more than this many
    /// times the pairs of the last answer (plus kLooseFloor): after a long first Newton step
    /// the envelope is loose for the shorter steps that follow.
    static constexpr double kLooseFactor = 4.0;
    static constexpr std::size_t kLooseFloor = 10000;

  private:
    /// Sets lo_/hi_ of the vertices of the flagged bodies (all when `bodies` is empty) to
    /// their segment (and x0 -> *ahead) grown by kMarginFactor times their body's largest
    /// displacement on it, at least dhat.
    void set_envelope(const CollisionMesh& mesh, const Vertices& x0, const Vertices& x1,
                      const Vertices* ahead, double dhat, const std::vector<std::uint8_t>& bodies);
    void rebuild(const CollisionMesh& mesh, const Vertices& x0, const Vertices& x1,
                 const Vertices* ahead, const BroadPhaseParams& params);
    /// Lists the vertices, edges and faces that some cached pair names (after the cache changes):
    /// a query computes the swept boxes of those only.
    void list_used(const CollisionMesh& mesh);
    /// Whether every body's vertices are consecutive (set_ranges): then a body's vertices are
    /// handled by its own task.
    bool consecutive_vertices() const;
    /// Per body, whether a vertex of it lies outside its envelope box at x0 or x1.
    std::vector<std::uint8_t> left_envelope(const CollisionMesh& mesh, const Vertices& x0,
                                            const Vertices& x1) const;
    /// A primitive (of a kind the caller knows) with its envelope box.
    struct Boxed {
        int id;
        AABB box;
    };
    /// Body-pair scratch: each body's gathered primitives and where each part's start.
    struct PairScratch {
        std::vector<Boxed> a, b;
        std::vector<int> a_begin, b_begin;
    };
    /// Body `body`'s primitives of a kind whose envelope box overlaps `region`, part by part
    /// (parts_): a part that misses the region is passed whole; begin[p] .. begin[p + 1] are
    /// part p's in `out`.
    void gather_part_primitives(const CollisionMesh& mesh, int kind, int body, const AABB& region,
                                std::vector<Boxed>& out, std::vector<int>& begin) const;
    /// Calls emit(i, j) for each primitive i of kind kind_a of body a and j of kind kind_b of
    /// body b whose envelope boxes overlap (each pair once): the primitives of each body that
    /// reach the other's box, compared within the pairs of their parts that overlap.
    template <class Emit>
    void body_pair_primitives(const CollisionMesh& mesh, int kind_a, int a, int kind_b, int b,
                              PairScratch& scratch, Emit&& emit) const;
    /// Re-queries the pairs with a primitive of a flagged body against the current envelope.
    void update_bodies(const CollisionMesh& mesh, const BroadPhaseParams& params,
                       const std::vector<std::uint8_t>& moved);

    /// Where each body's vertices, edges and faces start and how many it has (count -1: not
    /// consecutive), set with the mesh by rebuild() and adopt().
    struct Ranges {
        std::vector<int> first, count;
    };
    void set_ranges(const CollisionMesh& mesh);
    /// Sets body_box_ and parts_ of every body from the envelope boxes.
    void build_parts(const CollisionMesh& mesh);
    /// Envelope box of primitive i of a kind (0 vertices, 1 edges, 2 faces).
    AABB envelope_box(const CollisionMesh& mesh, int kind, int i) const {
        auto at = [this](int v) -> const AABB& {
            return envelope_vertex_boxes_[static_cast<std::size_t>(v)];
        };
        if (kind == 0) return at(i);
        if (kind == 1) {
            const AABB &a = at(mesh.edges(i, 0)), &b = at(mesh.edges(i, 1));
            return AABB(a.min.cwiseMin(b.min), a.max.cwiseMax(b.max));
        }
        const AABB &a = at(mesh.faces(i, 0)), &b = at(mesh.faces(i, 1)), &c = at(mesh.faces(i, 2));
        return AABB(a.min.cwiseMin(b.min).cwiseMin(c.min), a.max.cwiseMax(b.max).cwiseMax(c.max));
    }

    BroadPhase broad_phase_;
    Ranges vertices_of_, edges_of_, faces_of_;
    bool valid_ = false;
    const CollisionMesh* mesh_ = nullptr;
    double dhat_ = 0.0;
    BroadPhaseMethod method_ = BroadPhaseMethod::lbvh;
    int num_bodies_ = 0;
    Vertices lo_, hi_;
    Candidates cached_;
    std::vector<int> used_vertices_, used_edges_, used_faces_;  // named by a cached pair
    std::vector<int> vertex_slot_, edge_slot_, face_slot_;      // a used primitive's place there
    std::vector<AABB> vertex_boxes_, edge_boxes_, face_boxes_;  // theirs on the queried segment
    std::array<std::vector<std::uint8_t>, 3> marks_;            // list_used's scratch
    /// The envelope's vertex boxes; an edge's or face's is the union of its vertices' (as the
    /// swept boxes of a fresh query are), computed where needed (envelope_box).
    std::vector<AABB> envelope_vertex_boxes_;
    /// Per body, the box of its envelope (its vertices' envelope boxes) and, per kind, its
    /// primitives' envelope boxes in parts (BodyParts).
    std::vector<AABB> body_box_;
    std::array<BodyParts, 3> parts_;
    std::size_t last_answer_ = 0;
    bool anticipated_ = false;  // the last find built envelopes around `ahead`
    int rebuilds_ = 0;
    int partial_updates_ = 0;
    int adopted_bodies_ = 0;
};

}  // namespace concord
