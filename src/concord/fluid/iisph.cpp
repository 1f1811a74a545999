#include "concord/fluid/iisph.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace concord {

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
}

/// fn(i) for every particle, in parallel (each call writes only particle i's data).
template <typename Fn>
void for_each_particle(std::size_t n, Fn&& fn) {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 512), [&](const auto& r) {
        for (std::size_t i = r.begin(); i < r.end(); ++i) fn(i);
    });
}

// Pressure mirroring with weight 1, as Akinci et al. 2012 publish it: the boundary pushes with
// psi_k p_i / rho_i^2. (Weight 2, the symmetric pair term with p_k = p_i, holds the particle
// layer on a floor at the right pressure but made particles along a tank's vertical edges
// unstable: docs/fluids.md.)
constexpr double kMirror = 1.0;

// The Jacobi diagonal of a trapped particle (|a_ii| below this fraction of a filled lattice
// particle's) is taken as that fraction of the lattice's: its pressure is then at most ten times
// a lattice particle's for the same compression, instead of compression / a_ii with a_ii -> 0
// (PCISPH takes every particle's from the lattice prototype: Solenthaler and Pajarola 2009). 0.1:
// the dam break against Martin and Moyce and the hydrostatic column are unchanged to four digits;
// 0.3 already slowed splashing surface particles and threw the dam-break front 43 % ahead.
constexpr double kTrappedDiagonal = 0.1;

}  // namespace

void FluidParticles::add(const std::vector<Vec3>& positions, const Vec3& velocity) {
    x.insert(x.end(), positions.begin(), positions.end());
    v.resize(x.size(), velocity);
    density.resize(x.size(), 0.0);
    pressure.resize(x.size(), 0.0);
}

IisphSolver::IisphSolver(const FluidMaterial& material)
    : material_(material), kernel_(material.support_radius()) {
    const double s = material.spacing();
    const int reach = static_cast<int>(std::ceil(material.support_radius() / s));
    for (int i = -reach; i <= reach; ++i)
        for (int j = -reach; j <= reach; ++j)
            for (int k = -reach; k <= reach; ++k)
                lattice_gradient_sq_ += kernel_.gradient(s * Vec3(i, j, k)).squaredNorm();
}

IisphStepStats IisphSolver::step(FluidParticles& fluid, const BoundarySamples& boundary,
                                 const Vec3& g, double dt, std::vector<Vec3>& boundary_impulse) {
    return step(fluid, fluid.size(), nullptr, boundary, g, dt, boundary_impulse);
}

