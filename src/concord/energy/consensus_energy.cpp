#include "concord/energy/consensus_energy.hpp"

namespace concord {

double ConsensusEnergy::value(const VecX& q) const {
    double e = 0.0;
    for (const ConsensusTerm& t : terms_)
        e += 0.5 * t.rho * (q.segment<12>(12 * t.body) - t.anchor).squaredNorm();
    return e;
}

void ConsensusEnergy::add_gradient(const VecX& q, VecX& g) const {
    for (const ConsensusTerm& t : terms_)
        g.segment<12>(12 * t.body) += t.rho * (q.segment<12>(12 * t.body) - t.anchor);
}

void ConsensusEnergy::add_hessian(const VecX& /*q*/, Triplets& H, bool /*project_psd*/) const {
    // rho I: positive definite already.
    for (const ConsensusTerm& t : terms_)
        for (int k = 0; k < 12; ++k) H.emplace_back(12 * t.body + k, 12 * t.body + k, t.rho);
}

}  // namespace concord
