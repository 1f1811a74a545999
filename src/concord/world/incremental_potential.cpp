#include "concord/world/incremental_potential.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "concord/collision/broad_phase/body_pair_filter.hpp"
#include "concord/collision/broad_phase/envelope_broad_phase.hpp"
#include "concord/collision/ccd/additive_ccd.hpp"
#include "concord/collision/distance/edge_edge.hpp"
#include "concord/collision/distance/point_triangle.hpp"
#include "concord/math/parallel_select.hpp"

namespace concord {

namespace {
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}
}  // namespace

IncrementalPotential::IncrementalPotential(
    const ContactSurface& surface, const std::vector<HalfSpace>& planes,
    IncrementalPotentialConfig config, InertiaEnergy& inertia, OrthogonalityEnergy& orthogonality,
    InertiaEnergy& kinematic_target, BarrierEnergy& barrier, FrictionEnergy& friction)
    : surface_(surface),
      planes_(planes),
      config_(std::move(config)),
      inertia_(inertia),
      orthogonality_(orthogonality),
      kinematic_target_(kinematic_target),
      barrier_(barrier),
      friction_(friction) {
    for (bool m : config_.body_movable) body_static_.push_back(m ? 0 : 1);
    pair_filter_ = contact_pair_filter(body_static_, config_.excluded_pairs);
}

void IncrementalPotential::reset() {
    candidates_valid_ = false;
    contacts_current_ = false;
    peak_candidates_ = 0;
    previous_min_distance_sq_ = std::numeric_limits<double>::infinity();
}

ContactSet IncrementalPotential::contact_set_at(const VecX& q) const {
    return build_contact_set(surface_, surface_.positions(q), candidates_, plane_candidates_,
                             planes_, config_.dhat);
}

void IncrementalPotential::mark_covered(const VecX& q) {
    covered_at_ = q;
    covered_valid_ = true;
}

void IncrementalPotential::refresh_contacts(const VecX& q, const VecX* ahead) {
    if (!ahead && covered_valid_ && covered_at_.size() == q.size() && covered_at_ == q) {
        // The contact set at q is already held (a step's start, queried with its prediction
        // ahead, then again for the friction lag and the first Newton iteration; an ADMM
        // iteration's solve starting where the last one ended).
        peak_candidates_ = std::max(peak_candidates_, num_candidates());
        barrier_.set_contacts(&contacts_);
        candidates_valid_ = true;
        contacts_current_ = false;
        return;
    }
    const auto t0 = Clock::now();
    ++contact_queries_;
    const Vertices x = surface_.positions(q);
    BroadPhaseParams bp;
    bp.dhat = config_.dhat;
    bp.body_pair_filter = pair_filter_;
    if (ahead) {
        const Vertices x_ahead = surface_.positions(*ahead);
        candidates_ = broad_phase_.find(surface_.mesh, x, x, bp, &x_ahead);
    } else {
        candidates_ = broad_phase_.find(surface_.mesh, x, x, bp);
    }
    plane_candidates_ =
        point_plane_candidates(surface_, x, x, planes_, config_.body_movable, config_.dhat);
    peak_candidates_ = std::max(peak_candidates_, num_candidates());
    contacts_ =
        build_contact_set(surface_, x, candidates_, plane_candidates_, planes_, config_.dhat);
    barrier_.set_contacts(&contacts_);
    candidates_valid_ = true;
    contacts_current_ = false;
    mark_covered(q);
    t_collision_ += seconds_since(t0);
}

const Energy& IncrementalPotential::contact_term() const {
    if (al_) return *al_;
    return barrier_;
}