IisphStepStats IisphSolver::step(FluidParticles& fluid, std::size_t owned, FluidHalo* halo,
                                 const BoundarySamples& boundary, const Vec3& g, double dt,
                                 std::vector<Vec3>& boundary_impulse) {
    IisphStepStats stats;
    const std::size_t all = fluid.size();        // owned particles, then ghosts
    const std::size_t n = std::min(owned, all);  // the particles this step moves
    if (boundary_impulse.size() < boundary.size())
        boundary_impulse.resize(boundary.size(), Vec3::Zero());
    // A domain of a split fluid takes part in every exchange, even with no particle of its own
    // (the particle count over all domains comes with the first one, the densities').
    if (!halo && n == 0) {
        stats.converged = true;
        return stats;
    }
    fluid.density.resize(all, 0.0);
    fluid.pressure.resize(all, 0.0);
    const double H = kernel_.support_radius();
    const double m = fluid.mass;
    const double rho0 = material_.rest_density;
    const double dt2 = dt * dt;
    const auto& x = fluid.x;
    auto& v = fluid.v;
    auto& rho = fluid.density;
    auto& p = fluid.pressure;
    const auto& bx = boundary.x;
    const auto& bv = boundary.v;
    const auto& psi = boundary.psi;

    // 1. Neighbours.
    auto t0 = Clock::now();
    fluid_grid_.build(x, H);
    // Fluid pairs, each one found and its kernel gradient and value computed once (the
    // pressure iterations reuse the gradients), then listed for both of its particles.
    fluid_grid_.pair_lists(
        H, n, ff_, pair_blocks_,
        [&](const Vec3& d) {
            PairKernel k;
            k.grad = kernel_.gradient(d, k.w).cast<float>();
            return k;
        },
        [&](std::size_t entries) {
            gff_.resize(entries);
            wff_.resize(entries);
        },
        [&](std::size_t slot, const PairKernel& k, bool mirrored) {
            gff_[slot] = mirrored ? Eigen::Vector3f(-k.grad) : k.grad;
            wff_[slot] = k.w;
        });
    const std::size_t fixed = std::min(boundary.fixed, boundary.size());
    if (!fixed_built_ || fixed != fixed_count_ || boundary.fixed_version != fixed_version_) {
        fixed_points_.assign(bx.begin(), bx.begin() + static_cast<std::ptrdiff_t>(fixed));
        fixed_grid_.build(fixed_points_, H);
        fixed_built_ = true;
        fixed_count_ = fixed;
        fixed_version_ = boundary.fixed_version;
    }
    moving_points_.assign(bx.begin() + static_cast<std::ptrdiff_t>(fixed), bx.end());
    moving_grid_.build(moving_points_, H);
    // Boundary pairs: kernel gradient and value as the searches find them, per block of
    // queries; then per particle its fixed samples' pairs, then the moving ones', and the
    // psi-weighted gradient sum.
    const std::size_t fb_blocks = (n + NeighborGrid::kQueryBlock - 1) / NeighborGrid::kQueryBlock;
    for (auto* b : {&fixed_pairs_, &moving_pairs_}) {
        if (b->size() < fb_blocks) b->resize(fb_blocks);
        for (std::size_t k = 0; k < fb_blocks; ++k) (*b)[k].clear();
    }
    auto boundary_pair = [&](std::vector<std::vector<BoundaryKernel>>& blocks) {
        return [&](std::size_t blk, std::size_t, int, const Vec3& d) {
            BoundaryKernel& k = blocks[blk].emplace_back();
            k.grad = kernel_.gradient(d, k.w);
        };
    };
    fixed_grid_.neighbors(x, H, false, fb_fixed_, n, boundary_pair(fixed_pairs_));
    moving_grid_.neighbors(x, H, false, fb_moving_, n, boundary_pair(moving_pairs_));
    fb_.offsets.assign(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i)
        fb_.offsets[i + 1] = fb_.offsets[i] + fb_fixed_.count(i) + fb_moving_.count(i);
    const auto fb_entries = static_cast<std::size_t>(fb_.offsets[n]);
    fb_.index.resize(fb_entries);
    gfb_.resize(fb_entries);
    wfb_.resize(fb_entries);
    boundary_grad_.resize(n);
    const auto shift = static_cast<int>(fixed);
    for_each_particle(n, [&](std::size_t i) {
        const std::size_t blk = i / NeighborGrid::kQueryBlock;
        auto at = static_cast<std::size_t>(fb_.offsets[i]);
        Vec3 sum = Vec3::Zero();
        auto take = [&](const NeighborLists& part, const std::vector<BoundaryKernel>& values,
                        int add) {
            const std::int64_t first = part.offsets[blk * NeighborGrid::kQueryBlock];
            for (auto s = part.begin(i); s < part.end(i); ++s, ++at) {
                const int k = part.index[static_cast<std::size_t>(s)] + add;
                const BoundaryKernel& bk = values[static_cast<std::size_t>(s - first)];
                fb_.index[at] = k;
                gfb_[at] = bk.grad;
                wfb_[at] = bk.w;
                sum += psi[static_cast<std::size_t>(k)] * bk.grad;
            }
        };
        take(fb_fixed_, fixed_pairs_[blk], 0);
        take(fb_moving_, moving_pairs_[blk], shift);
        boundary_grad_[i] = sum;
    });
    stats.t_neighbors = seconds(t0);

    // 2-3. Density and advection.
    t0 = Clock::now();
    v_adv_.resize(all);
    d_ii_.resize(all);
    dij_pj_.resize(all);
    rho_adv_.resize(n);
    a_ii_.resize(n);
    p_next_.resize(n);
    compression_.resize(n);
    const double w0 = kernel_.value(0.0);
    for_each_particle(n, [&](std::size_t i) {
        double r = m * w0;
        for (auto s = ff_.begin(i); s < ff_.end(i); ++s) r += m * wff_[static_cast<std::size_t>(s)];
        for (auto s = fb_.begin(i); s < fb_.end(i); ++s)
            r += psi[static_cast<std::size_t>(fb_.index[s])] * wfb_[static_cast<std::size_t>(s)];
        rho[i] = r;
    });
    const double n_total =
        halo ? halo->exchange({&rho}, {}, static_cast<double>(n)) : static_cast<double>(n);
    if (n_total == 0.0) {
        stats.converged = true;
        return stats;
    }
    const double nu = material_.viscosity;
    for_each_particle(n, [&](std::size_t i) {
        Vec3 a = g;
        if (nu > 0.0) {
            Vec3 visc = Vec3::Zero();
            for (auto s = ff_.begin(i); s < ff_.end(i); ++s) {
                const auto j = static_cast<std::size_t>(ff_.index[s]);
                const Vec3 xij = x[i] - x[j];
                const double vx = (v[i] - v[j]).dot(xij);
                // m / rho_j symmetrised as 2 m / (rho_i + rho_j): equal and opposite pair forces.
                visc += (2.0 * m / (rho[i] + rho[j])) * vx / (xij.squaredNorm() + 0.01 * H * H) *
                        gff_[static_cast<std::size_t>(s)].cast<double>();
            }
            a += 10.0 * nu * visc;
        }
        v_adv_[i] = v[i] + dt * a;
    });
    if (halo) halo->refresh(v_adv_);
    stats.t_integrate = seconds(t0);

    // 4. Prediction: d_ii, rho_adv, a_ii, warm start.
    t0 = Clock::now();
    for_each_particle(n, [&](std::size_t i) {
        const double inv_rho2 = 1.0 / (rho[i] * rho[i]);
        Vec3 d = Vec3::Zero();
        double div = 0.0;
        for (auto s = ff_.begin(i); s < ff_.end(i); ++s) {
            const auto j = static_cast<std::size_t>(ff_.index[s]);
            const Vec3 gw = gff_[static_cast<std::size_t>(s)].cast<double>();
            d -= m * inv_rho2 * gw;
            div += m * (v_adv_[i] - v_adv_[j]).dot(gw);
        }
        for (auto s = fb_.begin(i); s < fb_.end(i); ++s) {
            const auto k = static_cast<std::size_t>(fb_.index[s]);
            div += psi[k] * (v_adv_[i] - bv[k]).dot(gfb_[static_cast<std::size_t>(s)]);
        }
        d -= kMirror * inv_rho2 * boundary_grad_[i];
        d_ii_[i] = dt2 * d;
        rho_adv_[i] = rho[i] + dt * div;
        p[i] *= 0.5;
    });
    if (halo) halo->exchange({&p}, {&d_ii_}, 0.0);
    // a_ii = sum_j m (d_ii - d_ji) . grad W_ij + d_ii . (boundary's sum), with d_ji =
    // dji_scale grad W_ij; the sweeps reuse the per-particle sums of grad W_ij and |grad W_ij|^2.
    grad_sum_.resize(n);
    grad_sq_.resize(n);
    for_each_particle(n, [&](std::size_t i) {
        Vec3 gs = Vec3::Zero();
        double gq = 0.0;
        for (auto s = ff_.begin(i); s < ff_.end(i); ++s) {
            const Vec3 gw = gff_[static_cast<std::size_t>(s)].cast<double>();
            gs += gw;
            gq += gw.squaredNorm();
        }
        grad_sum_[i] = gs;
        grad_sq_[i] = gq;
        const double dji_scale = dt2 * m / (rho[i] * rho[i]);
        a_ii_[i] = m * d_ii_[i].dot(gs) - m * dji_scale * gq + d_ii_[i].dot(boundary_grad_[i]);
    });

    // 5. Pressure: relaxed Jacobi. The diagonal of a particle whose own pressure barely
    // changes its density (held between boundaries, its gradients cancelling, with few fluid
    // neighbours) is no smaller than a fraction of a filled lattice particle's.
    const double a_floor = -kTrappedDiagonal * dt2 * (m / rho0) * (m / rho0) * lattice_gradient_sq_;
    const double omega = material_.omega;
    const int max_it =
        std::max(material_.max_pressure_iterations, material_.min_pressure_iterations);
    p_rho2_.resize(all);
    djj_pj_.resize(all);
    for (int it = 0; it < max_it; ++it) {
        // Every particle's (ghosts' too: their p and rho are current) m p_j / rho_j^2, then
        // sum_j d_ij p_j = -dt^2 sum_j m p_j / rho_j^2 grad W_ij.
        for_each_particle(all, [&](std::size_t j) { p_rho2_[j] = m * p[j] / (rho[j] * rho[j]); });
        for_each_particle(n, [&](std::size_t i) {
            Vec3 s_i = Vec3::Zero();
            for (auto s = ff_.begin(i); s < ff_.end(i); ++s)
                s_i -= p_rho2_[static_cast<std::size_t>(ff_.index[s])] *
                       gff_[static_cast<std::size_t>(s)].cast<double>();
            dij_pj_[i] = dt2 * s_i;
        });
        if (halo) halo->refresh(dij_pj_);
        // sum_j m (sum_i d_ij p_j - d_jj p_j - sum_k d_jk p_k + d_ji p_i) . grad W_ij (the
        // neighbour's own terms, with k = i added back), split into per-particle sums: per pair
        // only c_j = d_jj p_j + sum_k d_jk p_k is read.
        for_each_particle(all, [&](std::size_t j) { djj_pj_[j] = d_ii_[j] * p[j] + dij_pj_[j]; });
        for_each_particle(n, [&](std::size_t i) {
            const double dji_scale = dt2 * m / (rho[i] * rho[i]);
            Vec3 c = Vec3::Zero();
            for (auto s = ff_.begin(i); s < ff_.end(i); ++s)
                c += m * djj_pj_[static_cast<std::size_t>(ff_.index[s])].cwiseProduct(
                             gff_[static_cast<std::size_t>(s)].cast<double>());
            double sum = m * dij_pj_[i].dot(grad_sum_[i]) - c.sum() +
                         m * dji_scale * p[i] * grad_sq_[i];
            sum += dij_pj_[i].dot(boundary_grad_[i]);
            const double predicted = rho_adv_[i] + a_ii_[i] * p[i] + sum;
            compression_[i] = std::max(0.0, predicted - rho0);
            const double a_d = std::min(a_ii_[i], a_floor);
            double next = 0.0;
            if (std::abs(a_d) > 1e-12 * std::abs(rho0))
                next = (1.0 - omega) * p[i] + omega / a_d * (rho0 - rho_adv_[i] - sum);
            p_next_[i] = std::max(0.0, next);
        });
        // p keeps its storage (live views).
        std::copy(p_next_.begin(), p_next_.begin() + static_cast<std::ptrdiff_t>(n), p.begin());
        double total = 0.0;  // in particle order: the same sum whatever the thread count
        for (std::size_t i = 0; i < n; ++i) total += compression_[i];
        if (halo) total = halo->exchange({&p}, {}, total);
        stats.density_error = total / (n_total * rho0);
        stats.pressure_iterations = it + 1;
        if (it + 1 >= material_.min_pressure_iterations &&
            stats.density_error <= material_.density_tolerance) {
            stats.converged = true;
            break;
        }
    }
    stats.t_pressure = seconds(t0);

    // 6. Pressure forces and symplectic Euler; the boundary's share goes back to its samples.
    t0 = Clock::now();
    for_each_particle(n, [&](std::size_t i) {
        const double pi_rho2 = p[i] / (rho[i] * rho[i]);
        Vec3 a = Vec3::Zero();
        for (auto s = ff_.begin(i); s < ff_.end(i); ++s) {
            const auto j = static_cast<std::size_t>(ff_.index[s]);
            a -= m * (pi_rho2 + p[j] / (rho[j] * rho[j])) *
                 gff_[static_cast<std::size_t>(s)].cast<double>();
        }
        a -= kMirror * pi_rho2 * boundary_grad_[i];
        v[i] = v_adv_[i] + dt * a;
    });
    // In particle order (deterministic): impulse on sample k = -(fluid's impulse from k).
    for (std::size_t i = 0; i < n; ++i) {
        if (fb_.count(i) == 0 || p[i] <= 0.0) continue;
        const double scale = kMirror * dt * m * p[i] / (rho[i] * rho[i]);
        for (auto s = fb_.begin(i); s < fb_.end(i); ++s) {
            const auto k = static_cast<std::size_t>(fb_.index[s]);
            if (k < fixed) continue;  // fixed samples belong to nothing that moves
            boundary_impulse[k] += (scale * psi[k]) * gfb_[static_cast<std::size_t>(s)];
        }
    }
    auto& xm = fluid.x;
    for_each_particle(n, [&](std::size_t i) { xm[i] += dt * v[i]; });
    stats.t_integrate += seconds(t0);
    return stats;
}

double lattice_particle_mass(const FluidMaterial& material) {
    const CubicSplineKernel kernel(material.support_radius());
    const double s = material.spacing();
    const int reach = static_cast<int>(std::ceil(material.support_radius() / s));
    double sum = 0.0;
    for (int i = -reach; i <= reach; ++i)
        for (int j = -reach; j <= reach; ++j)
            for (int k = -reach; k <= reach; ++k) sum += kernel.value(s * Vec3(i, j, k));
    return material.rest_density / sum;
}

std::vector<double> boundary_psi(const std::vector<Vec3>& samples, const FluidMaterial& material) {
    const double H = material.support_radius();
    const CubicSplineKernel kernel(H);
    NeighborGrid grid;
    grid.build(samples, H);
    std::vector<double> psi(samples.size());
    for_each_particle(samples.size(), [&](std::size_t i) {
        double sum = kernel.value(0.0);
        grid.for_each_near(samples[i], H, [&](int j) {
            if (static_cast<std::size_t>(j) != i)
                sum += kernel.value(samples[i] - samples[static_cast<std::size_t>(j)]);
            return true;
        });
        psi[i] = material.rest_density / sum;
    });
    return psi;
}

}  // namespace concord
