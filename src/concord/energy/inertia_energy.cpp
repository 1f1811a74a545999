#include "concord/energy/inertia_energy.hpp"

namespace concord {

InertiaEnergy::InertiaEnergy(std::vector<Mat12> masses, std::vector<bool> dynamic, std::string name)
    : masses_(std::move(masses)), dynamic_(std::move(dynamic)), name_(std::move(name)) {}

double InertiaEnergy::value(const VecX& q) const {
    double e = 0.0;
    for (std::size_t b = 0; b < masses_.size(); ++b) {
        if (!dynamic_[b]) continue;
        const Vec12 d = q.segment<12>(12 * b) - q_tilde_.segment<12>(12 * b);
        e += 0.5 * d.dot(masses_[b] * d);
    }
    return e;
}

void InertiaEnergy::add_gradient(const VecX& q, VecX& g) const {
    for (std::size_t b = 0; b < masses_.size(); ++b) {
        if (!dynamic_[b]) continue;
        g.segment<12>(12 * b) += masses_[b] * (q.segment<12>(12 * b) - q_tilde_.segment<12>(12 * b));
    }
}

void InertiaEnergy::add_hessian(const VecX&, HessianBlocks& H, bool) const {
    // M is symmetric positive definite already: nothing to project.
    for (std::size_t b = 0; b < masses_.size(); ++b)
        if (dynamic_[b]) H.add(12 * static_cast<int>(b), 12 * static_cast<int>(b), masses_[b]);
}

}  // namespace concord
