// Analytic mode shapes of a prismatic beam: axial, Euler-Bernoulli bending (cantilever or
// pinned-pinned) and Saint-Venant torsion.
#pragma once

#include "concord/elastic/modal_basis.hpp"
#include "concord/math/types.hpp"

namespace concord {

enum class BeamSection { rectangle, circle };

/// End conditions of the axial and torsion families (1D wave equation):
///  fixed_free  (x = 0 fixed, x = L free):  f = sin(kappa x), kappa = (2k - 1) pi / (2L)
///  fixed_fixed (both ends fixed):           f = sin(kappa x), kappa = k pi / L
///  free_free   (both ends free):            f = cos(kappa x), kappa = k pi / L  (k >= 1)
enum class BeamEnds { fixed_free, fixed_fixed, free_free };

/// Supports of the bending families:
///  cantilever    clamped at x = 0, free at x = L (tangent frame: w(0) = w'(0) = 0)
///  pinned_pinned w = 0 at both ends (chord frame: w(0) = w(L) = 0), w = sin(k pi x / L)
enum class BeamBendingSupport { cantilever, pinned_pinned };

/// A prismatic beam along the body-local x axis from x = 0 to x = length, its section centred
/// on the axis (y = z = 0). SI units throughout.
struct BeamParams {
    double length = 1.0;
    BeamSection section = BeamSection::rectangle;
    double width = 0.05;    ///< rectangle: extent b along local y
    double height = 0.05;   ///< rectangle: extent t along local z
    double radius = 0.025;  ///< circle: radius r
    double youngs_modulus = 1e9;  ///< E [Pa]
    double shear_modulus = 0.0;   ///< G [Pa]; 0 = E / (2 (1 + poisson_ratio))
    double poisson_ratio = 0.3;   ///< nu, used only when shear_modulus is 0; in (-1, 0.5)
    double density = 1000.0;      ///< rho [kg/m^3]

    int axial_modes = 0;  ///< u_x = f(x)
    BeamEnds axial_ends = BeamEnds::fixed_free;
    int bending_y_modes = 0;  ///< u_y = w(x), u_x = -y w'(x)
    int bending_z_modes = 0;  ///< u_z = w(x), u_x = -z w'(x)
    BeamBendingSupport bending_support = BeamBendingSupport::cantilever;
    int torsion_modes = 0;  ///< rotation theta(x) = f(x) about x: (u_y, u_z) = theta (-z, y)
    BeamEnds torsion_ends = BeamEnds::fixed_free;

    /// Include the plane-section axial term u_x = -y w' (-z w') in bending modes, so sections
    /// rotate with the slope. The mass quadrature then carries the sections' rotary inertia.
    bool plane_section_rotation = true;
    /// Gauss-Legendre points along x for the mass quadrature; 0 = automatic (see beam_modes).
    int axial_points = 0;
};

/// Section constants. second_moment_y = integral y^2 dA governs bending in y (displacement
/// along y), second_moment_z = integral z^2 dA bending in z; polar = their sum.
struct BeamSectionProperties {
    double area = 0.0;
    double second_moment_y = 0.0;
    double second_moment_z = 0.0;
    double polar_moment = 0.0;
    /// Saint-Venant torsion constant J. Circle: J = polar moment = pi r^4 / 2. Rectangle with
    /// long side a and short side c: the exact series
    ///   J = a c^3 / 3 [1 - 192 c / (pi^5 a) sum_{n odd} tanh(n pi a / (2c)) / n^5]
    /// summed to n = 199 (relative truncation error < 1e-10).
    double torsion_constant = 0.0;
};

/// Throws InputError for non-positive dimensions or moduli.
[[nodiscard]] BeamSectionProperties beam_section_properties(const BeamParams& params);

/// beta_k L, the k-th root (k >= 1) of cos(x) cosh(x) + 1 = 0 (clamped-free beam):
/// 1.8751040687, 4.6940911330, 7.8547574382, 10.9955407349, then close to (2k - 1) pi / 2;
/// every root is polished by Newton's method on cos(x) + 1 / cosh(x) to machine precision.
[[nodiscard]] double cantilever_root(int k);

/// Euler-Bernoulli (no rotary inertia) angular frequencies [rad/s] of the beam's modes in basis
/// order (axial, bending y, bending z, torsion):
///   axial    omega = kappa sqrt(E / rho)
///   bending  omega = (beta_k L)^2 sqrt(E I / (rho A L^4))  (pinned-pinned: beta_k L = k pi)
///   torsion  omega = kappa sqrt(G J / (rho I_p))
[[nodiscard]] VecX beam_analytic_frequencies(const BeamParams& params);

/// The modal basis of a beam, modes in the order axial 1..n_a, bending y 1..n_y, bending z
/// 1..n_z, torsion 1..n_t, named "axial_k", "bend_y_k", "bend_z_k", "torsion_k".
///
/// Mass quadrature: a tensor Gauss-Legendre rule through the beam volume, n_x points along x
/// times (rectangle) 2 x 2 Gauss points over the section or (circle) 3 radial Gauss points x 8
/// angles. The section rule integrates every product of mode and affine fields exactly (they are
/// polynomials of degree <= 2 in y and z); along x the automatic count
///   n_x = ceil(0.7 kappa_max L) + 12   (kappa_max the largest wave number, beta for bending)
/// integrates the modal mass to ~1e-13 relative (Gauss-Legendre integrates oscillations of
/// wave number 2 kappa_max to machine precision once n_x exceeds about e kappa_max L / 4).
///
/// Normalisation: the modes are mass-normalised over that quadrature, Phi^T M Phi = I. Within
/// each family the analytic shapes are orthogonal in the Euler-Bernoulli mass rho A int w_i w_j,
/// but the rotating sections add rotary inertia rho I int w_i' w_j', which couples cantilever
/// modes by O((I/A) beta^2). Each family is therefore diagonalised by the Rayleigh-Ritz step
/// K_f v = lambda M_f v (M_f the quadrature mass of the family's analytic shapes, K_f their
/// analytic stiffness, which is diagonal), so the basis modes are the Rayleigh-beam modes in the
/// span of the Euler-Bernoulli shapes; they satisfy the same boundary conditions. Families are
/// mutually orthogonal (symmetric sections), so K_eta = diag(lambda) = diag(omega_k^2) with
///   axial    k = E A int f'^2,  bending k = E I int w''^2,  torsion k = G J int f'^2
/// for the analytic shapes; without rotary inertia (plane_section_rotation = false, or axial
/// and torsion families) omega_k equals beam_analytic_frequencies exactly; with it, bending
/// frequencies are lower by a relative O((I/A) beta_k^2) (pinned-pinned: exactly
/// omega_EB / sqrt(1 + (I/A)(k pi / L)^2), the Rayleigh beam). Torsion ignores warping
/// displacement (the stiffness uses the Saint-Venant J, which accounts for it).
/// Sign: the k-th mode has a positive coefficient on the k-th analytic shape. The field
/// evaluates the analytic expressions at any X (also outside [0, L]). modal_damping is zero.
[[nodiscard]] ModalBasis beam_modes(const BeamParams& params);

}  // namespace concord
