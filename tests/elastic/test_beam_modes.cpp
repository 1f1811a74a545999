#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "concord/elastic/beam_modes.hpp"
#include "concord/math/error.hpp"

using namespace concord;

namespace {

constexpr double pi = std::numbers::pi;

// A slender steel-like rectangular beam (L / t = 50).
BeamParams slender_beam() {
    BeamParams p;
    p.length = 1.0;
    p.width = 0.03;
    p.height = 0.02;
    p.youngs_modulus = 2e11;
    p.poisson_ratio = 0.3;
    p.density = 7800.0;
    return p;
}

double phi_at(const ModalBasis& b, const Vec3& X, int row, int mode) { return b.field->evaluate(X)(row, mode); }

// Modal mass of the basis's field on a much finer quadrature (300 points along x, same section
// rule): tests that the automatic quadrature integrates the modal mass accurately.
MatX fine_modal_mass(const ModalBasis& b, BeamParams p) {
    p.axial_points = 300;
    const ModalBasis fine = beam_modes(p);
    const MatX phi = b.sample(fine.mass.points);
    return phi.transpose() * (fine.mass.mass * phi);
}

}  // namespace

TEST(BeamModes, CantileverRootsMatchTableAndEquation) {
    const double table[] = {1.8751040687, 4.6940911330, 7.8547574382, 10.9955407349};
    for (int k = 1; k <= 4; ++k) EXPECT_NEAR(cantilever_root(k), table[k - 1], 1e-9);
    for (int k = 1; k <= 30; ++k) {
        const double x = cantilever_root(k);
        EXPECT_NEAR(std::cos(x) + 1.0 / std::cosh(x), 0.0, 1e-14) << k;
        if (k >= 5) {
            EXPECT_NEAR(x, (2 * k - 1) * pi / 2, 2e-6) << k;  // asymptote error ~ 2 e^{-x}
        }
    }
}

TEST(BeamModes, SectionProperties) {
    BeamParams p;
    p.width = p.height = 0.1;  // square: J = 0.1406 a^4 (Roark), A, I = a^4/12
    BeamSectionProperties s = beam_section_properties(p);
    EXPECT_NEAR(s.area, 0.01, 1e-15);
    EXPECT_NEAR(s.second_moment_y, 1e-4 / 12, 1e-18);
    EXPECT_NEAR(s.torsion_constant / 1e-4, 0.140577, 2e-6);
    p.width = 0.4;  // a/c = 4: tabulated beta = J / (a c^3) = 0.281 (Timoshenko & Goodier)
    s = beam_section_properties(p);
    EXPECT_NEAR(s.torsion_constant / (0.4 * 1e-3), 0.2808, 1e-3);
    p.section = BeamSection::circle;
    p.radius = 0.05;
    s = beam_section_properties(p);
    EXPECT_NEAR(s.torsion_constant, pi * std::pow(0.05, 4) / 2, 1e-18);
    EXPECT_DOUBLE_EQ(s.polar_moment, s.torsion_constant);
}

TEST(BeamModes, CantileverBoundaryConditions) {
    BeamParams p = slender_beam();
    p.bending_y_modes = 5;
    p.bending_z_modes = 2;
    const ModalBasis b = beam_modes(p);
    const double L = p.length, h = 1e-4 * L;
    for (int k = 0; k < 7; ++k) {
        const bool in_y = k < 5;
        const int row = in_y ? 1 : 2;
        const Vec3 off = in_y ? Vec3(0, 1, 0) : Vec3(0, 0, 1);  // u_x(x, y=1) = -w'(x)
        const double beta = cantilever_root(in_y ? k + 1 : k - 4) / L;
        auto w = [&](double x) { return phi_at(b, Vec3(x, 0, 0), row, k); };
        auto dw = [&](double x) { return -phi_at(b, Vec3(x, 0, 0) + off, 0, k); };
        double wmax = 0.0;
        for (int i = 0; i <= 100; ++i) wmax = std::max(wmax, std::abs(w(i * L / 100)));
        // Clamped root (tangent frame): w(0) = 0 and w'(0) = 0, the slope also by central FD.
        EXPECT_NEAR(w(0.0), 0.0, 1e-12 * wmax) << k;
        EXPECT_NEAR(dw(0.0), 0.0, 1e-11 * beta * wmax) << k;
        EXPECT_NEAR((w(h) - w(-h)) / (2 * h), 0.0, h * h * beta * beta * beta * wmax) << k;  // O(h^2 w''')
        // Free tip: w''(L) = w'''(L) = 0 by central differences of the analytic slope (FD
        // truncation O(h^2 beta^2) relative, rounding eps/h^2 relative to w').
        const double d2 = (dw(L + h) - dw(L - h)) / (2 * h);
        const double d3 = (dw(L + h) - 2 * dw(L) + dw(L - h)) / (h * h);
        EXPECT_NEAR(d2, 0.0, 1e-6 * beta * beta * wmax) << k;
        EXPECT_NEAR(d3, 0.0, 1e-5 * beta * beta * beta * wmax) << k;
        // Plane sections: the slope read from u_x matches the FD slope of w.
        const double x = 0.37 * L;
        EXPECT_NEAR(dw(x), (w(x + h) - w(x - h)) / (2 * h), h * h * beta * beta * beta * wmax) << k;
    }
}

