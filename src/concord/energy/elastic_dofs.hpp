// Where an elastic body's unknowns live in a state vector: its 12 affine numbers at 12 b and its
// m modal coordinates at modal_offset (all modal blocks follow the 12 * bodies affine numbers;
// docs/elastic.md). Energies of elastic bodies gather and scatter through these indices.
#pragma once

#include <vector>

#include "concord/energy/energy.hpp"

namespace concord {

struct ElasticDofs {
    int body = -1;          ///< body index in the state vector (affine part at 12 body)
    int modal_offset = -1;  ///< first modal coordinate in the state vector
    int num_modes = 0;

    int size() const { return 12 + num_modes; }
    /// State index of the body's local DoF i (0..11 affine, 12.. modal).
    int index(int i) const { return i < 12 ? 12 * body + i : modal_offset + (i - 12); }

    /// [q_affine, eta] of the body, gathered from the state vector.
    VecX gather(const VecX& q) const {
        VecX v(size());
        v.head<12>() = q.segment<12>(12 * body);
        v.tail(num_modes) = q.segment(modal_offset, num_modes);
        return v;
    }
    /// out[body DoFs] += g.
    void scatter_add(const VecX& g, VecX& out) const {
        out.segment<12>(12 * body) += g.head<12>();
        out.segment(modal_offset, num_modes) += g.tail(num_modes);
    }
    /// The dense block B (size() square) at the body's DoFs: its affine and modal parts.
    void add_hessian_block(const MatX& B, HessianBlocks& out) const {
        const int a = 12 * body;
        out.add(a, a, B.topLeftCorner(12, 12));
        if (num_modes == 0) return;
        out.add(a, modal_offset, B.topRightCorner(12, num_modes));
        out.add(modal_offset, a, B.bottomLeftCorner(num_modes, 12));
        out.add(modal_offset, modal_offset, B.bottomRightCorner(num_modes, num_modes));
    }
};

}  // namespace concord
