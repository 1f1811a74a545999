#include "concord/elastic/modal_damping.hpp"

#include <cmath>
#include <string>

#include "concord/math/error.hpp"

namespace concord {

namespace {
void check_square_pair(const char* who, const MatX& M, const MatX& K) {
    if (M.rows() != M.cols() || K.rows() != K.cols() || M.rows() != K.rows() || M.rows() < 1)
        throw InputError(std::string(who) + ": modal mass and stiffness must be m x m with the same m >= 1");
}
}  // namespace

MatX rayleigh_modal_damping(const MatX& modal_mass, const MatX& modal_stiffness, double alpha,
                            double beta) {
    check_square_pair("rayleigh damping", modal_mass, modal_stiffness);
    if (!std::isfinite(alpha) || alpha < 0.0)
        throw InputError("rayleigh damping: alpha must be finite and >= 0 (got " + std::to_string(alpha) + ")");
    if (!std::isfinite(beta) || beta < 0.0)
        throw InputError("rayleigh damping: beta must be finite and >= 0 (got " + std::to_string(beta) + ")");
    return alpha * modal_mass + beta * modal_stiffness;
}

MatX ratio_modal_damping(const MatX& modal_mass, const MatX& modal_stiffness, const VecX& zeta) {
    check_square_pair("damping ratio", modal_mass, modal_stiffness);
    const Eigen::Index m = modal_mass.rows();
    if (zeta.size() != m)
        throw InputError("damping ratio: need one ratio per mode (" + std::to_string(m) + "), got " +
                         std::to_string(zeta.size()));
    MatX C = MatX::Zero(m, m);
    for (Eigen::Index k = 0; k < m; ++k) {
        if (!std::isfinite(zeta(k)) || zeta(k) < 0.0)
            throw InputError("damping ratio: zeta[" + std::to_string(k) + "] must be finite and >= 0");
        const double km = modal_stiffness(k, k) * modal_mass(k, k);
        if (!(km >= 0.0))
            throw InputError("damping ratio: mode " + std::to_string(k) + " has negative stiffness or mass");
        C(k, k) = 2.0 * zeta(k) * std::sqrt(km);
    }
    return C;
}

}  // namespace concord
