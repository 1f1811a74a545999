// What a fluid step needs from the other domains when the fluid is split across workers
// (docs/fluids.md "Distributed"): each domain steps the particles it owns, which come first in
// its arrays, followed by ghost copies of other domains' particles within one support radius
// of its cell. Wherever IISPH reads a neighbour's value (density, advected velocity, d_ii,
// pressure, sum_j d_ij p_j), the solver asks the halo to refresh the ghosts' entries from their
// owners; the particle count, the average density error and the fastest speed are reduced over
// all domains. Every call is one exchange between the domains (each one a point where the
// slowest domain sets the pace), so values needed at the same point travel together.
#pragma once

#include <initializer_list>
#include <vector>

#include "concord/math/types.hpp"

namespace concord {

class FluidHalo {
  public:
    virtual ~FluidHalo() = default;
    /// In one exchange: for every field, field[owned .. field.size()) gets the values of the
    /// ghosts as their owners hold them now; returns the sum of `local` over every domain,
    /// added in a fixed order (the same on every domain).
    virtual double exchange(std::initializer_list<std::vector<double>*> scalars,
                            std::initializer_list<std::vector<Vec3>*> vectors, double local) = 0;
    /// The largest `local` over every domain.
    virtual double max(double local) = 0;

    void refresh(std::vector<double>& field) { exchange({&field}, {}, 0.0); }
    void refresh(std::vector<Vec3>& field) { exchange({}, {&field}, 0.0); }
    double sum(double local) { return exchange({}, {}, local); }
};

}  // namespace concord
