// Augmented-Lagrangian contact without barriers (Zheng, Luo and Li 2026, "Robust and Efficient
// Penetration-Free Elastodynamics without Barriers"; libuipc's "al-ipc" contact model).
//
// Every pair of the active set carries a multiplier lambda >= 0 and a gap linearised at the
// last admissible (CCD-certified) state x_np:
//   g(x) = D(x_np) + n . (x - x_np) - dhat,    n = dD/dx at x_np (D the unsigned distance),
// so that g >= 0 asks for at least dhat between the primitives. With the slack
// s = max(0, g(x_k) - lambda / mu) frozen at the Newton iterate x_k, a pair's energy is
//   E = 1/2 mu_eff (g(x) - s - lambda / mu)^2,
// i.e. the augmented Lagrangian of g - s >= 0 with s >= 0 eliminated at x_k; its Hessian
// mu_eff n n^T is PSD by construction. After each Newton step lambda <- max(0, lambda - mu_eff g);
// a pair whose multiplier stays zero has its stiffness decayed (mu_eff = decay^k mu after k
// inactive updates) and leaves the set after `kMaxInactive` of them. Pairs join when the CCD
// of x_np -> x finds them on the way (join()).
//
// The energy is in the h^2-scaled units of the incremental potential (like the barrier), so
// lambda is h^2 times the normal force and serves friction as its lagged normal force.
#pragma once

#include <array>
#include <vector>

#include "concord/energy/contact_replication.hpp"
#include "concord/energy/contact_set.hpp"
#include "concord/energy/energy.hpp"

namespace concord {

/// A pair of primitives of one contact surface: point-triangle (vertex, face), edge-edge
/// (edge, edge) or point-plane (vertex, plane).
struct AlPairKey {
    enum Kind : int { PointTriangle = 0, EdgeEdge = 1, PointPlane = 2 };
    int kind = PointTriangle;
    int a = 0;
    int b = 0;
    friend auto operator<=>(const AlPairKey&, const AlPairKey&) = default;
};

/// One pair of the active set.
struct AlConstraint {
    AlPairKey key;
    double lambda = 0.0;  ///< multiplier (h^2-scaled normal force), >= 0
    int inactive = 0;     ///< consecutive multiplier updates that left lambda at 0
    double load = 0.0;    ///< lambda at the step's start (set_constraints): the load floor
    // The linearisation at x_np (linearize()): g(x) = offset + sum_k normal[k] . x_k.
    std::array<int, 4> vertex{};
    int num_vertices = 0;
    std::array<Vec3, 4> normal{Vec3::Zero(), Vec3::Zero(), Vec3::Zero(), Vec3::Zero()};
    double offset = 0.0;
    double shift = 0.0;  ///< s + lambda / mu, frozen per Newton iteration
    double mu = 0.0;     ///< penalty
    double mu_eff = 0.0; ///< decayed penalty (0: the pair is not evaluated this iteration)
    /// The pair's share in this system (ContactReplication: 1 / the workers holding both its
    /// bodies; 1 on one machine): the energy is weighted by it, lambda is not (every holder
    /// estimates the whole multiplier, as its consensus makes the positions agree).
    double weight = 1.0;
    /// The distance the pair must keep (< 0: dhat); take_over() sets it.
    double clearance = -1.0;
};

struct AlContactParams {
    double dhat = 1e-3;
    /// Penalty per pair: mu = scale * m * h^2 with m the smallest mass of the pair's movable
    /// bodies (libuipc's ABD default 1e5 1/s^2).
    double penalty_scale = 1e5;
    /// Load floor: a pair's penalty is at least its multiplier at the step's start over
    /// (load_compression * dhat), so that the load it carries compresses it by at most that
    /// share of dhat (0: off). Taken at the step's start, not from each update: a floor that
    /// followed the multipliers within a step stiffened impacts as they happened and made the
    /// 512-sphere pile 2.5x slower.
    double load_compression = 3e-4;
    double decay = 0.3;    ///< stiffness factor per inactive multiplier update
    int max_inactive = 25; ///< a pair leaves the set after more inactive updates than this
};

class AlContactEnergy final : public Energy {
public:
    /// body_mass[b] for every body of the surface (static bodies: any value; not used).
    AlContactEnergy(const ContactSurface& surface, const std::vector<HalfSpace>& planes,
                    std::vector<bool> body_movable, std::vector<double> body_mass,
                    AlContactParams params);

