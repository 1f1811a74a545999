#include "concord/elastic/beam_modes.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "concord/elastic/gauss_legendre.hpp"
#include "concord/math/error.hpp"

namespace concord {

namespace {

constexpr double pi = std::numbers::pi;
constexpr int kMaxModesPerFamily = 100;

[[noreturn]] void fail(const std::string& what) { throw InputError("beam_modes: " + what); }

void require_positive(const char* key, double v) {
    if (!std::isfinite(v) || v <= 0.0) fail(std::string(key) + " must be finite and > 0 (got " + std::to_string(v) + ")");
}

double shear_modulus(const BeamParams& p) {
    if (p.shear_modulus > 0.0) return p.shear_modulus;
    if (p.shear_modulus < 0.0 || !std::isfinite(p.shear_modulus))
        fail("shear_modulus must be >= 0 (0: from poisson_ratio)");
    if (!std::isfinite(p.poisson_ratio) || p.poisson_ratio <= -1.0 || p.poisson_ratio >= 0.5)
        fail("poisson_ratio must be in (-1, 0.5) (got " + std::to_string(p.poisson_ratio) + ")");
    return p.youngs_modulus / (2.0 * (1.0 + p.poisson_ratio));
}

// Wave number of the k-th (k >= 1) mode of the 1D wave equation with the given ends.
double wave_number(BeamEnds ends, int k, double L) {
    return ends == BeamEnds::fixed_free ? (2.0 * k - 1.0) * pi / (2.0 * L) : k * pi / L;
}

enum class Family { axial, bend_y, bend_z, torsion };

// One analytic (not yet normalised) shape.
struct RawMode {
    Family family;
    double kappa;  // wave number (beta for bending)
    // Cantilever constants (see cantilever_shape).
    double num = 0.0, sigma = 0.0, den_scaled = 1.0;
};

// f and f' of a wave-family shape.
void wave_shape(BeamEnds ends, double kappa, double x, double& f, double& df) {
    if (ends == BeamEnds::free_free) {
        f = std::cos(kappa * x);
        df = -kappa * std::sin(kappa * x);
    } else {
        f = std::sin(kappa * x);
        df = kappa * std::cos(kappa * x);
    }
}

// Clamped-free shape w = cosh bx - cos bx - sigma (sinh bx - sin bx), sigma =
// (cosh bL + cos bL) / (sinh bL + sin bL), written without cancellation:
//   w = e^{-bx} + num S(x) - cos bx + sigma sin bx,
//   num = sin bL - cos bL - e^{-bL} (so 1 - sigma = num / (sinh bL + sin bL)),
//   S(x) = sinh bx / (sinh bL + sin bL) = (e^{b(x-L)} - e^{-b(x+L)}) / den_scaled,
//   den_scaled = 1 - e^{-2bL} + 2 sin(bL) e^{-bL}; C(x) likewise with cosh. int_0^L w^2 = L.
RawMode cantilever_mode(double beta, double L) {
    RawMode r{Family::bend_y, beta};
    const double bL = beta * L;
    r.num = std::sin(bL) - std::cos(bL) - std::exp(-bL);
    r.den_scaled = 1.0 - std::exp(-2.0 * bL) + 2.0 * std::sin(bL) * std::exp(-bL);
    r.sigma = 1.0 - r.num * 2.0 * std::exp(-bL) / r.den_scaled;
    return r;
}

// w and w' of a cantilever shape.
void cantilever_shape(const RawMode& r, double L, double x, double& w, double& dw) {
    const double b = r.kappa;
    const double ep = std::exp(b * (x - L)), em = std::exp(-b * (x + L));
    const double S = (ep - em) / r.den_scaled, C = (ep + em) / r.den_scaled;
    const double e = std::exp(-b * x), s = std::sin(b * x), c = std::cos(b * x);
    w = e + r.num * S - c + r.sigma * s;
    dw = b * (-e + r.num * C + s + r.sigma * c);
}

struct BeamLayout {
    std::vector<RawMode> modes;
    std::vector<std::string> names;
    std::vector<std::pair<int, int>> families;  // [begin, end) of each non-empty family
};

BeamLayout layout(const BeamParams& p) {
    BeamLayout out;
    const double L = p.length;
    auto add_family = [&](int count, const char* name, auto make) {
        const int begin = static_cast<int>(out.modes.size());
        for (int k = 1; k <= count; ++k) {
            out.modes.push_back(make(k));
            out.names.push_back(std::string(name) + "_" + std::to_string(k));
        }
        if (count > 0) out.families.emplace_back(begin, static_cast<int>(out.modes.size()));
    };
    add_family(p.axial_modes, "axial", [&](int k) { return RawMode{Family::axial, wave_number(p.axial_ends, k, L)}; });
    for (Family fam : {Family::bend_y, Family::bend_z}) {
        const int count = fam == Family::bend_y ? p.bending_y_modes : p.bending_z_modes;
        add_family(count, fam == Family::bend_y ? "bend_y" : "bend_z", [&](int k) {
            RawMode r = p.bending_support == BeamBendingSupport::cantilever ? cantilever_mode(cantilever_root(k) / L, L)
                                                                             : RawMode{Family::bend_y, k * pi / L};
            r.family = fam;
            return r;
        });
    }
    add_family(p.torsion_modes, "torsion", [&](int k) { return RawMode{Family::torsion, wave_number(p.torsion_ends, k, L)}; });
    return out;
}

// The analytic shapes (3 x m) at X, before normalisation.
class RawBeamShapes {
public:
    RawBeamShapes(const BeamParams& p, std::vector<RawMode> modes) : p_(p), modes_(std::move(modes)) {}
    [[nodiscard]] int size() const { return static_cast<int>(modes_.size()); }
    [[nodiscard]] Eigen::Matrix<double, 3, Eigen::Dynamic> evaluate(const Vec3& X) const {
        Eigen::Matrix<double, 3, Eigen::Dynamic> out = Eigen::Matrix<double, 3, Eigen::Dynamic>::Zero(3, size());
        const double x = X.x(), y = X.y(), z = X.z();
        for (int k = 0; k < size(); ++k) {
            const RawMode& r = modes_[static_cast<std::size_t>(k)];
            double f = 0.0, df = 0.0;
            switch (r.family) {
                case Family::axial:
                    wave_shape(p_.axial_ends, r.kappa, x, f, df);
                    out(0, k) = f;
                    break;
                case Family::torsion:
                    wave_shape(p_.torsion_ends, r.kappa, x, f, df);
                    out(1, k) = -z * f;
                    out(2, k) = y * f;
                    break;
                case Family::bend_y:
                case Family::bend_z: {
                    if (p_.bending_support == BeamBendingSupport::cantilever) {
                        cantilever_shape(r, p_.length, x, f, df);
                    } else {
                        f = std::sin(r.kappa * x);
                        df = r.kappa * std::cos(r.kappa * x);
                    }
                    const int dir = r.family == Family::bend_y ? 1 : 2;
                    out(dir, k) = f;
                    if (p_.plane_section_rotation) out(0, k) = -(dir == 1 ? y : z) * df;
                    break;
                }
            }
        }
        return out;
    }

private:
    BeamParams p_;
    std::vector<RawMode> modes_;
};

// Phi(X) = raw(X) T, T block-diagonal (one block per family).
class BeamModeField final : public ModalField {
public:
    BeamModeField(RawBeamShapes raw, MatX T) : raw_(std::move(raw)), T_(std::move(T)) {}
    [[nodiscard]] int num_modes() const override { return raw_.size(); }
    [[nodiscard]] Eigen::Matrix<double, 3, Eigen::Dynamic> evaluate(const Vec3& X) const override {
        return raw_.evaluate(X) * T_;
    }

private:
    RawBeamShapes raw_;
    MatX T_;
};

void validate(const BeamParams& p) {
    require_positive("length", p.length);
    if (p.section == BeamSection::rectangle) {
        require_positive("width", p.width);
        require_positive("height", p.height);
    } else {
        require_positive("radius", p.radius);
    }
    require_positive("youngs_modulus", p.youngs_modulus);
    require_positive("density", p.density);
    (void)shear_modulus(p);
    const std::pair<const char*, int> counts[] = {{"axial_modes", p.axial_modes},
                                                  {"bending_y_modes", p.bending_y_modes},
                                                  {"bending_z_modes", p.bending_z_modes},
                                                  {"torsion_modes", p.torsion_modes}};
    int total = 0;
    for (const auto& [key, c] : counts) {
        if (c < 0 || c > kMaxModesPerFamily)
            fail(std::string(key) + " must be in [0, " + std::to_string(kMaxModesPerFamily) + "] (got " + std::to_string(c) + ")");
        total += c;
    }
    if (total < 1) fail("no modes requested (axial_modes, bending_y_modes, bending_z_modes, torsion_modes are all 0)");
    if (p.axial_points < 0) fail("axial_points must be >= 0 (0: automatic)");
}

}  // namespace

BeamSectionProperties beam_section_properties(const BeamParams& p) {
    BeamSectionProperties s;
    if (p.section == BeamSection::rectangle) {
        require_positive("width", p.width);
        require_positive("height", p.height);
        const double b = p.width, t = p.height;
        s.area = b * t;
        s.second_moment_y = t * b * b * b / 12.0;
        s.second_moment_z = b * t * t * t / 12.0;
        const double a = std::max(b, t), c = std::min(b, t);
        double series = 0.0;
        for (int n = 1; n < 200; n += 2) series += std::tanh(n * pi * a / (2.0 * c)) / std::pow(n, 5);
        s.torsion_constant = a * c * c * c / 3.0 * (1.0 - 192.0 * c / (std::pow(pi, 5) * a) * series);
    } else {
        require_positive("radius", p.radius);
        const double r = p.radius;
        s.area = pi * r * r;
        s.second_moment_y = s.second_moment_z = pi * std::pow(r, 4) / 4.0;
        s.torsion_constant = pi * std::pow(r, 4) / 2.0;
    }
    s.polar_moment = s.second_moment_y + s.second_moment_z;
    return s;
}

double cantilever_root(int k) {
    if (k < 1) throw InputError("cantilever_root: mode index must be >= 1");
    static constexpr double table[] = {1.8751040687, 4.6940911330, 7.8547574382, 10.9955407349};
    double x = k <= 4 ? table[k - 1] : (2.0 * k - 1.0) * pi / 2.0;
    // cos x + 1/cosh x = 0 has the same roots as cos x cosh x + 1 = 0 and stays O(1).
    for (int it = 0; it < 50; ++it) {
        const double g = std::cos(x) + 1.0 / std::cosh(x);
        const double dg = -std::sin(x) - std::tanh(x) / std::cosh(x);
        const double dx = g / dg;
        x -= dx;
        if (std::abs(dx) < 1e-15 * x) break;
    }
    return x;
}

VecX beam_analytic_frequencies(const BeamParams& p) {
    validate(p);
    const BeamSectionProperties s = beam_section_properties(p);
    const double E = p.youngs_modulus, G = shear_modulus(p), rho = p.density;
    const BeamLayout lay = layout(p);
    VecX omega(static_cast<Eigen::Index>(lay.modes.size()));
    for (std::size_t k = 0; k < lay.modes.size(); ++k) {
        const RawMode& r = lay.modes[k];
        double w = 0.0;
        switch (r.family) {
            case Family::axial: w = r.kappa * std::sqrt(E / rho); break;
            case Family::torsion: w = r.kappa * std::sqrt(G * s.torsion_constant / (rho * s.polar_moment)); break;
            case Family::bend_y: w = r.kappa * r.kappa * std::sqrt(E * s.second_moment_y / (rho * s.area)); break;
            case Family::bend_z: w = r.kappa * r.kappa * std::sqrt(E * s.second_moment_z / (rho * s.area)); break;
        }
        omega(static_cast<Eigen::Index>(k)) = w;
    }
    return omega;
}

ModalBasis beam_modes(const BeamParams& p) {
    validate(p);
    const BeamSectionProperties s = beam_section_properties(p);
    const double E = p.youngs_modulus, G = shear_modulus(p), rho = p.density, L = p.length;
    BeamLayout lay = layout(p);
    const int m = static_cast<int>(lay.modes.size());

    // Analytic stiffness of the raw shapes (diagonal: EB shapes are orthogonal in int w_i'' w_j''
    // and wave shapes in int f_i' f_j', the boundary terms vanishing for these supports).
    VecX k_raw(m);
    double kappa_max = 0.0;
    for (int k = 0; k < m; ++k) {
        const RawMode& r = lay.modes[static_cast<std::size_t>(k)];
        kappa_max = std::max(kappa_max, r.kappa);
        const double k2 = r.kappa * r.kappa;
        switch (r.family) {
            case Family::axial: k_raw(k) = E * s.area * k2 * L / 2.0; break;
            case Family::torsion: k_raw(k) = G * s.torsion_constant * k2 * L / 2.0; break;
            case Family::bend_y:
            case Family::bend_z: {
                const double I = r.family == Family::bend_y ? s.second_moment_y : s.second_moment_z;
                // cantilever: int w''^2 = beta^4 int w^2 = beta^4 L; pinned: kappa^4 L / 2.
                k_raw(k) = E * I * k2 * k2 * (p.bending_support == BeamBendingSupport::cantilever ? L : L / 2.0);
                break;
            }
        }
    }

    // Mass quadrature through the volume.
    const int nx = p.axial_points > 0 ? p.axial_points : static_cast<int>(std::ceil(0.7 * kappa_max * L)) + 12;
    const QuadratureRule gx = gauss_legendre(nx);
    std::vector<Eigen::Vector3d> section;  // (y, z, area weight)
    if (p.section == BeamSection::rectangle) {
        const QuadratureRule g2 = gauss_legendre(2);
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j)
                section.emplace_back(0.5 * p.width * g2.nodes[static_cast<std::size_t>(i)],
                                     0.5 * p.height * g2.nodes[static_cast<std::size_t>(j)],
                                     0.25 * p.width * p.height * g2.weights[static_cast<std::size_t>(i)] *
                                         g2.weights[static_cast<std::size_t>(j)]);
    } else {
        // int_0^R f(r) r dr with 3 Gauss points (exact for f of degree <= 4), 8 angles (exact
        // for trigonometric polynomials of degree <= 7), angles symmetric about both axes.
        const QuadratureRule g3 = gauss_legendre(3);
        const int na = 8;
        for (int i = 0; i < 3; ++i) {
            const double r = 0.5 * p.radius * (g3.nodes[static_cast<std::size_t>(i)] + 1.0);
            const double wr = 0.5 * p.radius * g3.weights[static_cast<std::size_t>(i)] * r;
            for (int j = 0; j < na; ++j) {
                const double th = 2.0 * pi * (j + 0.5) / na;
                section.emplace_back(r * std::cos(th), r * std::sin(th), wr * 2.0 * pi / na);
            }
        }
    }
    const Eigen::Index npts = static_cast<Eigen::Index>(nx * section.size());
    MassQuadrature q;
    q.points.resize(npts, 3);
    VecX point_mass(npts);
    Eigen::Index idx = 0;
    for (int i = 0; i < nx; ++i) {
        const double x = 0.5 * L * (gx.nodes[static_cast<std::size_t>(i)] + 1.0);
        const double wx = 0.5 * L * gx.weights[static_cast<std::size_t>(i)];
        for (const Eigen::Vector3d& sec : section) {
            q.points.row(idx) << x, sec(0), sec(1);
            point_mass(idx) = rho * wx * sec(2);
            ++idx;
        }
    }
    q.mass = lumped_mass_matrix(point_mass);

