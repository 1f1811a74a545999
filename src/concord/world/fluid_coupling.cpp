#include "concord/world/fluid_coupling.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <sstream>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "concord/fluid/fluid_sampling.hpp"
#include "concord/geometry/mesh_io.hpp"
#include "concord/geometry/mesh_validation.hpp"
#include "concord/math/error.hpp"
#include "concord/world/kinematic_motion.hpp"

namespace concord {

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
}

// What one particle costs during a step: the arrays of FluidParticles and IisphSolver (about
// 250 bytes) and, for about 35 neighbours, their indices and kernel gradients (about 1,100) and
// the lists' scratch space: the memory estimate's unit.
constexpr double kBytesPerParticle = 1600.0;
// Per boundary sample (position, velocity, psi, impulse, grid).
constexpr double kBytesPerSample = 100.0;
// Fluid steps cover the body step with CFL number 0.4 over the lattice spacing.
constexpr double kCfl = 0.4;

Mat3 frame_of(const VecX& q, int b) {
    Mat3 A;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) A(i, j) = q[12 * b + 3 + 3 * i + j];
    return A;
}

std::string block_name(const FluidBlockSpec& f) {
    return "fluid \"" + f.name + "\"";
}

TriMesh scaled_mesh(const FluidBlockSpec& f) {
    TriMesh m = load_mesh(f.resolved_mesh_file);
    for (int v = 0; v < m.num_vertices(); ++v)
        for (int a = 0; a < 3; ++a) m.vertices(v, a) *= f.mesh_scale[a];
    return m;
}

double physical_memory() {
    const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? static_cast<double>(pages) * static_cast<double>(size) : 8e9;
}

std::string gigabytes(double bytes) {
    std::ostringstream s;
    s.precision(3);
    s << bytes / 1e9 << " GB";
    return s.str();
}

/// An orthonormal pair spanning the plane with normal n.
std::pair<Vec3, Vec3> plane_axes(const Vec3& n) {
    const Vec3 u = n.normalized();
    const Vec3 t1 = (std::abs(u.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY()).cross(u).normalized();
    return {t1, u.cross(t1)};
}

}  // namespace