void IncrementalPotential::begin_iteration(const VecX& x) {
    if (al_) return;  // the constraints are linearised by linearize_constraints
    if (!candidates_valid_) {
        refresh_contacts(x);
        return;
    }
    if (contacts_current_) {  // accepted() already built the contact set at x
        contacts_current_ = false;
        return;
    }
    // The cached candidates came from the swept boxes of the last line-search segment, which
    // contains x: every pair within dhat at x is among them.
    const auto t0 = Clock::now();
    contacts_ = contact_set_at(x);
    barrier_.set_contacts(&contacts_);
    mark_covered(x);
    t_collision_ += seconds_since(t0);
}

double IncrementalPotential::energy(const VecX& x) {
    const double h2 = config_.time_step * config_.time_step;
    if (al_)
        return inertia_.value(x) + h2 * orthogonality_.value(x) + kinematic_target_.value(x) +
               al_->value(x) + friction_.value(x) + extra_value(x);
    const auto t0 = Clock::now();
    const ContactSet trial = contact_set_at(x);
    t_collision_ += seconds_since(t0);
    if (trial.min_distance_sq <= 0.0) return std::numeric_limits<double>::infinity();
    barrier_.set_contacts(&trial);
    const double e = inertia_.value(x) + h2 * orthogonality_.value(x) + kinematic_target_.value(x) +
                     barrier_.value(x) + friction_.value(x) + extra_value(x);
    barrier_.set_contacts(&contacts_);
    return e;
}

void IncrementalPotential::gradient(const VecX& x, VecX& g) {
    const double h2 = config_.time_step * config_.time_step;
    VecX go = VecX::Zero(x.size());
    orthogonality_.add_gradient(x, go);
    g += h2 * go;
    inertia_.add_gradient(x, g);
    kinematic_target_.add_gradient(x, g);
    contact_term().add_gradient(x, g);
    friction_.add_gradient(x, g);
    for (const Energy* t : extra_terms_) t->add_gradient(x, g);
}

void IncrementalPotential::split_gradients(const VecX& q, VecX& g_rest, VecX& g_barrier_unit) {
    g_rest = VecX::Zero(q.size());
    gradient(q, g_rest);
    VecX gb = VecX::Zero(q.size());
    barrier_.add_gradient(q, gb);
    g_rest -= gb;
    const double kappa = barrier_.stiffness();
    g_barrier_unit = kappa > 0 ? VecX(gb / kappa) : VecX(gb);
}

void IncrementalPotential::hessian(const VecX& x, HessianBlocks& H,
                                   bool project_psd) {
    const double h2 = config_.time_step * config_.time_step;
    const std::size_t before = H.size();
    orthogonality_.add_hessian(x, H, project_psd);
    H.scale_from(before, h2);
    inertia_.add_hessian(x, H, project_psd);
    kinematic_target_.add_hessian(x, H, project_psd);
    contact_term().add_hessian(x, H, project_psd);
    friction_.add_hessian(x, H, project_psd);
    for (const Energy* t : extra_terms_) t->add_hessian(x, H, project_psd);
}

double IncrementalPotential::extra_value(const VecX& x) const {
    double e = 0.0;
    for (const Energy* t : extra_terms_) e += t->value(x);
    return e;
}

bool IncrementalPotential::trial_gradient(const VecX& x, VecX& g) {
    if (al_) return NewtonProblem::trial_gradient(x, g);
    // Like energy(): the contact set at x from the candidates of the current segment.
    const auto t0 = Clock::now();
    const ContactSet trial = contact_set_at(x);
    t_collision_ += seconds_since(t0);
    if (trial.min_distance_sq <= 0.0) return false;
    g = VecX::Zero(x.size());
    barrier_.set_contacts(&trial);
    gradient(x, g);
    barrier_.set_contacts(&contacts_);
    return true;
}