    RawBeamShapes raw(p, lay.modes);
    MatX raw_phi(3 * npts, m);
    for (Eigen::Index i = 0; i < npts; ++i) raw_phi.middleRows(3 * i, 3) = raw.evaluate(q.points.row(i).transpose());
    const MatX raw_mass = raw_phi.transpose() * (q.mass * raw_phi);

    // Rayleigh-Ritz per family: K_f v = lambda M_f v, V^T M_f V = I.
    MatX T = MatX::Zero(m, m);
    VecX lambda = VecX::Zero(m);
    for (const auto& [b, e] : lay.families) {
        const int nf = e - b;
        const MatX Mf = 0.5 * (raw_mass.block(b, b, nf, nf) + raw_mass.block(b, b, nf, nf).transpose());
        const MatX Kf = k_raw.segment(b, nf).asDiagonal();
        Eigen::GeneralizedSelfAdjointEigenSolver<MatX> ges(Kf, Mf);
        if (ges.info() != Eigen::Success) fail("eigen solve of a mode family failed");
        MatX V = ges.eigenvectors();
        for (int k = 0; k < nf; ++k)
            if (V(k, k) < 0.0) V.col(k) *= -1.0;
        T.block(b, b, nf, nf) = V;
        lambda.segment(b, nf) = ges.eigenvalues();
    }

    ModalBasis basis;
    basis.num_modes = m;
    q.phi = raw_phi * T;
    basis.mass = std::move(q);
    basis.modal_mass = reduced_mass(basis.mass);
    basis.modal_stiffness = lambda.asDiagonal();
    basis.modal_damping = MatX::Zero(m, m);
    basis.mode_names = std::move(lay.names);
    basis.field = std::make_shared<BeamModeField>(std::move(raw), T);
    validate_modal_basis(basis, "beam_modes");
    return basis;
}

}  // namespace concord