FluidCoupling::FluidCoupling(const WorldModel& model)
    : solver_([&] {
          const FluidBlockSpec& f = model.spec.fluids.front();
          FluidMaterial m;
          m.particle_radius = f.particle_radius;
          m.rest_density = f.rest_density;
          m.viscosity = f.viscosity;
          m.density_tolerance = f.density_tolerance;
          return m;
      }()) {
    const SceneSpec& spec = model.spec;
    const FluidMaterial& mat = solver_.material();
    const double spacing = mat.spacing();

    // Count first: refuse what would not fit before allocating anything.
    std::vector<TriMesh> meshes(spec.fluids.size());
    AABB fluid_box;
    double particles = 0.0;
    for (std::size_t i = 0; i < spec.fluids.size(); ++i) {
        const FluidBlockSpec& f = spec.fluids[i];
        AABB box(f.block_min, f.block_max);
        if (!f.has_block) {
            meshes[i] = scaled_mesh(f);
            const MeshReport report = validate_mesh(meshes[i]);
            if (!report.closed)
                throw InputError(block_name(f) + ": mesh " + f.mesh_file + " is not closed");
            box = meshes[i].bounds();
        }
        fluid_box.expand(box);
        particles += static_cast<double>(box_lattice_count(box.min, box.max, spacing));
    }
    // Plane patches: the fluid's box widened by its largest extent on every side.
    const double reach = fluid_box.extent().maxCoeff() + mat.support_radius();
    const double patch = 2.0 * (0.5 * fluid_box.extent().norm() + reach);
    const double b = boundary_sample_spacing(mat);
    const double per_plane = std::pow(std::floor(patch / b) + 1.0, 2.0);
    double samples = per_plane * static_cast<double>(model.planes.size());
    for (const AffineBody& body : model.bodies) {
        const double area = [&] {
            double a = 0.0;
            const auto& V = body.mesh().vertices;
            for (int t = 0; t < body.mesh().num_faces(); ++t)
                a += 0.5 *
                     (V.row(body.mesh().faces(t, 1)) - V.row(body.mesh().faces(t, 0)))
                         .cross(V.row(body.mesh().faces(t, 2)) - V.row(body.mesh().faces(t, 0)))
                         .norm();
            return a;
        }();
        samples += 2.0 * area / (b * b) + body.mesh().num_vertices() + body.mesh().num_edges();
    }
    const double need = particles * kBytesPerParticle + samples * kBytesPerSample;
    const double have = physical_memory();
    if (need > 0.5 * have || particles > 1e9)
        throw InputError("fluids: " + std::to_string(static_cast<long long>(particles)) +
                         " particles and " + std::to_string(static_cast<long long>(samples)) +
                         " boundary samples would need about " + gigabytes(need) +
                         ", more than half of this machine's memory (" + gigabytes(have) +
                         "); use a larger particle_radius or smaller blocks");

    // Boundary samples: every body's surface, and a patch of every plane around the fluid.
    closed_.resize(model.bodies.size());
    inside_.resize(model.bodies.size());
    for (std::size_t i = 0; i < model.bodies.size(); ++i) {
        closed_[i] = validate_mesh(model.bodies[i].mesh()).closed;
        if (closed_[i]) inside_[i] = MeshInside(model.bodies[i].mesh());
    }
    // Static bodies' samples first: with the planes' they form the boundary's fixed part.
    std::vector<std::size_t> order;
    for (int pass = 0; pass < 2; ++pass)
        for (std::size_t i = 0; i < model.bodies.size(); ++i)
            if ((model.bodies[i].motion == MotionType::Static) == (pass == 0)) order.push_back(i);
    for (const std::size_t i : order) {
        const AffineBody& body = model.bodies[i];
        BodySamples s;
        s.body = static_cast<int>(i);
        s.is_static = body.motion == MotionType::Static;
        s.local = sample_surface(body.mesh(), b, boundary_sample_depth(mat));
        s.psi = boundary_psi(s.local, mat);
        bodies_.push_back(std::move(s));
    }
    for (const HalfSpace& plane : model.planes) {
        const auto [t1, t2] = plane_axes(plane.normal);
        const Vec3 n = plane.normal.normalized();
        // The patch's centre below the fluid's, the samples r behind the plane (see
        // boundary_sample_depth).
        const Vec3 c = fluid_box.center() - n * n.dot(fluid_box.center() - plane.point) -
                       boundary_sample_depth(mat) * n;
        const int k = static_cast<int>(std::floor(0.5 * patch / b));
        std::vector<Vec3> pts;
        for (int i = -k; i <= k; ++i)
            for (int j = -k; j <= k; ++j) pts.push_back(c + (i * b) * t1 + (j * b) * t2);
        const std::vector<double> psi = boundary_psi(pts, mat);
        planes_.x.insert(planes_.x.end(), pts.begin(), pts.end());
        planes_.psi.insert(planes_.psi.end(), psi.begin(), psi.end());
    }
    planes_.v.assign(planes_.x.size(), Vec3::Zero());

    // The particles: lattices clear of the boundary, none inside a body.
    const WorldState start = model.initial_world_state();
    place_samples(body_motions(model, start, 1.0));
    fluid_.mass = lattice_particle_mass(mat);
    for (std::size_t i = 0; i < spec.fluids.size(); ++i) {
        const FluidBlockSpec& f = spec.fluids[i];
        std::vector<Vec3> pts = f.has_block ? box_lattice(f.block_min, f.block_max, spacing)
                                            : mesh_lattice(meshes[i], spacing);
        pts = points_clear_of(pts, boundary_.x, boundary_clearance(mat));
        if (pts.empty())
            throw InputError(block_name(f) + ": the block holds no particle (particles are laid " +
                             std::to_string(spacing) + " m apart, at least that far from bodies)");
        std::string where;
        const int inside = count_inside(model, start.q, pts, &where);
        if (inside > 0)
            throw InputError(block_name(f) + ": " + std::to_string(inside) +
                             " particles start inside " + where + " (move the block or the body)");
        fluid_.add(pts, f.velocity);
    }
}

FluidState FluidCoupling::capture() const {
    return {fluid_.x, fluid_.v, fluid_.pressure};
}

void FluidCoupling::restore(const FluidState& s) {
    check(s);
    fluid_.x = s.x;
    fluid_.v = s.v;
    fluid_.pressure = s.pressure;
}

