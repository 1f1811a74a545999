#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "concord/elastic/beam_modes.hpp"
#include "concord/elastic/modal_damping.hpp"
#include "concord/elastic/sampled_modes.hpp"
#include "concord/math/error.hpp"

using namespace concord;

namespace {

// 27 points on a 3 x 3 x 3 grid with two quadratic (non-affine) modes.
SampledParams sampled() {
    SampledParams p;
    p.points.resize(27, 3);
    p.mode_values.resize(81, 2);
    int i = 0;
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
            for (int c = 0; c < 3; ++c, ++i) {
                const Vec3 X(0.5 * a, 0.2 * b, 0.1 * c);
                p.points.row(i) = X.transpose();
                p.mode_values.block<3, 1>(3 * i, 0) << 0.0, X(0) * X(0), 0.0;
                p.mode_values.block<3, 1>(3 * i, 1) << X(1) * X(2), 0.0, X(0) * X(1);
            }
    p.total_mass = 2.7;
    p.stiffness = Eigen::Vector2d(100.0, 300.0);
    return p;
}

void expect_input_error(const ModalBasis& b, const std::string& needle) {
    try {
        validate_modal_basis(b, "test");
        ADD_FAILURE() << "no error for " << needle;
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

}  // namespace

TEST(SampledModes, KeepsUserScalingWithFullModalMass) {
    const SampledParams p = sampled();
    const ModalBasis b = sampled_modes(p);
    ASSERT_EQ(b.num_modes, 2);
    // Equal shares of the total mass; modal mass computed in full, not normalised.
    EXPECT_NEAR(VecX(b.mass.mass.diagonal()).sum(), 3 * 2.7, 1e-12);
    const MatX expected = p.mode_values.transpose() * p.mode_values * (2.7 / 27);
    EXPECT_LT((b.modal_mass - expected).cwiseAbs().maxCoeff(), 1e-14);
    EXPECT_EQ(b.modal_stiffness(1, 1), 300.0);
    EXPECT_EQ(b.modal_stiffness(0, 1), 0.0);
    EXPECT_EQ(b.mode_names[1], "mode_2");
    EXPECT_TRUE(b.sample(p.points).isApprox(p.mode_values, 1e-14));
    // Between the samples the field follows the interpolation (here of a quadratic field).
    const Eigen::Matrix<double, 3, Eigen::Dynamic> v = b.field->evaluate(Vec3(0.5, 0.2, 0.1));
    EXPECT_NEAR(v(1, 0), 0.25, 1e-14);
}

TEST(SampledModes, RejectsAffineDependentAndBadModes) {
    SampledParams p = sampled();
    SampledParams q = p;
    for (int i = 0; i < 27; ++i) q.mode_values.block<3, 1>(3 * i, 1) = q.points.row(i).transpose();  // u = X
    EXPECT_THROW((void)sampled_modes(q), InputError);
    q = p;
    q.mode_values.col(1) = 2.0 * q.mode_values.col(0);  // dependent: singular modal mass
    EXPECT_THROW((void)sampled_modes(q), InputError);
    q = p;
    q.mode_values(5, 0) = std::nan("");
    EXPECT_THROW((void)sampled_modes(q), InputError);
    q = p;
    q.total_mass = 0.0;
    EXPECT_THROW((void)sampled_modes(q), InputError);
    q = p;
    q.point_masses = VecX::Ones(26);
    EXPECT_THROW((void)sampled_modes(q), InputError);
    q = p;
    q.stiffness = MatX::Identity(3, 3);
    EXPECT_THROW((void)sampled_modes(q), InputError);
    q = p;
    q.stiffness = (MatX(2, 2) << 1.0, 2.0, 2.0, 1.0).finished();  // indefinite
    EXPECT_THROW((void)sampled_modes(q), InputError);
    q = p;
    q.damping = (MatX(2, 2) << 1.0, 0.5, 0.0, 1.0).finished();  // unsymmetric
    EXPECT_THROW((void)sampled_modes(q), InputError);
}

TEST(ModalBasis, ValidationNamesTheFault) {
    BeamParams bp;
    bp.bending_y_modes = 2;
    const ModalBasis good = beam_modes(bp);
    EXPECT_NO_THROW(validate_modal_basis(good));
    ModalBasis b = good;
    b.num_modes = 0;
    expect_input_error(b, "num_modes");
    b = good;
    b.modal_mass(0, 0) = std::nan("");
    expect_input_error(b, "modal_mass");
    b = good;
    b.modal_stiffness = MatX::Identity(3, 3);
    expect_input_error(b, "modal_stiffness");
    b = good;
    b.modal_stiffness(0, 0) = -1.0;
    expect_input_error(b, "modal_stiffness");
    b = good;
    b.modal_mass *= 2.0;  // no longer Phi^T M Phi
    expect_input_error(b, "modal_mass");
    b = good;
    b.mass.phi.conservativeResize(b.mass.phi.rows() - 3, Eigen::NoChange);
    expect_input_error(b, "phi");
    b = good;
    b.mode_names.pop_back();
    expect_input_error(b, "mode_names");
    b = good;
    b.field.reset();
    expect_input_error(b, "field");
    b = good;
    b.modal_damping = MatX();
    expect_input_error(b, "modal_damping");
}

TEST(ModalDamping, RayleighAndRatios) {
    BeamParams bp;
    bp.bending_y_modes = 3;
    const ModalBasis b = beam_modes(bp);
    // Rayleigh: alpha M_eta + beta K_eta (= alpha I + beta diag(omega^2) here).
    const MatX C = rayleigh_modal_damping(b.modal_mass, b.modal_stiffness, 0.5, 1e-4);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(C(k, k), 0.5 * b.modal_mass(k, k) + 1e-4 * b.modal_stiffness(k, k), 1e-9);
    // Ratios: 2 zeta omega for mass-normalised modes.
    const MatX Cz = ratio_modal_damping(b.modal_mass, b.modal_stiffness, Eigen::Vector3d(0.01, 0.02, 0.0));
    EXPECT_NEAR(Cz(0, 0), 2 * 0.01 * std::sqrt(b.modal_stiffness(0, 0)), 1e-9);
    EXPECT_NEAR(Cz(1, 1), 2 * 0.02 * std::sqrt(b.modal_stiffness(1, 1)), 1e-9);
    EXPECT_EQ(Cz(2, 2), 0.0);
    EXPECT_EQ(Cz(0, 1), 0.0);
    // General (not normalised) modes: 2 zeta sqrt(k m) gives the damped oscillator of ratio zeta.
    const MatX M = Eigen::Vector2d(4.0, 0.5).asDiagonal(), K = Eigen::Vector2d(100.0, 8.0).asDiagonal();
    const MatX Cg = ratio_modal_damping(M, K, Eigen::Vector2d(0.1, 0.2));
    EXPECT_NEAR(Cg(0, 0), 2 * 0.1 * 20.0, 1e-12);
    EXPECT_NEAR(Cg(1, 1), 2 * 0.2 * 2.0, 1e-12);
    EXPECT_THROW((void)ratio_modal_damping(M, K, Eigen::Vector3d(0.1, 0.1, 0.1)), InputError);
    EXPECT_THROW((void)ratio_modal_damping(M, K, Eigen::Vector2d(-0.1, 0.1)), InputError);
    EXPECT_THROW((void)rayleigh_modal_damping(M, K, -1.0, 0.0), InputError);
    EXPECT_THROW((void)rayleigh_modal_damping(M, MatX::Identity(3, 3), 1.0, 0.0), InputError);
}
