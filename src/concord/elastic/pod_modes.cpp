#include "concord/elastic/pod_modes.hpp"

#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <string>

#include "concord/elastic/affine_projection.hpp"
#include "concord/elastic/mode_normalisation.hpp"
#include "concord/elastic/node_interpolation.hpp"
#include "concord/math/error.hpp"

namespace concord {

namespace {
[[noreturn]] void fail(const std::string& what) { throw InputError("pod_modes: " + what); }
}  // namespace

ModalBasis pod_modes(const PodParams& p, VecX* singular_values) {
    const Eigen::Index n = p.points.rows();
    if (n < 1) fail("points is empty");
    if (!p.points.allFinite()) fail("points has non-finite entries");
    if (p.point_masses.size() != n)
        fail("point_masses must have one entry per point (" + std::to_string(n) + "), got " +
             std::to_string(p.point_masses.size()));
    if (!p.point_masses.allFinite() || p.point_masses.minCoeff() <= 0.0) fail("point_masses must be finite and > 0");
    if (p.snapshots.rows() != 3 * n || p.snapshots.cols() < 1)
        fail("snapshots must be 3n x s = " + std::to_string(3 * n) + " x s with s >= 1 (got " +
             std::to_string(p.snapshots.rows()) + " x " + std::to_string(p.snapshots.cols()) + ")");
    if (!p.snapshots.allFinite()) fail("snapshots has non-finite entries");
    if (p.num_modes < 0) fail("num_modes must be >= 0 (0: by energy_fraction)");
    if (!(p.energy_fraction > 0.0 && p.energy_fraction <= 1.0)) fail("energy_fraction must be in (0, 1]");

    const Eigen::SparseMatrix<double> M = lumped_mass_matrix(p.point_masses);
    const MatX U = remove_affine_motion(p.points, M, p.snapshots);

    VecX sqrt_m(3 * n);
    for (Eigen::Index i = 0; i < n; ++i) sqrt_m.segment<3>(3 * i).setConstant(std::sqrt(p.point_masses(i)));
    const MatX Wm = sqrt_m.asDiagonal() * U;
    Eigen::BDCSVD<MatX> svd(Wm, Eigen::ComputeThinU);
    const VecX sigma = svd.singularValues();
    if (singular_values) *singular_values = sigma;

    // Singular values below 1e-10 of the largest one or of the raw (pre-projection) snapshot
    // norm are rounding, which tells "only affine motion" from real content.
    const double raw_norm = (sqrt_m.asDiagonal() * p.snapshots).norm();
    int rank = 0;
    for (Eigen::Index k = 0; k < sigma.size(); ++k)
        if (sigma(k) > 1e-10 * std::max(sigma(0), raw_norm)) ++rank;
    if (rank == 0) fail("the snapshots contain only rigid/affine motion; nothing is left for modes");

    int m = p.num_modes;
    if (m == 0) {
        const double total = sigma.head(rank).squaredNorm();
        double acc = 0.0;
        while (m < rank && acc < p.energy_fraction * total) acc += sigma(m) * sigma(m), ++m;
    } else if (m > rank) {
        fail("num_modes = " + std::to_string(m) + " exceeds the rank " + std::to_string(rank) +
             " of the snapshots after removing affine motion");
    }

    MatX phi = sqrt_m.cwiseInverse().asDiagonal() * svd.matrixU().leftCols(m);
    phi = mass_normalise(phi, M, "pod_modes");
    fix_mode_signs(phi);

    VecX k;
    const bool has_k = p.stiffness.size() > 0, has_w = p.frequencies.size() > 0;
    if (has_k == has_w) fail("give exactly one of stiffness or frequencies");
    const VecX& given = has_k ? p.stiffness : p.frequencies;
    const char* key = has_k ? "stiffness" : "frequencies";
    if (p.num_modes > 0 ? given.size() != m : given.size() < m)
        fail(std::string(key) + " needs " + std::to_string(m) + " entries (got " + std::to_string(given.size()) + ")");
    if (!given.allFinite() || given.head(m).minCoeff() < 0.0) fail(std::string(key) + " must be finite and >= 0");
    k = has_k ? VecX(given.head(m)) : VecX(given.head(m).cwiseAbs2());

    ModalBasis basis;
    basis.num_modes = m;
    basis.mass.points = p.points;
    basis.mass.phi = phi;
    basis.mass.mass = M;
    basis.modal_mass = reduced_mass(basis.mass);
    basis.modal_stiffness = k.asDiagonal();
    basis.modal_damping = MatX::Zero(m, m);
    for (int j = 1; j <= m; ++j) basis.mode_names.push_back("pod_" + std::to_string(j));
    basis.field = std::make_shared<InterpolatedModalField>(p.points, phi, p.neighbours);
    validate_modal_basis(basis, "pod_modes");
    return basis;
}

}  // namespace concord
