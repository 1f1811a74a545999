#include "concord/elastic/sampled_modes.hpp"

#include <cmath>

#include "concord/elastic/node_interpolation.hpp"
#include "concord/math/error.hpp"

namespace concord {

namespace {

[[noreturn]] void fail(const std::string& what) { throw InputError("sampled_modes: " + what); }

// m x m matrix from an m x m matrix or an m x 1 diagonal.
MatX square_or_diagonal(const MatX& A, Eigen::Index m, const char* key) {
    if (A.rows() == m && A.cols() == m) return A;
    if (A.rows() == m && A.cols() == 1) return A.col(0).asDiagonal();
    fail(std::string(key) + " must be " + std::to_string(m) + " x " + std::to_string(m) + " or " +
         std::to_string(m) + " x 1 (got " + std::to_string(A.rows()) + " x " + std::to_string(A.cols()) + ")");
}

}  // namespace

ModalBasis sampled_modes(const SampledParams& p) {
    const Eigen::Index n = p.points.rows();
    if (n < 1) fail("points is empty");
    if (!p.points.allFinite()) fail("points has non-finite entries");
    if (p.mode_values.rows() != 3 * n || p.mode_values.cols() < 1)
        fail("mode_values must be 3n x m = " + std::to_string(3 * n) + " x m with m >= 1 (got " +
             std::to_string(p.mode_values.rows()) + " x " + std::to_string(p.mode_values.cols()) + ")");
    if (!p.mode_values.allFinite()) fail("mode_values has non-finite entries");
    const Eigen::Index m = p.mode_values.cols();

    VecX masses;
    if (p.point_masses.size() > 0) {
        if (p.point_masses.size() != n)
            fail("point_masses must have one entry per point (" + std::to_string(n) + "), got " +
                 std::to_string(p.point_masses.size()));
        masses = p.point_masses;
    } else {
        if (!std::isfinite(p.total_mass) || p.total_mass <= 0.0)
            fail("give point_masses or a total_mass > 0");
        masses = VecX::Constant(n, p.total_mass / static_cast<double>(n));
    }
    if (!masses.allFinite() || masses.minCoeff() <= 0.0) fail("point_masses must be finite and > 0");

    if (p.stiffness.size() == 0) fail("stiffness is required");
    const MatX K = square_or_diagonal(p.stiffness, m, "stiffness");
    const MatX C = p.damping.size() == 0 ? MatX(MatX::Zero(m, m)) : square_or_diagonal(p.damping, m, "damping");
    if (!p.mode_names.empty() && static_cast<Eigen::Index>(p.mode_names.size()) != m)
        fail("mode_names must have " + std::to_string(m) + " entries");

    ModalBasis basis;
    basis.num_modes = static_cast<int>(m);
    basis.mass.points = p.points;
    basis.mass.phi = p.mode_values;
    basis.mass.mass = lumped_mass_matrix(masses);
    basis.modal_mass = reduced_mass(basis.mass);
    basis.modal_stiffness = K;
    basis.modal_damping = C;
    if (p.mode_names.empty())
        for (Eigen::Index j = 1; j <= m; ++j) basis.mode_names.push_back("mode_" + std::to_string(j));
    else
        basis.mode_names = p.mode_names;
    basis.field = std::make_shared<InterpolatedModalField>(p.points, p.mode_values, p.neighbours);
    validate_modal_basis(basis, "sampled_modes");
    return basis;
}

}  // namespace concord
