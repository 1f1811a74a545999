#include "concord/energy/inertia_energy.hpp"

#include <tbb/parallel_for.h>

#include "concord/energy/deterministic_parallel.hpp"

namespace concord {

InertiaEnergy::InertiaEnergy(std::vector<Mat12> masses, std::vector<bool> dynamic, std::string name)
    : masses_(std::move(masses)), dynamic_(std::move(dynamic)), name_(std::move(name)) {}

// Per body in parallel: each body's term and gradient are its own. The value's terms are summed
// afterwards in body order, as a serial loop sums them.
double InertiaEnergy::value(const VecX& q) const {
    std::vector<double> term(masses_.size(), 0.0);
    tbb::parallel_for(std::size_t{0}, masses_.size(), [&](std::size_t b) {
        if (!dynamic_[b]) return;
        const Vec12 d = q.segment<12>(12 * b) - q_tilde_.segment<12>(12 * b);
        term[b] = 0.5 * d.dot(masses_[b] * d);
    });
    double e = 0.0;
    for (std::size_t b = 0; b < masses_.size(); ++b)
        if (dynamic_[b]) e += term[b];
    return e;
}

void InertiaEnergy::add_gradient(const VecX& q, VecX& g) const {
    tbb::parallel_for(std::size_t{0}, masses_.size(), [&](std::size_t b) {
        if (!dynamic_[b]) return;
        g.segment<12>(12 * b) += masses_[b] * (q.segment<12>(12 * b) - q_tilde_.segment<12>(12 * b));
    });
}

void InertiaEnergy::add_hessian(const VecX&, HessianBlocks& H, bool) const {
    // M is symmetric positive definite already: nothing to project. (Chunks of bodies in
    // parallel, appended in body order.)
    add_blocks_in_chunks(masses_.size(), H, [&](std::size_t b, HessianBlocks& out) {
        if (dynamic_[b]) out.add(12 * static_cast<int>(b), 12 * static_cast<int>(b), masses_[b]);
    });
}

}  // namespace concord
