// Interpolation of values given at nodes (FEM nodes, POD/sampled points) to arbitrary
// body-local points, and the ModalField built on it.
#pragma once

#include <memory>
#include <vector>

#include "concord/elastic/modal_field.hpp"
#include "concord/math/types.hpp"

namespace concord {

/// value(X) = sum_i coefficients[i] * value(nodes[i]).
struct InterpolationStencil {
    std::vector<int> nodes;
    std::vector<double> coefficients;
};

/// Interpolating moving least squares with a linear basis over the k nearest nodes.
///
/// For a query X: take the k nearest nodes (ties broken by node index), h = distance of the k-th
/// (or twice the farthest when there are only k or fewer nodes), weights
///     w_i = phi(d_i / h) / (d_i / h)^2,   phi(r) = (1 - r)^4 (4 r + 1)  (Wendland C2, r < 1),
/// and fit value ~ a0 + a . (P - c) / h by weighted least squares (c the weighted centroid),
/// solved with a rank-revealing pseudo-inverse, evaluated at X. Properties:
///  - exact at nodes: the singular weight makes value -> node value as X -> node; at
///    d < 1e-10 h the nearest node's value is returned;
///  - reproduces affine fields exactly wherever the weighted nodes span 3D; for coplanar or
///    collinear neighbours (shells, rods) it reproduces them in that plane/line and is constant
///    along the missing directions (the minimum-norm fit);
///  - continuous everywhere: the k-th node has weight zero, so the neighbour set changes
///    without a jump; smooth except where the k-th neighbour changes;
///  - deterministic (no randomness, fixed tie-breaking); the value is linear in the node values.
/// Neighbour search is brute force, O(number of nodes) per query.
class NodeInterpolation {
public:
    /// nodes: n x 3, n >= 1, finite; k: neighbours per query (clamped to n), >= 1.
    explicit NodeInterpolation(Vertices nodes, int k = 10);

    [[nodiscard]] InterpolationStencil stencil(const Vec3& X) const;
    [[nodiscard]] const Vertices& nodes() const { return nodes_; }
    [[nodiscard]] int neighbours() const { return k_; }

private:
    Vertices nodes_;
    int k_;
};

/// Phi(X) interpolated from mode values at nodes. node_values: 3n x m, node i at rows 3i..3i+2.
class InterpolatedModalField final : public ModalField {
public:
    InterpolatedModalField(Vertices nodes, MatX node_values, int neighbours = 10);
    [[nodiscard]] int num_modes() const override { return static_cast<int>(values_.cols()); }
    [[nodiscard]] Eigen::Matrix<double, 3, Eigen::Dynamic> evaluate(const Vec3& X) const override;
    [[nodiscard]] const NodeInterpolation& interpolation() const { return interp_; }

private:
    NodeInterpolation interp_;
    MatX values_;
};

}  // namespace concord
