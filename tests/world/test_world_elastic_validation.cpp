// Reduced elastic bodies against analytic beam theory, through the whole engine: scene keys,
// modal basis, reduced inertia, modal stiffness and joints (docs/elastic.md).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "concord/elastic/beam_modes.hpp"
#include "concord/scene/json_file.hpp"
#include "concord/scene/scene_parser.hpp"
#include "concord/world/world.hpp"

using namespace concord;
using nlohmann::json;

namespace {

constexpr double kPi = std::numbers::pi;

// The example scenes these tests simulate (scenes/cantilever-tip-load.json,
// cantilever-vibration.json, vertical-bar.json): a 1 m beam along x with a 0.1 m square
// section, clamped at x = -0.5 (its modes vanish with zero slope there: a tangent frame) by a
// stiff fixed joint.
json example(const std::string& name) {
    return read_json_file(std::string(CONCORD_SOURCE_DIR) + "/scenes/" + name + ".json");
}

SceneSpec parse(const json& j, const std::string& name) {
    return parse_scene(j, name, std::string(CONCORD_SOURCE_DIR) + "/scenes");
}

double second_moment() { return std::pow(0.1, 4) / 12.0; }  // b t^3 / 12, square section

}  // namespace

TEST(ElasticValidation, CantileverTipLoadDeflection) {
    // A 10 kg weight hangs from the tip (a ball joint: force only) of a light cantilever under
    // gravity. Euler-Bernoulli: delta = P L^3 / (3 E I) for the tip load plus w L^4 / (8 E I)
    // for the beam's own weight w = rho A g. A modal basis truncated to m modes gives the
    // fraction sum_k Phi_k(L)^2 / K_k of the tip term's L^3 / (3 E I) (the static
    // Rayleigh-Ritz answer of that basis, computed below from the same basis; with the first
    // mode alone it is 12 / (beta_1 L)^4 = 0.9707). The simulation must land within 0.4 % of
    // it; the joints' penalty compliance (~1e-7 m) and the solver tolerance are far below.
    const double E = 2e8, rho = 1.0, g = 9.81, m_tip = 10.0, L = 1.0;
    const double P = m_tip * g, I = second_moment(), weight_per_length = rho * 0.01 * g;
    const double delta_tip = P * L * L * L / (3 * E * I);
    const double delta_self = weight_per_length * std::pow(L, 4) / (8 * E * I);
    for (int modes : {1, 4}) {
        json j = example("cantilever-tip-load");  // E = 2e8, rho = 1, a 10 kg ball-jointed weight
        ASSERT_EQ(j["modal_bases"]["rod"]["youngs_modulus"], E);
        ASSERT_EQ(j["modal_bases"]["rod"]["density"], rho);
        j["modal_bases"]["rod"]["bending_y_modes"] = modes;
        World w(parse(j, "cantilever-tip-load.json"));
        const double y0 = w.q(1)[1];
        for (int n = 0; n < 250; ++n) w.step();
        const double delta = y0 - w.q(1)[1];
        // Reference for this basis: the truncated modal sums of both loads (the self-weight
        // term is 3 orders smaller; its truncation factor is taken as the tip load's).
        BeamParams beam;
        beam.length = L;
        beam.width = beam.height = 0.1;
        beam.youngs_modulus = E;
        beam.density = rho;
        beam.bending_y_modes = modes;
        const ModalBasis basis = beam_modes(beam);
        const Vertices tip = (Vertices(1, 3) << L, 0.0, 0.0).finished();
        const MatX phi = basis.sample(tip);
        double compliance = 0.0;  // of unit tip load along y, in the basis
        for (int k = 0; k < modes; ++k)
            compliance += phi(1, k) * phi(1, k) / basis.modal_stiffness(k, k);
        const double fraction = compliance / (L * L * L / (3 * E * I));
        if (modes == 1) {
            EXPECT_NEAR(fraction, 12.0 / std::pow(cantilever_root(1), 4), 1e-6);
        }
        const double expected = fraction * (delta_tip + delta_self);
        EXPECT_NEAR(delta / expected, 1.0, 4e-3)
            << modes << " modes: delta " << delta << " expected " << expected << " (full EB "
            << delta_tip + delta_self << ")";
        // Against the exact Euler-Bernoulli deflection: within the basis's truncation error.
        EXPECT_NEAR(delta / (delta_tip + delta_self), 1.0, modes == 1 ? 0.035 : 4e-3);
        // The joints held and report it.
        ASSERT_TRUE(w.last_stats().joints);
        EXPECT_LT(w.last_stats().joints->position, 1e-5);
    }
}