void FluidCoupling::check(const FluidState& s) const {
    if (s.x.size() != fluid_.size() || s.v.size() != fluid_.size() ||
        s.pressure.size() != fluid_.size())
        throw InputError("fluid state: " + std::to_string(s.x.size()) +
                         " particles, the scene's fluid has " + std::to_string(fluid_.size()));
    for (std::size_t i = 0; i < s.x.size(); ++i)
        if (!s.x[i].allFinite() || !s.v[i].allFinite() || !std::isfinite(s.pressure[i]))
            throw InputError("fluid state: particle " + std::to_string(i) + " is not finite");
}

std::vector<FluidCoupling::BodyMotion> FluidCoupling::body_motions(const WorldModel& model,
                                                                   const WorldState& s,
                                                                   double h) const {
    std::vector<BodyMotion> motion(bodies_.size());
    for (std::size_t k = 0; k < bodies_.size(); ++k) {
        const int b = bodies_[k].body;
        const auto i = static_cast<std::size_t>(b);
        BodyMotion& m = motion[k];
        m.q = s.q.segment<12>(12 * b);
        m.dynamic = model.dynamic[i];
        if (model.dynamic[i])
            m.q_dot = s.q_dot.segment<12>(12 * b);
        else if (model.kinematic[i])
            m.q_dot =
                (kinematic_state(model.bodies[i].kinematic, model.bodies[i].q_initial, s.time + h) -
                 m.q) /
                h;
    }
    return motion;
}

void FluidCoupling::place_samples(const std::vector<BodyMotion>& motion) {
    // The fixed part: the planes and the static bodies, whose state changes only by a restore.
    std::size_t fixed = planes_.size();
    std::vector<Vec12> static_q;
    for (std::size_t k = 0; k < bodies_.size(); ++k)
        if (bodies_[k].is_static) {
            static_q.push_back(motion[k].q);
            fixed += bodies_[k].local.size();
        }
    const bool same_fixed = static_q == fixed_q_ && boundary_.fixed == fixed &&
                            boundary_.size() >= fixed && boundary_.fixed_version > 0;
    if (!same_fixed) {
        fixed_q_ = static_q;
        ++boundary_.fixed_version;
    }
    boundary_.fixed = fixed;
    // The fixed part is rewritten only when it moved (a restore); the rest every time.
    const std::size_t keep = same_fixed ? fixed : 0;
    boundary_.x.resize(keep);
    boundary_.v.resize(keep);
    boundary_.psi.resize(keep);
    if (keep == 0) {
        boundary_.x = planes_.x;
        boundary_.v = planes_.v;
        boundary_.psi = planes_.psi;
    }
    for (std::size_t k = 0; k < bodies_.size(); ++k) {
        const BodySamples& bs = bodies_[k];
        if (keep > 0 && bs.is_static) continue;  // in the kept fixed part
        const Vec12& q = motion[k].q;
        const Vec12& qd = motion[k].q_dot;
        Mat3 A, Ad;
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) {
                A(r, c) = q[3 + 3 * r + c];
                Ad(r, c) = qd[3 + 3 * r + c];
            }
        for (std::size_t j = 0; j < bs.local.size(); ++j) {
            const Vec3& X = bs.local[j];
            boundary_.x.push_back(q.head<3>() + A * X);
            boundary_.v.push_back(qd.head<3>() + Ad * X);
            boundary_.psi.push_back(bs.psi[j]);
        }
    }
    if (keep == 0) {  // the fixed part's fastest sample (still, unless a static body moves)
        fixed_speed_ = 0.0;
        for (std::size_t k = 0; k < fixed; ++k)
            fixed_speed_ = std::max(fixed_speed_, boundary_.v[k].norm());
    }
}