TEST(BeamModes, MassOrthonormalAndQuadratureAccurate) {
    for (BeamSection section : {BeamSection::rectangle, BeamSection::circle}) {
        BeamParams p = slender_beam();
        p.section = section;
        p.radius = 0.015;
        p.axial_modes = 3;
        p.bending_y_modes = 4;
        p.bending_z_modes = 4;
        p.torsion_modes = 2;
        const ModalBasis b = beam_modes(p);
        ASSERT_EQ(b.num_modes, 13);
        EXPECT_EQ(b.mode_names[0], "axial_1");
        EXPECT_EQ(b.mode_names[3], "bend_y_1");
        EXPECT_EQ(b.mode_names[7], "bend_z_1");
        EXPECT_EQ(b.mode_names[12], "torsion_2");
        const MatX I = MatX::Identity(13, 13);
        EXPECT_LT((b.modal_mass - I).cwiseAbs().maxCoeff(), 1e-12);
        // Against a 300-point rule along x: the automatic rule is accurate to 1e-10.
        EXPECT_LT((fine_modal_mass(b, p) - I).cwiseAbs().maxCoeff(), 1e-10);
        // Total mass of the quadrature = rho A L.
        const double A = beam_section_properties(p).area;
        EXPECT_NEAR(VecX(b.mass.mass.diagonal()).sum() / 3.0, p.density * A * p.length, 1e-12 * p.density * A);
        // Stiffness diagonal (families decoupled, each diagonalised).
        const MatX K = b.modal_stiffness;
        EXPECT_LT((K - MatX(K.diagonal().asDiagonal())).cwiseAbs().maxCoeff(), 0.0 + 1e-300);
        EXPECT_TRUE(b.modal_damping.isZero(0.0));
    }
}

TEST(BeamModes, FrequenciesMatchEulerBernoulliWithoutRotaryInertia) {
    for (BeamBendingSupport support : {BeamBendingSupport::cantilever, BeamBendingSupport::pinned_pinned}) {
        BeamParams p = slender_beam();
        p.bending_support = support;
        p.plane_section_rotation = false;
        p.axial_modes = 2;
        p.bending_y_modes = 4;
        p.bending_z_modes = 3;
        p.torsion_modes = 2;
        const ModalBasis b = beam_modes(p);
        const VecX omega = beam_analytic_frequencies(p);
        const VecX w = b.modal_stiffness.diagonal().cwiseSqrt();
        for (int k = 0; k < b.num_modes; ++k) EXPECT_NEAR(w(k) / omega(k), 1.0, 1e-10) << b.mode_names[k];
        // Spot-check the closed forms: cantilever omega_1 = 1.8751^2 sqrt(EI/(rho A L^4)),
        // axial omega_1 = pi/(2L) sqrt(E/rho), torsion omega_1 = pi/(2L) sqrt(GJ/(rho Ip)).
        const BeamSectionProperties s = beam_section_properties(p);
        const double E = p.youngs_modulus, rho = p.density, G = E / (2 * 1.3);
        const double bl = support == BeamBendingSupport::cantilever ? 1.8751040687 : pi;
        EXPECT_NEAR(omega(2) / (bl * bl * std::sqrt(E * s.second_moment_y / (rho * s.area))), 1.0, 1e-9);
        EXPECT_NEAR(omega(0) / (pi / 2 * std::sqrt(E / rho)), 1.0, 1e-14);
        EXPECT_NEAR(omega(9) / (pi / 2 * std::sqrt(G * s.torsion_constant / (rho * s.polar_moment))), 1.0, 1e-14);
    }
}

