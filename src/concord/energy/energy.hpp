// The one interface that carries the physics: every term of the incremental potential.
//
// An energy is a function of the full state q (12 numbers per body, every body of the world,
// static and kinematic included, body b at q.segment<12>(12 b)). The Newton solver sums
// energies and never sees bodies; which DoFs are free is the solver's business.
#pragma once

#include <string>
#include <vector>

#include "concord/math/hessian_blocks.hpp"
#include "concord/math/types.hpp"

namespace concord {

class Energy {
public:
    virtual ~Energy() = default;
    virtual std::string name() const = 0;
    virtual double value(const VecX& q) const = 0;
    /// g += dE/dq
    virtual void add_gradient(const VecX& q, VecX& g) const = 0;
    /// Appends d2E/dq2 (each local block replaced by its PSD projection when project_psd).
    virtual void add_hessian(const VecX& q, HessianBlocks& H, bool project_psd) const = 0;
};

}  // namespace concord