ResidualGroups IncrementalPotential::residual_groups() const {
    // Body b's residual is h^2 times a generalised force: weight the translational part by the
    // body's weight h^2 m g* and the affine part by its weight times its lever arm, so that
    // gravity loading has norm ~1 (docs/solver.md).
    const int num_bodies = static_cast<int>(config_.body_movable.size());
    ResidualGroups groups;
    groups.begin.resize(static_cast<std::size_t>(num_bodies) + 1);
    groups.weight = VecX::Ones(12 * num_bodies);
    const double h2 = config_.time_step * config_.time_step;
    for (int b = 0; b <= num_bodies; ++b) groups.begin[static_cast<std::size_t>(b)] = 12 * b;
    for (int b = 0; b < num_bodies; ++b) {
        const auto i = static_cast<std::size_t>(b);
        if (i >= config_.body_mass.size() || i >= config_.body_lever_arm.size()) continue;
        const double force = h2 * config_.body_mass[i] * config_.characteristic_acceleration;
        const double torque = force * config_.body_lever_arm[i];
        if (!(force > 0.0) || !(torque > 0.0)) continue;
        groups.weight.segment<3>(12 * b).setConstant(1.0 / (force * force));
        groups.weight.segment<9>(12 * b + 3).setConstant(1.0 / (torque * torque));
    }
    // Modal coordinates: one group per elastic body, each coordinate's generalised force
    // weighted by the body's weight times the mode's largest displacement.
    const int n_modal = static_cast<int>(config_.modal_scale.size());
    if (n_modal == 0) return groups;
    groups.weight.conservativeResize(12 * num_bodies + n_modal);
    for (int i = 0; i < n_modal; ++i) {
        const auto k = static_cast<std::size_t>(i);
        const auto b = static_cast<std::size_t>(config_.modal_body[k]);
        const double force = h2 * config_.body_mass[b] * config_.characteristic_acceleration *
                             config_.modal_scale[k];
        groups.weight[12 * num_bodies + i] = force > 0.0 ? 1.0 / (force * force) : 1.0;
        if (i == 0 || config_.modal_body[k] != config_.modal_body[k - 1])
            groups.begin.push_back(12 * num_bodies + i + 1);
        else
            groups.begin.back() = 12 * num_bodies + i + 1;
    }
    return groups;
}

double IncrementalPotential::ccd_step(const VecX& q0, const VecX& q1) {
    if (!surface_.has_elastic()) return ccd_chord_step(q0, q1, VecX());
    // Elastic vertices move on curves, not on the chords the CCD examines: certify the chords
    // with the curves' deviation bound as extra separation. The bound shrinks with the square
    // of the segment, so when a pair starts within it the segment is shortened and certified
    // again; what is returned is always certified for the curved path.
    double segment = 1.0;
    for (int attempt = 0; attempt < 8; ++attempt) {
        const VecX q1s = q0 + segment * (q1 - q0);
        const double toi = ccd_chord_step(q0, q1s, surface_.chord_deviation(q0, q1s));
        if (toi > 0.0) return segment * toi;
        segment *= 0.25;
    }
    return 0.0;
}

