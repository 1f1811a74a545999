// What a fluid step needs from the other domains when the fluid is split across workers
// (docs/fluids.md "Distributed"): each domain steps the particles it owns, which come first in
// its arrays, followed by ghost copies of other domains' particles within one support radius
// of its cell. Wherever IISPH reads a neighbour's value (density, advected velocity, d_ii,
// pressure, sum_j d_ij p_j), the solver asks the halo to refresh the ghosts' entries from their
// owners; the average density error and the fastest speed are reduced over all domains.
#pragma once

#include <vector>

#include "concord/math/types.hpp"

namespace concord {

class FluidHalo {
  public:
    virtual ~FluidHalo() = default;
    /// field[owned .. field.size()): the values of the ghosts, as their owners hold them now.
    virtual void refresh(std::vector<double>& field) = 0;
    virtual void refresh(std::vector<Vec3>& field) = 0;
    /// The sum of `local` over every domain, added in a fixed order: the same on every domain.
    virtual double sum(double local) = 0;
    /// The largest `local` over every domain.
    virtual double max(double local) = 0;
};

}  // namespace concord
