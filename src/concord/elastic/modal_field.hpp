// ModalField: the mode shapes Phi(X) of an elastic body as a function of the body-local point X.
#pragma once

#include <Eigen/Core>

#include "concord/math/types.hpp"

namespace concord {

/// Mode values at body-local points. Column k of evaluate(X) is the displacement (3-vector, in
/// the body's local frame) of mode k at X, so a point moves by Phi(X) eta. Implementations are
/// immutable after construction and therefore safe to evaluate from several threads.
///
/// Analytic fields (beam modes) are defined everywhere; fields built from node values (POD, FEM,
/// sampled) interpolate between the nodes (see node_interpolation.hpp).
class ModalField {
public:
    virtual ~ModalField() = default;
    /// Number of modes m, the number of columns of evaluate().
    [[nodiscard]] virtual int num_modes() const = 0;
    /// Phi(X): 3 x m, row c is the displacement component c (local x, y, z).
    [[nodiscard]] virtual Eigen::Matrix<double, 3, Eigen::Dynamic> evaluate(const Vec3& X) const = 0;
};

}  // namespace concord