double IncrementalPotential::ccd_chord_step(const VecX& q0, const VecX& q1, const VecX& dev) {
    const auto t0 = Clock::now();
    const Vertices x0 = surface_.positions(q0);
    const Vertices x1 = surface_.positions(q1);
    // dev[v]: how far vertex v's true path may stray from its chord (elastic bodies).
    auto dv = [&](int v) { return dev.size() > 0 ? dev[v] : 0.0; };
    const double max_dev = dev.size() > 0 ? dev.maxCoeff() : 0.0;
    BroadPhaseParams bp;
    bp.dhat = config_.dhat + 2.0 * max_dev;
    bp.body_pair_filter = pair_filter_;
    candidates_ = broad_phase_.find(surface_.mesh, x0, x1, bp);
    covered_valid_ = false;  // the segment's candidates; accepted() marks its end point
    plane_candidates_ = point_plane_candidates(surface_, x0, x1, planes_, config_.body_movable,
                                               config_.dhat + max_dev);
    peak_candidates_ = std::max(peak_candidates_, num_candidates());
    candidates_valid_ = true;

    auto X0 = [&](int v) -> Vec3 { return x0.row(v).transpose(); };
    auto X1 = [&](int v) -> Vec3 { return x1.row(v).transpose(); };
    const auto& f = surface_.mesh.faces;
    const auto& e = surface_.mesh.edges;
    const auto& pt = candidates_.point_triangle;
    const auto& ee = candidates_.edge_edge;
    // Per-candidate times of impact in parallel; the minimum is order independent.
    std::vector<double> toi(pt.size() + ee.size(), 1.0);
    // The energies along the segment only need the candidates that can come within dhat on
    // it: the distance at x0 minus how far the pair's vertices move (a point of a primitive
    // moves at most as far as its farthest vertex) bounds the distance at every point of the
    // segment from below. Dropping the others (most of them, next to large triangles) makes
    // each line-search trial's contact set cheaper; the contacts found are the same.
    VecX move(x0.rows());
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, x0.rows(), 8192),
                      [&](const tbb::blocked_range<Eigen::Index>& r) {
                          for (Eigen::Index v = r.begin(); v != r.end(); ++v)
                              move[v] = (x1.row(v) - x0.row(v)).norm();
                      });
    // The CCD's own first evaluation (CCDResult::start_distance, a lower bound of the distance
    // at x0) settles most pairs; only those it leaves within reach get the exact distance (the
    // bound is loose for nearly parallel edges, which would keep too many).
    auto may_reach = [&](double start_distance, double travel, auto&& exact_distance_sq) {
        const double reach = 1.01 * (config_.dhat + travel);  // slack for rounding
        return !(start_distance >= reach) && exact_distance_sq() < reach * reach;
    };
    std::vector<std::uint8_t> keep(pt.size() + ee.size(), 0);
    tbb::parallel_for(std::size_t(0), pt.size(), [&](std::size_t i) {
        const auto& c = pt[i];
        const Vec3 p = X0(c.vertex), a = X0(f(c.face, 0)), b = X0(f(c.face, 1)),
                   d = X0(f(c.face, 2));
        const double pair_dev =
            dv(c.vertex) + std::max({dv(f(c.face, 0)), dv(f(c.face, 1)), dv(f(c.face, 2))});
        const double travel = move[c.vertex] +
                              std::max({move[f(c.face, 0)], move[f(c.face, 1)],
                                        move[f(c.face, 2)]}) + pair_dev;
        CCDParams params = config_.ccd;
        params.min_separation += pair_dev;
        const CCDResult r = point_triangle_ccd(p, a, b, d, X1(c.vertex), X1(f(c.face, 0)),
                                               X1(f(c.face, 1)), X1(f(c.face, 2)), params);
        keep[i] = may_reach(r.start_distance, travel,
                            [&] { return point_triangle_distance_sq(p, a, b, d); });
        if (r.collides) toi[i] = r.toi;
    });
    tbb::parallel_for(std::size_t(0), ee.size(), [&](std::size_t i) {
        const auto& c = ee[i];
        const Vec3 a0 = X0(e(c.edge_a, 0)), a1 = X0(e(c.edge_a, 1)), b0 = X0(e(c.edge_b, 0)),
                   b1 = X0(e(c.edge_b, 1));
        const double pair_dev = std::max(dv(e(c.edge_a, 0)), dv(e(c.edge_a, 1))) +
                                std::max(dv(e(c.edge_b, 0)), dv(e(c.edge_b, 1)));
        const double travel = std::max(move[e(c.edge_a, 0)], move[e(c.edge_a, 1)]) +
                              std::max(move[e(c.edge_b, 0)], move[e(c.edge_b, 1)]) + pair_dev;
        CCDParams params = config_.ccd;
        params.min_separation += pair_dev;
        const CCDResult r =
            edge_edge_ccd(a0, a1, b0, b1, X1(e(c.edge_a, 0)), X1(e(c.edge_a, 1)),
                          X1(e(c.edge_b, 0)), X1(e(c.edge_b, 1)), params);
        keep[pt.size() + i] = may_reach(r.start_distance, travel,
                                        [&] { return edge_edge_distance_sq(a0, a1, b0, b1); });
        if (r.collides) toi[pt.size() + i] = r.toi;
    });
    // (A minimum: the same whatever the blocks.)
    double alpha = tbb::parallel_reduce(
        tbb::blocked_range<std::size_t>(0, toi.size(), 8192), 1.0,
        [&](const tbb::blocked_range<std::size_t>& r, double a) {
            for (std::size_t i = r.begin(); i != r.end(); ++i) a = std::min(a, toi[i]);
            return a;
        },
        [](double a, double b) { return std::min(a, b); });
    if (collect_hits_) {
        // Every pair the CCD stopped on the way (libuipc joins those below 1 - 1e-6).
        hits_ = parallel_select<AlPairKey>(
            toi.size(), [&](std::size_t i) { return toi[i] < 1.0 - 1e-6; },
            [&](std::size_t i) -> AlPairKey {
                if (i < pt.size()) return {AlPairKey::PointTriangle, pt[i].vertex, pt[i].face};
                const auto& c = ee[i - pt.size()];
                return {AlPairKey::EdgeEdge, c.edge_a, c.edge_b};
            });
    }
    // (The CCD still ran on every candidate: it stops at a fraction of the initial gap, which
    // a far pair can reach without coming within dhat.)
    Candidates near;
    near.point_triangle = parallel_select<PointTriangleCandidate>(
        pt.size(), [&](std::size_t i) { return keep[i] != 0; },
        [&](std::size_t i) { return pt[i]; });
    near.edge_edge = parallel_select<EdgeEdgeCandidate>(
        ee.size(), [&](std::size_t i) { return keep[pt.size() + i] != 0; },
        [&](std::size_t i) { return ee[i]; });
    candidates_ = std::move(near);
    // Half-spaces: the signed distance is linear in t along the segment; stop at the fraction
    // s of the way to contact, as the additive CCD does for pairs.
    const double s = config_.ccd.conservative_rescaling;
    for (const auto& c : plane_candidates_) {
        const HalfSpace& h = planes_[static_cast<std::size_t>(c.plane)];
        // The curved path stays within dv of the chord: lower both ends by it.
        const double d0 = plane_signed_distance(h, X0(c.vertex)) - dv(c.vertex);
        const double d1 = plane_signed_distance(h, X1(c.vertex)) - dv(c.vertex);
        if (d0 <= 0.0) {
            alpha = 0.0;
            continue;
        }
        if (d1 >= (1.0 - s) * d0) continue;
        alpha = std::min(alpha, s * d0 / (d0 - d1));
        if (collect_hits_) hits_.push_back({AlPairKey::PointPlane, c.vertex, c.plane});
    }
    t_collision_ += seconds_since(t0);
    return alpha;
}