    void set_time_step(double h) { h_ = h; }
    /// Distributed runs: each pair's energy is weighted by its share (as the barrier's).
    void set_replication(const ContactReplication* r) { replication_ = r; }
    const AlContactParams& params() const { return params_; }

    /// Adds pairs not yet in the set (lambda 0); keeps the set sorted by key.
    void join(const std::vector<AlPairKey>& pairs);
    /// Linearises every pair at the admissible state q_np and freezes the slack at the Newton
    /// iterate q (the start of a Newton iteration).
    void linearize(const VecX& q_np, const VecX& q);
    /// lambda <- max(0, lambda - mu_eff g(q)); counts inactive updates and drops pairs inactive for
    /// more than max_inactive of them. After take_over the clearance c moves with lambda along
    /// the barrier's law F: the update is implicit, lambda' = F(c') = max(0, lambda - mu_eff
    /// (D(q) - c')) with D the linearised distance (stable for any penalty, where the explicit
    /// update with the new clearance oscillates once mu_eff exceeds twice the barrier's
    /// stiffness).
    void update_multipliers(const VecX& q);

    const std::vector<AlConstraint>& constraints() const { return set_; }
    /// Replaces the set (multipliers carried from an earlier step); sorted by key.
    void set_constraints(std::vector<AlConstraint> set);
    void clear() {
        set_.clear();
        barrier_kappa_ = 0.0;
    }
    /// Hybrid contact: replaces the set by the pairs of a barrier (stiffness kappa)'s contact
    /// set at q (an admissible state). Each pair's multiplier starts at its barrier force
    /// (`normal_forces`, BarrierEnergy::normal_forces: this system's share, so divided by the
    /// pair's weight), which also sets its load floor. From then on every pair's clearance
    /// follows the barrier's law: the distance at which the barrier's force is the pair's
    /// multiplier (its distance at q to start with; dhat for a pair without load, or one that
    /// joins later), and update_multipliers moves multiplier and clearance together. Taking
    /// over thus moves nothing, and the constraints end where the barrier holds the same loads:
    /// the next step's barrier starts in balance.
    void take_over(const ContactSet& contacts, const std::vector<double>& normal_forces,
                   const VecX& q, double kappa);
    /// Hybrid contact: for each pair of `contacts` (a barrier's contact set) that the set
    /// holds, replaces its entry of `normal_forces` (in the set's order, this system's share)
    /// by the pair's multiplier times its weight: the load the constraints found, where the
    /// barrier's force at the distance they left the pair at may be far from it. Returns the
    /// number replaced.
    int carried_loads(const ContactSet& contacts, std::vector<double>& normal_forces) const;

    /// The pairs with lambda > 0 as a contact set classified at q, and their multipliers times
    /// their weights in the set's order (point-triangle, edge-edge, point-plane): friction's
    /// lagged normal forces, this system's share of them.
    ContactSet active_contacts(const VecX& q, std::vector<double>& lambda) const;

    std::string name() const override { return "al_contact"; }
    double value(const VecX& q) const override;
    void add_gradient(const VecX& q, VecX& g) const override;
    void add_hessian(const VecX& q, HessianBlocks& H, bool project_psd) const override;

private:
    double gap(const AlConstraint& c, const VecX& q) const;
    double pair_penalty(const AlConstraint& c) const;
    double pair_weight(const AlPairKey& key) const;
    /// update_multipliers after take_over: multiplier and clearance along the barrier's law.
    void barrier_law_update(AlConstraint& c, const VecX& q) const;

    const ContactSurface& surface_;
    const std::vector<HalfSpace>& planes_;
    std::vector<bool> movable_;
    std::vector<double> mass_;
    AlContactParams params_;
    double h_ = 0.01;
    std::vector<AlConstraint> set_;
    const ContactReplication* replication_ = nullptr;
    double barrier_kappa_ = 0.0;  ///< > 0 after take_over: clearances follow the barrier's law
};

}  // namespace concord
