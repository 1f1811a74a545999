#include "concord/distributed/distributed_fluid.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

#include "concord/distributed/message.hpp"

namespace concord {

namespace {

/// Particles with ids: count, then id, x, v, p each.
void put_particles(MessageWriter& w, const std::vector<std::int64_t>& ids,
                   const std::vector<Vec3>& x, const std::vector<Vec3>& v,
                   const std::vector<double>& p, std::size_t count) {
    w.put(static_cast<std::int64_t>(count));
    for (std::size_t i = 0; i < count; ++i) {
        w.put(ids[i]);
        w.put_vec3(x[i]);
        w.put_vec3(v[i]);
        w.put(p[i]);
    }
}

struct Particles {
    std::vector<std::int64_t> ids;
    std::vector<Vec3> x, v;
    std::vector<double> p;
};
Particles get_particles(MessageReader& r) {
    Particles out;
    const auto n = r.get<std::int64_t>();
    if (n < 0) throw std::runtime_error("fluid: a particle message of negative size");
    for (std::int64_t k = 0; k < n; ++k) {
        out.ids.push_back(r.get<std::int64_t>());
        out.x.push_back(r.get_vec3());
        out.v.push_back(r.get_vec3());
        out.p.push_back(r.get<double>());
    }
    return out;
}

Bytes command(CommandKind kind) {
    return MessageWriter().put(kind).take();
}

}  // namespace

// --- controller ---------------------------------------------------------------------------------

FluidController::FluidController(const WorldModel& model, Transport& transport)
    : model_(model), transport_(transport), coupling_(model), initial_(coupling_.capture()) {}

void FluidController::scatter(const FluidState& state, const Partition& partition) {
    coupling_.restore(state);
    const int n_workers = transport_.num_workers();
    std::vector<std::vector<std::size_t>> cell(static_cast<std::size_t>(n_workers));
    for (std::size_t i = 0; i < state.x.size(); ++i)
        cell[static_cast<std::size_t>(partition.worker_of_point(state.x[i]))].push_back(i);
    for (int w = 0; w < n_workers; ++w) {
        MessageWriter msg;
        msg.put(CommandKind::FluidSet);
        put_partition(msg, partition);
        const auto& list = cell[static_cast<std::size_t>(w)];
        msg.put(static_cast<std::int64_t>(list.size()));
        for (const std::size_t i : list) {
            msg.put(static_cast<std::int64_t>(i));
            msg.put_vec3(state.x[i]);
            msg.put_vec3(state.v[i]);
            msg.put(state.pressure[i]);
        }
        transport_.send(w + 1, Tag::Command, msg.take());
    }
    stale_ = false;
}

std::vector<Vec12> FluidController::advance(const WorldState& s, double h,
                                            const Partition& partition, FluidStepStats& stats,
                                            std::vector<double>& work,
                                            std::vector<double>& seconds) {
    const int n_workers = transport_.num_workers();
    MessageWriter msg;
    msg.put(CommandKind::FluidStep).put(h).put(s.time).put_vector(s.q).put_vector(s.q_dot);
    put_partition(msg, partition);
    const Bytes cmd = msg.take();
    for (int w = 1; w <= n_workers; ++w) transport_.send(w, Tag::Command, cmd);
    std::vector<Vec12> impulse;
    stats = FluidStepStats{};
    stats.particles = num_particles();
    work.assign(static_cast<std::size_t>(n_workers), 0.0);
    seconds.assign(static_cast<std::size_t>(n_workers), 0.0);
    std::vector<double> parallel_segments;
    double sync = 0.0;
    for (int w = 1; w <= n_workers; ++w) {
        const Bytes b = transport_.receive(w, Tag::FluidResult);
        MessageReader r(b);
        FluidStepStats ws;
        ws.substeps = r.get<int>();
        ws.pressure_iterations = r.get<int>();
        ws.density_error = r.get<double>();
        ws.converged = r.get<bool>();
        ws.t_fluid = r.get<double>();
        ws.t_neighbors = r.get<double>();
        ws.t_pressure = r.get<double>();
        ws.t_coupling = r.get<double>();
        ws.pushed_out = r.get<int>();
        const auto owned = r.get<std::int64_t>();
        std::vector<Vec12> imp(static_cast<std::size_t>(r.get<std::int64_t>()));
        for (Vec12& g : imp)
            for (int k = 0; k < 12; ++k) g[k] = r.get<double>();
        const std::vector<double> segments = r.get_list<double>();
        const double transfer = r.get<double>();
        // Segment k of every worker runs between the same two exchanges: the slowest one's
        // time is the stage's parallel time over it.
        if (w == 1) parallel_segments.assign(segments.size(), 0.0);
        if (segments.size() != parallel_segments.size())
            throw std::runtime_error("fluid: worker " + std::to_string(w) +
                                     " went through another number of exchanges");
        for (std::size_t k = 0; k < segments.size(); ++k)
            parallel_segments[k] = std::max(parallel_segments[k], segments[k]);
        sync = std::max(sync, transfer);
        // Every worker took the same fluid steps and pressure iterations (the reductions) and
        // holds the same impulses; the times are the slowest worker's (they run in parallel).
        if (w == 1) {
            impulse = imp;
            stats.substeps = ws.substeps;
            stats.pressure_iterations = ws.pressure_iterations;
            stats.density_error = ws.density_error;
            stats.pushed_out = ws.pushed_out;  // summed over the workers already
        } else if (imp != impulse || ws.substeps != stats.substeps) {
            throw std::runtime_error("fluid: worker " + std::to_string(w) +
                                     " disagrees with worker 1 about the step");
        }
        stats.converged = stats.converged && ws.converged;
        stats.t_fluid = std::max(stats.t_fluid, ws.t_fluid);
        stats.t_neighbors = std::max(stats.t_neighbors, ws.t_neighbors);
        stats.t_pressure = std::max(stats.t_pressure, ws.t_pressure);
        stats.t_coupling = std::max(stats.t_coupling, ws.t_coupling);
        work[static_cast<std::size_t>(w - 1)] = static_cast<double>(owned) * ws.substeps;
        seconds[static_cast<std::size_t>(w - 1)] = ws.t_fluid;
    }
    stale_ = true;
    t_parallel_ = sync;
    for (const double t : parallel_segments) t_parallel_ += t;
    t_sync_ = sync;
    return impulse;
}

void FluidController::restore() {
    const Bytes cmd = command(CommandKind::FluidRestore);
    for (int w = 1; w <= transport_.num_workers(); ++w) transport_.send(w, Tag::Command, cmd);
}

int FluidController::settle(const VecX& q, int& inside) {
    const double transfer0 = transport_.transfer_seconds();
    MessageWriter msg;
    msg.put(CommandKind::FluidCheck).put_vector(q);
    const Bytes cmd = msg.take();
    for (int w = 1; w <= transport_.num_workers(); ++w) transport_.send(w, Tag::Command, cmd);
    std::int64_t settled = 0, total = 0;
    double slowest = 0.0;
    for (int w = 1; w <= transport_.num_workers(); ++w) {
        const Bytes b = transport_.receive(w, Tag::FluidResult);
        MessageReader r(b);
        settled += r.get<std::int64_t>();
        total += r.get<std::int64_t>();
        slowest = std::max(slowest, r.get<double>());
    }
    // The workers check alongside each other; the commands and answers, one after another.
    t_settle_ = slowest + (transport_.transfer_seconds() - transfer0);
    stale_ = true;
    inside = static_cast<int>(total);
    return static_cast<int>(settled);
}

const FluidParticles& FluidController::particles() {
    if (!stale_) return coupling_.particles();
    const Bytes cmd = command(CommandKind::FluidGather);
    for (int w = 1; w <= transport_.num_workers(); ++w) transport_.send(w, Tag::Command, cmd);
    FluidState s = coupling_.capture();
    std::size_t received = 0;
    for (int w = 1; w <= transport_.num_workers(); ++w) {
        const Bytes b = transport_.receive(w, Tag::FluidResult);
        MessageReader r(b);
        const Particles part = get_particles(r);
        for (std::size_t k = 0; k < part.ids.size(); ++k) {
            const auto i = static_cast<std::size_t>(part.ids[k]);
            if (part.ids[k] < 0 || i >= s.x.size())
                throw std::runtime_error("fluid: a worker sent a particle id out of range");
            s.x[i] = part.x[k];
            s.v[i] = part.v[k];
            s.pressure[i] = part.p[k];
        }
        received += part.ids.size();
    }
    if (received != s.x.size())
        throw std::runtime_error("fluid: the workers hold " + std::to_string(received) +
                                 " particles, the fluid has " + std::to_string(s.x.size()));
    coupling_.restore(s);
    stale_ = false;
    return coupling_.particles();
}

FluidState FluidController::capture() {
    particles();
    return coupling_.capture();
}

// --- worker -------------------------------------------------------------------------------------

FluidWorker::FluidWorker(const WorldModel& model, Transport& transport)
    : model_(model), transport_(transport), acceleration_(model.bodies.size(), Vec12::Zero()) {}

void FluidWorker::handle(CommandKind kind, MessageReader& r) {
    switch (kind) {
        case CommandKind::FluidSet: {
            const Partition partition = get_partition(r);
            Particles part = get_particles(r);
            if (!coupling_) coupling_ = std::make_unique<FluidCoupling>(model_);
            if (!domain_)
                domain_ = std::make_unique<FluidDomain>(transport_, coupling_->material(),
                                                        coupling_->particles().mass, partition);
            domain_->set_partition(partition);
            domain_->set_particles(std::move(part.ids), std::move(part.x), std::move(part.v),
                                   std::move(part.p));
            std::fill(acceleration_.begin(), acceleration_.end(), Vec12::Zero());
            return;
        }
        case CommandKind::FluidStep: {
            if (!domain_) throw std::runtime_error("worker: a fluid step before the particles");
            const double h = r.get<double>();
            WorldState s;
            s.time = r.get<double>();
            s.q = r.get_vector();
            s.q_dot = r.get_vector();
            domain_->set_partition(get_partition(r));
            // Kept for FluidRestore: the owned particles before the stage.
            const FluidParticles& p = domain_->particles();
            const std::size_t n = domain_->owned();
            saved_ids_ = domain_->ids();
            saved_x_.assign(p.x.begin(), p.x.begin() + static_cast<std::ptrdiff_t>(n));
            saved_v_.assign(p.v.begin(), p.v.begin() + static_cast<std::ptrdiff_t>(n));
            saved_p_.assign(p.pressure.begin(),
                            p.pressure.begin() + static_cast<std::ptrdiff_t>(n));
            FluidStepStats stats;
            const double transfer0 = transport_.transfer_seconds();
            domain_->start_timing();
            const std::vector<Vec12> impulse =
                coupling_->advance(model_, s, h, stats, domain_.get());
            const std::vector<double> segments = domain_->segments();
            // As World::advance_fluid: the fluid's force over the step, M^-1 J^T f.
            for (std::size_t i = 0; i < impulse.size(); ++i)
                acceleration_[i] = model_.dynamic[i]
                                       ? Vec12(model_.masses[i].ldlt().solve(impulse[i]) / h)
                                       : Vec12(Vec12::Zero());
            MessageWriter w;
            w.put(stats.substeps).put(stats.pressure_iterations).put(stats.density_error);
            w.put(stats.converged).put(stats.t_fluid).put(stats.t_neighbors).put(stats.t_pressure);
            w.put(stats.t_coupling).put(stats.pushed_out);
            w.put(static_cast<std::int64_t>(domain_->owned()));
            w.put(static_cast<std::int64_t>(impulse.size()));
            for (const Vec12& g : impulse)
                for (int k = 0; k < 12; ++k) w.put(g[k]);
            w.put_list(segments).put(transport_.transfer_seconds() - transfer0);
            transport_.send(0, Tag::FluidResult, w.take());
            return;
        }
        case CommandKind::FluidRestore:
            if (domain_) domain_->set_particles(saved_ids_, saved_x_, saved_v_, saved_p_);
            return;
        case CommandKind::FluidCheck: {
            // Stage 3, as World's: settle the particles the bodies moved onto, count the rest.
            const VecX q = r.get_vector();
            const auto t0 = std::chrono::steady_clock::now();
            std::int64_t settled = 0, inside = 0;
            if (domain_) {
                settled =
                    coupling_->settle(model_, q, &domain_->local_particles(), domain_->owned());
                inside = coupling_->points_in_bodies(model_, q, domain_->particles().x,
                                                     domain_->owned());
            }
            const double t =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            transport_.send(0, Tag::FluidResult,
                            MessageWriter().put(settled).put(inside).put(t).take());
            return;
        }
        case CommandKind::FluidGather: {
            MessageWriter w;
            if (domain_) {
                const FluidParticles& p = domain_->particles();
                put_particles(w, domain_->ids(), p.x, p.v, p.pressure, domain_->owned());
            } else {
                w.put(std::int64_t(0));
            }
            transport_.send(0, Tag::FluidResult, w.take());
            return;
        }
        default:
            throw std::runtime_error("worker: not a fluid command");
    }
}

}  // namespace concord
