// How fast something can come at a body in the next step, beyond what the step's prediction
// (q + h q_dot + h^2 a) already sweeps: the spare of the overlap width per body.
//
// A worker holds a body by its predicted swept box grown by half the overlap width; the width's
// spare alpha v h is for the motion contact adds to the prediction. Contact changes a body's
// velocity by at most the speed at which what it meets comes at it, so the spare a body needs is
// the largest speed relative to it of a body, a static triangle or a ground plane that can reach
// it within the step (alpha times the relative speed, plus dhat). The paper's rule takes the
// fastest body of the scene for every body: a falling lattice, whose spheres fall together,
// then shares a layer on each side of every plane, and one sphere rolling on a resting pile
// widens every plane's overlap. The end-of-step check for pairs no worker held together
// (DistributedSimulation::partition_missed_a_pair) keeps either choice safe.
#pragma once

#include <vector>

#include "concord/collision/broad_phase/lbvh.hpp"
#include "concord/distributed/body_box.hpp"
#include "concord/world/world_model.hpp"

namespace concord {

/// How fast a body's box moves: the rate of each of its faces (lo and hi per axis) over a
/// short time tau along the velocity (a difference quotient: the sphere bound's stretch under
/// a turn is of second order in tau). A body's own spin counts only where it moves its box: a
/// round body turning in place has a box that stays (world_box bounds it by its sphere), a
/// plank turning sweeps.
struct BoxVelocity {
    Vec3 lo = Vec3::Zero(), hi = Vec3::Zero();
};
BoxVelocity box_velocity(const AffineBody& body, const RestBound& rest, const VecX& q,
                         const VecX& q_dot, double tau);

/// How fast two boxes can approach or pass each other along any axis (the largest over axes of
/// the faces' relative rates); a box's own speed with a still one (BoxVelocity{}).
inline double relative_speed(const BoxVelocity& a, const BoxVelocity& b) {
    return (a.hi - b.lo).cwiseAbs().cwiseMax((a.lo - b.hi).cwiseAbs()).maxCoeff();
}

class ApproachSpeeds {
  public:
    /// rest: every body's rest bound (world order). The static bodies' triangles are placed
    /// once, at the state q.
    ApproachSpeeds(const WorldModel& model, const std::vector<RestBound>& rest, const VecX& q);

    /// Per body (world order; 0 for static ones): the largest relative speed of a body,
    /// static triangle or ground plane within reach of it over a step of length `reach_time`
    /// (alpha h): one whose box comes within reach_time times their relative speed plus dhat
    /// of its box at q. Speeds are those of the boxes (box_velocity over 1e-4 h) at the
    /// velocities q_dot plus h times the external accelerations (the predicted end-of-step
    /// velocities; gravity and applied forces, not a fluid's, which the controller does not
    /// hold: the end-of-step check covers what they add). Deterministic; independent of thread
    /// counts.
    std::vector<double> operator()(const VecX& q, const VecX& q_dot, double h, double reach_time,
                                   double dhat) const;

  private:
    const WorldModel& model_;
    const std::vector<RestBound>& rest_;
    std::vector<AABB> static_boxes_;  ///< the static bodies' triangles
    LBVH static_tree_;
};

}  // namespace concord
