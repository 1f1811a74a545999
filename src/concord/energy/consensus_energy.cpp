#include "concord/energy/consensus_energy.hpp"

#include <stdexcept>

namespace concord {

namespace {

Eigen::Index modes_of(const ConsensusTerm& t) { return t.anchor.size() - 12; }

}  // namespace

void ConsensusEnergy::set_terms(std::vector<ConsensusTerm> terms) {
    for (const ConsensusTerm& t : terms) {
        const Eigen::Index m = modes_of(t);
        if (m < 0 || (m > 0 && (t.modal_offset < 0 || t.modal_metric == nullptr ||
                                t.modal_metric->rows() != m || t.modal_metric->cols() != m)))
            throw std::invalid_argument("consensus: a term's anchor, modal offset and metric "
                                        "do not match");
    }
    terms_ = std::move(terms);
}

double ConsensusEnergy::value(const VecX& q) const {
    double e = 0.0;
    for (const ConsensusTerm& t : terms_) {
        e += 0.5 * t.rho * (q.segment<12>(12 * t.body) - t.anchor.head<12>()).squaredNorm();
        if (const Eigen::Index m = modes_of(t); m > 0) {
            const VecX d = q.segment(t.modal_offset, m) - t.anchor.tail(m);
            e += 0.5 * t.rho * d.dot(*t.modal_metric * d);
        }
    }
    return e;
}

void ConsensusEnergy::add_gradient(const VecX& q, VecX& g) const {
    for (const ConsensusTerm& t : terms_) {
        g.segment<12>(12 * t.body) += t.rho * (q.segment<12>(12 * t.body) - t.anchor.head<12>());
        if (const Eigen::Index m = modes_of(t); m > 0)
            g.segment(t.modal_offset, m) +=
                t.rho * (*t.modal_metric * (q.segment(t.modal_offset, m) - t.anchor.tail(m)));
    }
}

void ConsensusEnergy::add_hessian(const VecX& /*q*/, HessianBlocks& H, bool /*project_psd*/) const {
    // rho I and rho W: positive definite already.
    for (const ConsensusTerm& t : terms_) {
        H.add(12 * t.body, 12 * t.body, t.rho * Mat12::Identity());
        if (modes_of(t) > 0)
            H.add(t.modal_offset, t.modal_offset, t.rho * *t.modal_metric);
    }
}

}  // namespace concord