TEST(BeamModes, RotaryInertiaLowersBendingFrequencies) {
    BeamParams p = slender_beam();
    p.bending_y_modes = 4;
    const double r2 = beam_section_properties(p).second_moment_y / beam_section_properties(p).area;  // I/A
    // Pinned-pinned: sin modes stay orthogonal with rotary inertia, and the Rayleigh beam's
    // omega = omega_EB / sqrt(1 + (I/A)(k pi/L)^2) holds exactly.
    p.bending_support = BeamBendingSupport::pinned_pinned;
    {
        const ModalBasis b = beam_modes(p);
        const VecX omega = beam_analytic_frequencies(p);
        for (int k = 0; k < 4; ++k) {
            const double kp = (k + 1) * pi / p.length;
            EXPECT_NEAR(std::sqrt(b.modal_stiffness(k, k)) / (omega(k) / std::sqrt(1 + r2 * kp * kp)), 1.0, 1e-11);
        }
    }
    // Cantilever: the Ritz frequencies lie below Euler-Bernoulli by less than (I/A) beta_k^2
    // (the Rayleigh quotient with the extra rho I int w'^2 <= rho I beta^2 ... in the mass).
    p.bending_support = BeamBendingSupport::cantilever;
    const ModalBasis b = beam_modes(p);
    const VecX omega = beam_analytic_frequencies(p);
    for (int k = 0; k < 4; ++k) {
        const double beta = cantilever_root(k + 1) / p.length;
        const double ratio = std::sqrt(b.modal_stiffness(k, k)) / omega(k);
        EXPECT_LT(ratio, 1.0);
        EXPECT_GT(ratio, 1.0 - r2 * beta * beta) << k;
    }
}

TEST(BeamModes, CantileverTipLoadFromModalSum) {
    // Static tip deflection of mass-normalised modes under a tip load P:
    //   delta = sum_k Phi_k(L)^2 P / omega_k^2  ->  P L^3 / (3 E I).
    // The modal sum of analytic shapes is sum_k 4 L^3 / (E I (beta_k L)^4) (w_k(L)^2 = 4,
    // int w_k''^2 = beta_k^4 L), so one mode gives the ratio 12 / (beta_1 L)^4 = 0.970688 and
    // four modes 0.999377; the static solution is mass-independent (rotary inertia included).
    BeamParams p = slender_beam();
    const double P = 100.0, L = p.length;
    const double EI = p.youngs_modulus * beam_section_properties(p).second_moment_y;
    const double exact = P * L * L * L / (3 * EI);
    for (int m : {1, 4}) {
        p.bending_y_modes = m;
        const ModalBasis b = beam_modes(p);
        const Eigen::Matrix<double, 3, Eigen::Dynamic> tip = b.field->evaluate(Vec3(L, 0, 0));
        double delta = 0.0;
        for (int k = 0; k < m; ++k) delta += tip(1, k) * tip(1, k) * P / b.modal_stiffness(k, k);
        double series = 0.0;
        for (int k = 1; k <= m; ++k) series += 12.0 / std::pow(cantilever_root(k), 4);
        EXPECT_NEAR(delta / exact, series, 1e-9) << m;
        if (m == 1) {
            EXPECT_NEAR(delta / exact, 0.970688, 1e-6);  // within 3%
        }
        if (m == 4) {
            EXPECT_NEAR(delta / exact, 1.0, 3e-3);  // within 0.3% (0.999377)
        }
    }
}