TEST(ElasticValidation, CantileverFirstNaturalFrequency) {
    // Released from a deflection in its first mode, a clamped cantilever vibrates at
    // omega_1 = (beta_1 L)^2 sqrt(E I / (rho A L^4)), beta_1 L = 1.8751040687. Implicit Euler
    // turns omega into atan(h omega) / h and damps the amplitude; with h omega = 0.05 the
    // period is 0.08 % long. The period is measured from zero crossings of eta over several
    // cycles (linear interpolation inside a step: error ~ h^2 relative), so 0.3 % covers both.
    const double E = 1e7, rho = 500.0;
    const double A = 0.01, I = second_moment();
    const double beta = 1.8751040687;
    const double omega = beta * beta * std::sqrt(E * I / (rho * A));
    const double h = 0.05 / omega;
    json j = example("cantilever-vibration");  // E = 1e7, rho = 500, eta(0) = 0.01
    ASSERT_EQ(j["modal_bases"]["rod"]["youngs_modulus"], E);
    ASSERT_EQ(j["modal_bases"]["rod"]["density"], rho);
    j["time_step"] = h;
    World w(parse(j, "cantilever-vibration.json"));
    double prev = w.modal_coordinates(0)[0];
    std::vector<double> crossings;
    for (int n = 1; n < 2000 && crossings.size() < 9; ++n) {
        w.step();
        const double eta = w.modal_coordinates(0)[0];
        if ((prev > 0) != (eta > 0)) crossings.push_back((n - 1 + prev / (prev - eta)) * h);
        prev = eta;
    }
    ASSERT_GE(crossings.size(), 9u);
    const double period = (crossings[8] - crossings[0]) / 4.0;
    const double discrete = 2 * kPi * h / std::atan(h * omega);
    EXPECT_NEAR(period / discrete, 1.0, 2e-3);
    EXPECT_NEAR(period / (2 * kPi / omega), 1.0, 3e-3) << "period " << period;
}

TEST(ElasticValidation, VerticalBarExtensionUnderSuspendedWeight) {
    // A vertical bar fixed at its top carries a heavy weight: extension P L / (E A). The axial
    // fixed-free modes sin((2k - 1) pi x / 2L) recover the fraction
    //   sum_{k <= m} 8 / ((2k - 1)^2 pi^2)
    // of it (the uniform strain is not in a finite span of them): 0.9899 for m = 20. The test
    // checks the simulation against that truncated sum (0.5 %, the weight's own stretch and the
    // joint compliance are below 1e-4 of it) and so against P L / (E A) within the truncation.
    const double E = 5e8, rho = 1.0, g = 9.81, m_tip = 50.0, L = 1.0, A = 0.01;
    const int modes = 20;
    // The bar hangs down from its clamp (x axis turned onto -y), 20 axial modes, critically
    // damped, a 50 kg weight fixed to its lower end.
    const json j = example("vertical-bar");
    ASSERT_EQ(j["modal_bases"]["rod"]["axial_modes"], modes);
    ASSERT_EQ(j["modal_bases"]["rod"]["youngs_modulus"], E);
    World w(parse(j, "vertical-bar.json"));
    const double y0 = w.q(1)[1];
    for (int n = 0; n < 200; ++n) w.step();
    const double extension = y0 - w.q(1)[1];
    const double full = m_tip * g * L / (E * A) + rho * A * g * L * L / (2 * E * A);
    double fraction = 0.0;
    for (int k = 1; k <= modes; ++k) fraction += 8.0 / ((2 * k - 1) * (2 * k - 1) * kPi * kPi);
    EXPECT_NEAR(extension / (fraction * full), 1.0, 5e-3) << "extension " << extension;
    EXPECT_NEAR(extension / full, 1.0, 1.0 - fraction + 5e-3);
}
