#include "concord/elastic/node_interpolation.hpp"

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>

#include "concord/math/error.hpp"

namespace concord {

NodeInterpolation::NodeInterpolation(Vertices nodes, int k) : nodes_(std::move(nodes)), k_(k) {
    if (nodes_.rows() < 1) throw InputError("node interpolation: at least one node is needed");
    if (!nodes_.allFinite()) throw InputError("node interpolation: node coordinates are not finite");
    if (k_ < 1) throw InputError("node interpolation: neighbours must be >= 1 (got " + std::to_string(k_) + ")");
    k_ = std::min<int>(k_, static_cast<int>(nodes_.rows()));
}

InterpolationStencil NodeInterpolation::stencil(const Vec3& X) const {
    const int n = static_cast<int>(nodes_.rows());
    std::vector<double> d2(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) d2[static_cast<std::size_t>(i)] = (nodes_.row(i).transpose() - X).squaredNorm();
    std::vector<int> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    const auto closer = [&](int a, int b) {
        const double da = d2[static_cast<std::size_t>(a)], db = d2[static_cast<std::size_t>(b)];
        return da < db || (da == db && a < b);
    };
    std::partial_sort(order.begin(), order.begin() + k_, order.end(), closer);
    order.resize(static_cast<std::size_t>(k_));

    const double d_near = std::sqrt(d2[static_cast<std::size_t>(order.front())]);
    const double d_kth = std::sqrt(d2[static_cast<std::size_t>(order.back())]);
    // With more nodes than neighbours the support radius is the k-th distance (that node gets
    // weight zero, so neighbour changes are continuous); otherwise every node is always used and
    // a larger radius keeps them all weighted.
    double h = k_ < n ? d_kth : 2.0 * d_kth;
    InterpolationStencil s;
    if (h <= 0.0 || d_near < 1e-10 * h) {  // at a node (or a single node): its value
        s.nodes = {order.front()};
        s.coefficients = {1.0};
        return s;
    }
    std::vector<double> w(static_cast<std::size_t>(k_), 0.0);
    double wmax = 0.0;
    for (int j = 0; j < k_; ++j) {
        const double r = std::sqrt(d2[static_cast<std::size_t>(order[static_cast<std::size_t>(j)])]) / h;
        const double phi = r < 1.0 ? std::pow(1.0 - r, 4) * (4.0 * r + 1.0) : 0.0;
        w[static_cast<std::size_t>(j)] = phi / (r * r);
        wmax = std::max(wmax, w[static_cast<std::size_t>(j)]);
    }
    if (!(wmax > 0.0)) {
        // All k neighbours tie at the support radius (e.g. X at the centre of a regular
        // arrangement): use them with equal weights.
        std::fill(w.begin(), w.end(), 1.0);
        wmax = 1.0;
    }
    Vec3 c = Vec3::Zero();
    double wsum = 0.0;
    for (int j = 0; j < k_; ++j) {
        c += w[static_cast<std::size_t>(j)] * nodes_.row(order[static_cast<std::size_t>(j)]).transpose();
        wsum += w[static_cast<std::size_t>(j)];
    }
    c /= wsum;
    // sqrt(W) A with A = [1, (P - c)/h]; value = e^T pinv(sqrt(W) A) sqrt(W) f, e = [1, (X - c)/h].
    Eigen::MatrixXd A(k_, 4);
    for (int j = 0; j < k_; ++j) {
        const double sw = std::sqrt(w[static_cast<std::size_t>(j)] / wmax);
        A(j, 0) = sw;
        A.block<1, 3>(j, 1) = sw * (nodes_.row(order[static_cast<std::size_t>(j)]) - c.transpose()) / h;
    }
    Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod;
    cod.setThreshold(1e-9);
    cod.compute(A);
    Eigen::Vector4d e;
    e << 1.0, (X - c) / h;
    const Eigen::RowVectorXd coef = e.transpose() * cod.pseudoInverse();
    for (int j = 0; j < k_; ++j) {
        const double sw = std::sqrt(w[static_cast<std::size_t>(j)] / wmax);
        const double cj = coef(j) * sw;
        if (cj == 0.0) continue;
        s.nodes.push_back(order[static_cast<std::size_t>(j)]);
        s.coefficients.push_back(cj);
    }
    return s;
}

InterpolatedModalField::InterpolatedModalField(Vertices nodes, MatX node_values, int neighbours)
    : interp_(std::move(nodes), neighbours), values_(std::move(node_values)) {
    if (values_.rows() != 3 * interp_.nodes().rows())
        throw InputError("interpolated modal field: node values must have 3 rows per node (" +
                         std::to_string(3 * interp_.nodes().rows()) + "), got " + std::to_string(values_.rows()));
    if (values_.cols() < 1) throw InputError("interpolated modal field: at least one mode is needed");
    if (!values_.allFinite()) throw InputError("interpolated modal field: node values are not finite");
}

Eigen::Matrix<double, 3, Eigen::Dynamic> InterpolatedModalField::evaluate(const Vec3& X) const {
    const InterpolationStencil s = interp_.stencil(X);
    Eigen::Matrix<double, 3, Eigen::Dynamic> out = Eigen::Matrix<double, 3, Eigen::Dynamic>::Zero(3, values_.cols());
    for (std::size_t j = 0; j < s.nodes.size(); ++j) out += s.coefficients[j] * values_.middleRows(3 * s.nodes[j], 3);
    return out;
}

}  // namespace concord