std::vector<Vec12> FluidCoupling::advance(const WorldModel& model, const WorldState& s, double h,
                                          FluidStepStats& stats, FluidSplit* split) {
    const auto t_start = Clock::now();
    auto t0 = Clock::now();
    std::vector<BodyMotion> motion = body_motions(model, s, h);
    place_samples(motion);
    // Fluid steps: each one CFL-limited by the speeds at its start (particles, plus what
    // gravity adds over the step, and boundary samples), the rest of the body step split evenly.
    const double g = model.spec.gravity.norm();
    const double spacing = solver_.material().spacing();
    double split_speed = -1.0;  // the workers' fastest particle, when the last sum brought it
    auto cfl_step = [&] {
        double vmax = g * h;
        if (split)  // max(|v| + g h) = max |v| + g h exactly: the same as on one machine
            vmax = std::max(vmax, (split_speed >= 0.0 ? split_speed : split->max_speed()) + g * h);
        else
            for (const Vec3& v : fluid_.v) vmax = std::max(vmax, v.norm() + g * h);
        // max(|v| + g h) over the samples, the fixed part's kept from when it was placed.
        vmax = std::max(vmax, fixed_speed_ + g * h);
        for (std::size_t k = boundary_.fixed; k < boundary_.size(); ++k)
            vmax = std::max(vmax, boundary_.v[k].norm() + g * h);
        return kCfl * spacing / std::max(vmax, 1e-12);
    };
    std::vector<Vec12> out(model.bodies.size(), Vec12::Zero());
    std::vector<Vec3>& impulse = impulse_;
    stats.t_coupling += seconds(t0);
    double t = 0.0;
    for (int k = 0;; ++k) {
        const double left = h - t;
        if (left <= 1e-9 * h) break;
        if (k > 0) place_samples(motion);
        double parts = std::ceil(left / cfl_step() * (1.0 - 1e-12));
        if (k + 1 >= kMaxSubsteps) {  // bounded work: the last step takes what is left
            parts = 1.0;
            stats.converged = false;
        }
        const double dt = parts <= 1.0 ? left : left / parts;
        t = parts <= 1.0 ? h : t + dt;
        ++stats.substeps;
        // Only the moving samples get impulses (the fixed ones are planes and static bodies).
        impulse.resize(boundary_.size());
        std::fill(impulse.begin() + static_cast<std::ptrdiff_t>(boundary_.fixed), impulse.end(),
                  Vec3::Zero());
        const IisphStepStats st =
            split ? split->step(boundary_, model.spec.gravity, dt, impulse)
                  : solver_.step(fluid_, boundary_, model.spec.gravity, dt, impulse);
        stats.pressure_iterations += st.pressure_iterations;
        stats.density_error = std::max(stats.density_error, st.density_error);
        stats.converged = stats.converged && st.converged;
        stats.t_neighbors += st.t_neighbors;
        stats.t_pressure += st.t_pressure;
        // The bodies' generalised impulses of this fluid step; the dynamic bodies' motion, as
        // far as the fluid sees it, responds to them (and their external forces) within the
        // body step, so that the fluid does not keep pushing against a body that has already
        // been stopped (two-way coupling per fluid step, Akinci et al. 2012).
        t0 = Clock::now();
        std::vector<Vec12> step_impulse(bodies_.size(), Vec12::Zero());
        std::size_t at = planes_.size();
        for (std::size_t j = 0; j < bodies_.size(); ++j) {
            const BodySamples& bs = bodies_[j];
            if (bs.is_static) {  // no impulse on the fixed part; its samples come first
                at += bs.local.size();
                continue;
            }
            Vec12& gen = step_impulse[j];
            for (std::size_t m = 0; m < bs.local.size(); ++m, ++at) {
                const Vec3& I = impulse[at];
                const Vec3& X = bs.local[m];
                gen.head<3>() += I;
                for (int r = 0; r < 3; ++r) gen.segment<3>(3 + 3 * r) += I[r] * X;
            }
        }
        // Particles the step left inside a body (at the body's pose the samples stood at) go
        // back outside; their bodies take the momentum's other half. The count travels in one
        // more entry of the per-body sum, so that split fluids reduce both at once.
        FluidParticles& mine = split ? split->local_particles() : fluid_;
        const std::size_t n_mine = split ? split->owned() : fluid_.size();
        const int moved = push_out(model, motion, mine, n_mine, &step_impulse);
        step_impulse.push_back(Vec12::Constant(static_cast<double>(moved)));
        if (split) split_speed = split->sum(step_impulse);
        stats.pushed_out += static_cast<int>(std::lround(step_impulse.back()[0]));
        step_impulse.pop_back();
        for (std::size_t j = 0; j < bodies_.size(); ++j) {
            const BodySamples& bs = bodies_[j];
            if (bs.is_static) continue;
            const Vec12& gen = step_impulse[j];
            const auto b = static_cast<std::size_t>(bs.body);
            out[b] += gen;
            BodyMotion& mo = motion[j];
            if (mo.dynamic)
                mo.q_dot +=
                    model.masses[b].ldlt().solve(gen) + dt * model.initial_external_acceleration[b];
            mo.q += dt * mo.q_dot;
        }
        stats.t_coupling += seconds(t0);
    }
    stats.particles = num_particles();
    stats.t_fluid += seconds(t_start);
    return out;
}

