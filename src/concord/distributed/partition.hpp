// The partition model (paper Sec. 4, Fig. 2): the domain is cut into cells by planes that can
// only move along their normals, one worker per cell, and an overlap region of width w around
// every plane. A body whose box reaches into a neighbour's side of the overlap region is held
// by both (shared); otherwise it is internal to the one cell it lies in.
//
// Cells are a grid of nx x ny x nz (N - 1 parallel planes along one axis is the grid with one
// count > 1). Worker index of cell (ix, iy, iz) = ix + nx (iy + ny iz).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "concord/math/types.hpp"
#include "concord/scene/distributed_spec.hpp"
#include "concord/scene/joint_spec.hpp"

namespace concord {

struct Partition {
    std::array<int, 3> cells{1, 1, 1};
    /// planes[a]: the cells[a] - 1 plane positions along axis a, increasing.
    std::array<std::vector<double>, 3> planes;

    int num_workers() const { return cells[0] * cells[1] * cells[2]; }
    /// The worker whose cell contains point x (a point on a plane belongs to the lower cell).
    int worker_of_point(const Vec3& x) const;
    /// Bit w set for every worker w whose cell, grown by w_half on each side of its interior
    /// planes, meets the box [lo, hi]: the workers that must hold a body with that box.
    std::uint64_t holders(const Vec3& lo, const Vec3& hi, double w_half) const;
    /// Workers whose cells are adjacent (faces, edges or corners) to worker w's.
    std::vector<int> neighbours(int w) const;
};

/// The cells of a distributed spec (grid, or `workers` slabs along `axis`) with planes evenly
/// spaced over [lo, hi] (the movable bodies' bounding box).
Partition initial_partition(const DistributedSpec& spec, const Vec3& lo, const Vec3& hi);

/// The cells of a distributed spec with planes as spec.initial_planes says: Even as above;
/// Quantile puts plane i of an axis with n cells between the two body centres around the
/// i/n quantile of the centres' coordinates on that axis (midway between the last centre
/// below it and the first above), so that each slab starts with about as many bodies and no
/// plane cuts through a column of centres. Falls back to Even along an axis where the centres
/// do not spread (fewer distinct coordinates than cells).
Partition initial_partition(const DistributedSpec& spec, const Vec3& lo, const Vec3& hi,
                            const std::vector<Vec3>& centres);

/// Along one axis, where a plane near `target` makes the fewest bodies shared. The window
/// [lo, hi] falls into stretches, each crossed by a number of the `extents` (each body's extent
/// along the axis, grown by half the overlap width): among those crossed by the fewest, the
/// one nearest the target. The answer is the target itself when it lies in that stretch at
/// least a quarter of the stretch from its ends, otherwise the nearest point that does (a body
/// moving a little then does not reach the plane at once).
double quietest_position(const std::vector<std::pair<double, double>>& extents, double target,
                         double lo, double hi);

/// Where the movable bodies lie along each axis: per body, its extent (its box grown by half
/// the overlap width: where a plane makes it shared) and its centre (which cell owns it).
struct BodyLayout {
    std::array<std::vector<std::pair<double, double>>, 3> extents;
    std::array<std::vector<double>, 3> centres;
};

/// Bodies joined by joints are held and owned together, so that every joint lies whole in
/// each local problem that has one of its bodies (a worker carries 1/k of a joint held by k
/// workers, as of a contact): per body, the lowest index of its group, the movable bodies
/// connected through joints between movable bodies (a joint to a static body or the world
/// joins nothing).
std::vector<int> joint_groups(const std::vector<JointSpec>& joints,
                              const std::vector<bool>& movable);

/// w = max(alpha v_max h, w_min) (paper Sec. 4).
inline double overlap_width(double alpha, double v_max, double h, double w_min) {
    return std::max(alpha * v_max * h, w_min);
}

/// w = 2 (dhat + alpha v_max h): a body is held by a worker when its swept box comes within
/// dhat + alpha v_max h of the worker's cell, so two bodies on either side of a plane that
/// come within dhat of each other are held together by a worker, with alpha v_max h to spare
/// for the motion contact adds to the predicted one (WidthRule::Contact).
inline double contact_overlap_width(double alpha, double v_max, double h, double dhat) {
    return 2.0 * (dhat + alpha * v_max * h);
}

}  // namespace concord