TEST(BeamModes, PinnedPinnedBoundaryConditionsAndMidspanLoad) {
    // Chord frame: w(0) = w(L) = 0, w''(0) = w''(L) = 0. Midspan load P: delta = P L^3 / (48 E I);
    // the modal sum is (2 P L^3 / (pi^4 E I)) sum_{k odd} 1/k^4, one mode giving 96/pi^4 = 0.985534
    // of the exact value and k <= 7 giving 0.999689.
    BeamParams p = slender_beam();
    p.bending_support = BeamBendingSupport::pinned_pinned;
    p.bending_z_modes = 7;
    const ModalBasis b = beam_modes(p);
    const double L = p.length, h = 1e-4 * L;
    for (int k = 0; k < 7; ++k) {
        auto w = [&](double x) { return phi_at(b, Vec3(x, 0, 0), 2, k); };
        const double wmax = std::abs(w(L / (2.0 * (k + 1))));
        const double beta = (k + 1) * pi / L;
        EXPECT_NEAR(w(0.0), 0.0, 1e-13 * wmax);
        EXPECT_NEAR(w(L), 0.0, 1e-12 * wmax);
        for (double x : {0.0, L}) EXPECT_NEAR((w(x + h) - 2 * w(x) + w(x - h)) / (h * h), 0.0, 1e-6 * beta * beta * wmax);
    }
    const double P = 50.0;
    const double EI = p.youngs_modulus * beam_section_properties(p).second_moment_z;
    const double exact = P * L * L * L / (48 * EI);
    const Eigen::Matrix<double, 3, Eigen::Dynamic> mid = b.field->evaluate(Vec3(L / 2, 0, 0));
    double one = mid(2, 0) * mid(2, 0) * P / b.modal_stiffness(0, 0), all = 0.0;
    for (int k = 0; k < 7; ++k) all += mid(2, k) * mid(2, k) * P / b.modal_stiffness(k, k);
    EXPECT_NEAR(one / exact, 96.0 / std::pow(pi, 4), 1e-9);
    EXPECT_NEAR(all / exact, 0.999689, 1e-6);
}

TEST(BeamModes, AxialFixedFreeShapeFrequencyAndTipLoad) {
    // u = sin((2k-1) pi x / 2L): u(0) = 0, u'(L) = 0; tip load P: P L / (E A), the modal sum
    // (8/pi^2) sum 1/(2k-1)^2 converging like 1/m: one mode 8/pi^2 = 0.810569.
    BeamParams p = slender_beam();
    p.axial_modes = 40;
    const ModalBasis b = beam_modes(p);
    const double L = p.length, h = 1e-5 * L, EA = p.youngs_modulus * beam_section_properties(p).area;
    const VecX omega = beam_analytic_frequencies(p);
    double delta = 0.0;
    for (int k = 0; k < 40; ++k) {
        auto u = [&](double x) { return phi_at(b, Vec3(x, 0.003, -0.004), 0, k); };
        const double umax = std::abs(u(L));
        EXPECT_NEAR(u(0.0), 0.0, 1e-14 * umax);
        EXPECT_NEAR((u(L + h) - u(L - h)) / (2 * h), 0.0, 1e-6 * umax * (2 * k + 1) * pi / (2 * L));
        EXPECT_NEAR(std::sqrt(b.modal_stiffness(k, k)) / omega(k), 1.0, 1e-11);
        EXPECT_EQ(phi_at(b, Vec3(0.3, 0.01, 0.01), 1, k), 0.0);  // purely axial
        delta += u(L) * u(L) / b.modal_stiffness(k, k);
        if (k == 0) {
            EXPECT_NEAR(delta / (L / EA), 8 / (pi * pi), 1e-10);
        }
    }
    double series = 0.0;
    for (int k = 1; k <= 40; ++k) series += 8.0 / (pi * pi * (2 * k - 1) * (2 * k - 1));
    EXPECT_NEAR(delta / (L / EA), series, 1e-9);  // 0.994934 with 40 modes
}

TEST(BeamModes, AxialOtherEnds) {
    BeamParams p = slender_beam();
    p.axial_modes = 2;
    p.axial_ends = BeamEnds::fixed_fixed;
    ModalBasis b = beam_modes(p);
    EXPECT_NEAR(phi_at(b, Vec3(p.length, 0, 0), 0, 1), 0.0, 1e-12);
    EXPECT_NEAR(std::sqrt(b.modal_stiffness(0, 0)) / (pi / p.length * std::sqrt(p.youngs_modulus / p.density)), 1.0, 1e-10);
    p.axial_ends = BeamEnds::free_free;
    b = beam_modes(p);  // cos(pi x / L): not affine, so accepted
    EXPECT_NEAR(std::sqrt(b.modal_stiffness(1, 1)) / (2 * pi / p.length * std::sqrt(p.youngs_modulus / p.density)), 1.0, 1e-10);
}