int FluidCoupling::push_out(const WorldModel& model, const std::vector<BodyMotion>& motion,
                            FluidParticles& p, std::size_t n, std::vector<Vec12>* impulse) const {
    const double margin = 0.5 * solver_.material().particle_radius;
    struct Placed {
        std::size_t k;  ///< in bodies_
        Vec3 p, p_dot;
        Mat3 A, A_dot, A_inv;
        AABB world;
    };
    std::vector<Placed> placed;
    for (std::size_t k = 0; k < bodies_.size(); ++k) {
        const auto b = static_cast<std::size_t>(bodies_[k].body);
        if (!closed_[b]) continue;
        Placed pl;
        pl.k = k;
        const Vec12& q = motion[k].q;
        const Vec12& qd = motion[k].q_dot;
        pl.p = q.head<3>();
        pl.p_dot = qd.head<3>();
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) {
                pl.A(r, c) = q[3 + 3 * r + c];
                pl.A_dot(r, c) = qd[3 + 3 * r + c];
            }
        pl.A_inv = pl.A.inverse();
        const AABB& local = inside_[b].bounds();
        for (int c = 0; c < 8; ++c)
            pl.world.expand(pl.p + pl.A * Vec3((c & 1) ? local.max.x() : local.min.x(),
                                               (c & 2) ? local.max.y() : local.min.y(),
                                               (c & 4) ? local.max.z() : local.min.z()));
        placed.push_back(pl);
    }
    // What holds each particle: -1 nothing, 0.. a plane, planes.size() + j placed[j].
    const std::size_t n_planes = model.planes.size();
    std::vector<std::int64_t> where(n, -1);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 1024), [&](const auto& r) {
        for (std::size_t i = r.begin(); i < r.end(); ++i) {
            const Vec3& x = p.x[i];
            for (std::size_t j = 0; j < n_planes && where[i] < 0; ++j)
                if ((x - model.planes[j].point).dot(model.planes[j].normal) < 0.0)
                    where[i] = static_cast<std::int64_t>(j);
            for (std::size_t j = 0; j < placed.size() && where[i] < 0; ++j) {
                const Placed& pl = placed[j];
                if ((x.array() < pl.world.min.array()).any() ||
                    (x.array() > pl.world.max.array()).any())
                    continue;
                const auto b = static_cast<std::size_t>(bodies_[pl.k].body);
                if (inside_[b].contains(model.bodies[b].mesh(), pl.A_inv * (x - pl.p)))
                    where[i] = static_cast<std::int64_t>(n_planes + j);
            }
        }
    });
    // In particle order: the bodies' impulses add up the same whatever the thread count.
    int moved = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (where[i] < 0) continue;
        ++moved;
        Vec3& x = p.x[i];
        Vec3& v = p.v[i];
        const auto w = static_cast<std::size_t>(where[i]);
        if (w < n_planes) {  // planes stand still
            const Vec3 normal = model.planes[w].normal.normalized();
            x += (margin - (x - model.planes[w].point).dot(normal)) * normal;
            const double vn = v.dot(normal);
            if (impulse && vn < 0.0) v -= vn * normal;
            continue;
        }
        const Placed& pl = placed[w - n_planes];
        const auto b = static_cast<std::size_t>(bodies_[pl.k].body);
        const Vec3 X = pl.A_inv * (x - pl.p);
        const Vec3 C = closest_point_on_mesh(model.bodies[b].mesh(), X);
        const Vec3 c = pl.p + pl.A * C;
        Vec3 out = c - x;  // from inside to the surface: outwards whatever the winding
        if (!(out.norm() > 1e-12)) out = c - (pl.p + pl.A * inside_[b].bounds().center());
        out.normalize();
        x = c + margin * out;
        if (!impulse) continue;  // settle: positions only
        const Vec3 v_surface = pl.p_dot + pl.A_dot * C;
        const double vn = (v - v_surface).dot(out);
        const Vec3 v_new = vn < 0.0 ? Vec3(v - vn * out) : v;
        // Newton's third law: the body takes the opposite of the particle's momentum change,
        // at the surface point C (body coordinates), as a generalised impulse.
        const Vec3 I = -p.mass * (v_new - v);
        Vec12& gen = (*impulse)[pl.k];
        gen.head<3>() += I;
        for (int r = 0; r < 3; ++r) gen.segment<3>(3 + 3 * r) += I[r] * C;
        v = v_new;
    }
    return moved;
}