double IncrementalPotential::max_step(const VecX& x, const VecX& dx) {
    return ccd_step(x, x + dx);
}

double IncrementalPotential::step_measure(const VecX& dx) {
    // Largest vertex displacement bound per body: |dp| + |dA| r, over h l (IPC's criterion
    // ||dx||_inf / (h l), with the affine part turned into a displacement).
    double m = 0.0;
    const int num_bodies = static_cast<int>(config_.body_movable.size());
    for (int b = 0; b < num_bodies; ++b) {
        if (!config_.body_movable[static_cast<std::size_t>(b)]) continue;
        const Vec12 d = dx.segment<12>(12 * b);
        const double disp =
            d.head<3>().cwiseAbs().maxCoeff() +
            d.tail<9>().cwiseAbs().maxCoeff() * config_.body_radius[static_cast<std::size_t>(b)];
        m = std::max(m, disp);
    }
    // A modal coordinate moves points by at most its change times the mode's largest value.
    for (std::size_t i = 0; i < config_.modal_scale.size(); ++i)
        m = std::max(m, std::abs(dx[12 * num_bodies + static_cast<Eigen::Index>(i)]) *
                            config_.modal_scale[i]);
    return m / (config_.time_step * config_.scene_scale);
}

NewtonProblem::StepRates IncrementalPotential::step_rates(const VecX& dx) {
    // libuipc's affine-body criterion: translations and affine entries separately. A modal
    // coordinate moves points by at most its change times the mode's largest value: counted as
    // a translation.
    double translation = 0.0, affine = 0.0;
    const int num_bodies = static_cast<int>(config_.body_movable.size());
    for (int b = 0; b < num_bodies; ++b) {
        if (!config_.body_movable[static_cast<std::size_t>(b)]) continue;
        const Vec12 d = dx.segment<12>(12 * b);
        translation = std::max(translation, d.head<3>().cwiseAbs().maxCoeff());
        affine = std::max(affine, d.tail<9>().cwiseAbs().maxCoeff());
    }
    for (std::size_t i = 0; i < config_.modal_scale.size(); ++i)
        translation = std::max(translation, std::abs(dx[12 * num_bodies + static_cast<Eigen::Index>(i)]) *
                                                config_.modal_scale[i]);
    return {translation / config_.time_step, affine / config_.time_step};
}