TEST(BeamModes, TorsionShapeFrequencyAndTipTorque) {
    // theta = sin((2k-1) pi x/2L), (u_y, u_z) = theta (-z, y). Tip torque T: twist T L / (G J);
    // modal twist sum (8/pi^2) sum 1/(2k-1)^2 as for the axial bar.
    BeamParams p = slender_beam();
    p.torsion_modes = 3;
    p.shear_modulus = 8e10;
    const ModalBasis b = beam_modes(p);
    const BeamSectionProperties s = beam_section_properties(p);
    const double L = p.length;
    for (int k = 0; k < 3; ++k) {
        EXPECT_TRUE(b.field->evaluate(Vec3(0, 0.01, 0.007)).col(k).isZero(1e-14));
        const Eigen::Matrix<double, 3, Eigen::Dynamic> a = b.field->evaluate(Vec3(0.6, 0.01, 0.0));
        const Eigen::Matrix<double, 3, Eigen::Dynamic> c = b.field->evaluate(Vec3(0.6, 0.0, 0.01));
        EXPECT_NEAR(a(0, k), 0.0, 0.0);
        EXPECT_NEAR(a(1, k), 0.0, 0.0);
        EXPECT_NEAR(c(1, k), -a(2, k), 1e-15);  // rigid rotation of the section
        const double kappa = (2 * k + 1) * pi / (2 * L);
        EXPECT_NEAR(std::sqrt(b.modal_stiffness(k, k)) / (kappa * std::sqrt(8e10 * s.torsion_constant / (p.density * s.polar_moment))), 1.0, 1e-11);
    }
    // Twist per unit modal coordinate: theta_k(L) = u_z(L, y=1) of mode k.
    double twist = 0.0;
    const Eigen::Matrix<double, 3, Eigen::Dynamic> tip = b.field->evaluate(Vec3(L, 1.0, 0.0));
    for (int k = 0; k < 3; ++k) twist += tip(2, k) * tip(2, k) / b.modal_stiffness(k, k);
    const double series = 8 / (pi * pi) * (1 + 1.0 / 9 + 1.0 / 25);
    EXPECT_NEAR(twist / (L / (8e10 * s.torsion_constant)), series, 1e-10);
}

TEST(BeamModes, SquareSectionKeepsFamiliesSeparate) {
    // Bending y and z have equal frequencies; each mode must stay in its plane.
    BeamParams p = slender_beam();
    p.height = p.width;
    p.bending_y_modes = 2;
    p.bending_z_modes = 2;
    const ModalBasis b = beam_modes(p);
    const Eigen::Matrix<double, 3, Eigen::Dynamic> v = b.field->evaluate(Vec3(0.8, 0, 0));
    EXPECT_EQ(v(2, 0), 0.0);
    EXPECT_EQ(v(1, 2), 0.0);
    EXPECT_NEAR(b.modal_stiffness(0, 0), b.modal_stiffness(2, 2), 1e-9 * b.modal_stiffness(0, 0));
}

TEST(BeamModes, BadInputThrows) {
    BeamParams p = slender_beam();
    EXPECT_THROW((void)beam_modes(p), InputError);  // no modes
    p.bending_y_modes = 1;
    BeamParams q = p;
    q.length = 0.0;
    EXPECT_THROW((void)beam_modes(q), InputError);
    q = p;
    q.youngs_modulus = std::nan("");
    EXPECT_THROW((void)beam_modes(q), InputError);
    q = p;
    q.poisson_ratio = 0.5;
    EXPECT_THROW((void)beam_modes(q), InputError);
    q = p;
    q.torsion_modes = -1;
    EXPECT_THROW((void)beam_modes(q), InputError);
    q = p;
    q.section = BeamSection::circle;
    q.radius = -1;
    EXPECT_THROW((void)beam_modes(q), InputError);
    try {
        q = p;
        q.density = 0;
        (void)beam_modes(q);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("density"), std::string::npos);
    }
}