int FluidCoupling::settle(const WorldModel& model, const VecX& q, FluidParticles* p,
                          std::size_t n) {
    std::vector<BodyMotion> at_rest(bodies_.size());
    for (std::size_t k = 0; k < bodies_.size(); ++k)
        at_rest[k].q = q.segment<12>(12 * static_cast<Eigen::Index>(bodies_[k].body));
    if (!p) {
        p = &fluid_;
        n = fluid_.size();
    }
    return push_out(model, at_rest, *p, n, nullptr);
}

int FluidCoupling::particles_in_bodies(const WorldModel& model, const VecX& q) const {
    return count_inside(model, q, fluid_.x, nullptr);
}

int FluidCoupling::points_in_bodies(const WorldModel& model, const VecX& q,
                                    const std::vector<Vec3>& x, std::size_t count) const {
    return count_inside(model, q,
                        std::vector<Vec3>(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(
                                                                     std::min(count, x.size()))),
                        nullptr);
}

int FluidCoupling::count_inside(const WorldModel& model, const VecX& q, const std::vector<Vec3>& x,
                                std::string* where) const {
    struct Placed {
        std::size_t body;
        Vec3 p;
        Mat3 Ainv;
        AABB world, local;
    };
    std::vector<Placed> placed;
    for (std::size_t b = 0; b < model.bodies.size(); ++b) {
        if (!closed_[b]) continue;
        Placed pl;
        pl.body = b;
        pl.p = q.segment<3>(12 * static_cast<Eigen::Index>(b));
        const Mat3 A = frame_of(q, static_cast<int>(b));
        pl.Ainv = A.inverse();
        pl.local = inside_[b].bounds();
        for (int c = 0; c < 8; ++c) {
            const Vec3 corner((c & 1) ? pl.local.max.x() : pl.local.min.x(),
                              (c & 2) ? pl.local.max.y() : pl.local.min.y(),
                              (c & 4) ? pl.local.max.z() : pl.local.min.z());
            pl.world.expand(pl.p + A * corner);
        }
        placed.push_back(pl);
    }
    std::atomic<int> count{0};
    // The first point inside, for the message (the lowest index: the same whatever the threads).
    std::atomic<std::size_t> first{x.size()};
    std::atomic<int> first_what{-2};  // -1: a plane; b >= 0: placed[b]
    std::mutex first_mutex;
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, x.size(), 1024), [&](const auto& r) {
        int local_count = 0;
        for (std::size_t i = r.begin(); i < r.end(); ++i) {
            int what = -2;
            for (const HalfSpace& plane : model.planes)
                if ((x[i] - plane.point).dot(plane.normal) < 0.0) what = -1;
            for (std::size_t k = 0; k < placed.size() && what == -2; ++k) {
                const Placed& pl = placed[k];
                if ((x[i].array() < pl.world.min.array()).any() ||
                    (x[i].array() > pl.world.max.array()).any())
                    continue;
                if (inside_[pl.body].contains(model.bodies[pl.body].mesh(),
                                              pl.Ainv * (x[i] - pl.p)))
                    what = static_cast<int>(pl.body);
            }
            if (what == -2) continue;
            ++local_count;
            if (where) {
                std::lock_guard<std::mutex> lock(first_mutex);
                if (i < first.load()) {
                    first = i;
                    first_what = what;
                }
            }
        }
        count += local_count;
    });
    if (where && count.load() > 0)
        *where =
            first_what.load() < 0
                ? std::string("a plane")
                : "body \"" + model.bodies[static_cast<std::size_t>(first_what.load())].name + "\"";
    return count.load();
}

}  // namespace concord