void IncrementalPotential::linearize_constraints(const VecX& x_admissible, const VecX& x) {
    al_->linearize(x_admissible, x);
}

void IncrementalPotential::update_multipliers(const VecX& x) {
    al_->update_multipliers(x);
}

double IncrementalPotential::advance_admissible(const VecX& x_admissible, const VecX& x) {
    if ((x - x_admissible).squaredNorm() == 0.0) return 1.0;
    collect_hits_ = true;
    hits_.clear();
    const double t = ccd_step(x_admissible, x);
    collect_hits_ = false;
    const auto t0 = Clock::now();
    al_->join(hits_);
    t_collision_ += seconds_since(t0);
    return t;
}

void IncrementalPotential::constrain_contacts(const VecX& x) {
    if (!hybrid_al_ || al_)
        throw std::logic_error("IncrementalPotential::constrain_contacts: no hybrid contact to switch to");
    refresh_contacts(x);
    hybrid_al_->take_over(contacts_, barrier_.normal_forces(x), x, barrier_.stiffness());
    al_ = hybrid_al_;
}

void IncrementalPotential::release_contacts() {
    if (!hybrid_al_ || al_ != hybrid_al_) return;
    al_ = nullptr;  // (the constraints keep their multipliers: StepSystem carries them)
    // The barrier's contacts and candidates are those of an earlier iterate.
    candidates_valid_ = false;
    contacts_current_ = false;
    covered_valid_ = false;
}

double IncrementalPotential::min_distance() const {
    return std::sqrt(contacts_.min_distance_sq);
}

void IncrementalPotential::accepted(const VecX& x) {
    if (al_) return;  // no contact set and no barrier stiffness to adapt
    // IPC's adaptive stiffness: if the closest pair keeps getting closer while already within
    // a tiny fraction of the scene size, the barrier is too soft: double kappa.
    const auto t0 = Clock::now();
    contacts_ = contact_set_at(x);
    barrier_.set_contacts(&contacts_);
    contacts_current_ = true;
    mark_covered(x);
    t_collision_ += seconds_since(t0);
    const double eps = 1e-9 * config_.scene_scale;
    const double eps_sq = eps * eps;
    const double d_sq = contacts_.min_distance_sq;
    if (previous_min_distance_sq_ < eps_sq && d_sq < eps_sq && d_sq < previous_min_distance_sq_ &&
        kappa_max_ > 0)
        barrier_.set_stiffness(std::min(kappa_max_, 2.0 * barrier_.stiffness()));
    previous_min_distance_sq_ = d_sq;
}

}  // namespace concord
