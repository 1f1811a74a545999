#include "concord/distributed/fluid_domain.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "concord/distributed/message.hpp"

namespace concord {

FluidDomain::FluidDomain(Transport& transport, const FluidMaterial& material, double particle_mass,
                         const Partition& partition)
    : transport_(transport), partition_(partition), solver_(material) {
    if (transport.rank() < 1)
        throw std::invalid_argument("FluidDomain: runs on a worker (rank 1..N), not rank 0");
    if (partition.num_workers() != transport.num_workers())
        throw std::invalid_argument("FluidDomain: the partition has " +
                                    std::to_string(partition.num_workers()) + " cells for " +
                                    std::to_string(transport.num_workers()) + " workers");
    local_.mass = particle_mass;
    send_.assign(static_cast<std::size_t>(workers()), {});
    ghost_begin_.assign(static_cast<std::size_t>(workers()) + 1, 0);
}

void FluidDomain::set_particles(std::vector<std::int64_t> ids, std::vector<Vec3> x,
                                std::vector<Vec3> v, std::vector<double> pressure) {
    const std::size_t n = ids.size();
    if (x.size() != n || v.size() != n || pressure.size() != n)
        throw std::invalid_argument("FluidDomain::set_particles: arrays of different lengths");
    if (std::is_sorted(ids.begin(), ids.end())) {  // most steps: no particle arrived
        ids_ = std::move(ids);
        local_.x = std::move(x);
        local_.v = std::move(v);
        local_.pressure = std::move(pressure);
        local_.density.assign(n, 0.0);
        owned_ = n;
        return;
    }
    // By id: the sorted run at the front (the particles that stayed, after a migration) merged
    // with the rest sorted (the arrivals).
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t(0));
    const auto by_id = [&](std::size_t a, std::size_t b) { return ids[a] < ids[b]; };
    const auto run = std::is_sorted_until(ids.begin(), ids.end()) - ids.begin();
    std::sort(order.begin() + run, order.end(), by_id);
    std::inplace_merge(order.begin(), order.begin() + run, order.end(), by_id);
    ids_.resize(n);
    local_.x.resize(n);
    local_.v.resize(n);
    local_.pressure.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
        ids_[k] = ids[order[k]];
        local_.x[k] = x[order[k]];
        local_.v[k] = v[order[k]];
        local_.pressure[k] = pressure[order[k]];
    }
    local_.density.assign(n, 0.0);
    owned_ = n;
}

void FluidDomain::start_timing() {
    segments_.clear();
    segment_start_ = std::chrono::steady_clock::now();
}

std::vector<double> FluidDomain::segments() {
    pause_clock();
    return segments_;
}

void FluidDomain::pause_clock() {
    segments_.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - segment_start_).count());
}

void FluidDomain::resume_clock() {
    segment_start_ = std::chrono::steady_clock::now();
}

void FluidDomain::set_partition(const Partition& partition) {
    if (partition.num_workers() != workers())
        throw std::invalid_argument("FluidDomain::set_partition: the number of cells changed");
    partition_ = partition;
}

std::vector<Bytes> FluidDomain::swap(std::vector<Bytes> out) {
    const int n_workers = workers();
    pause_clock();
    for (int w = 0; w < n_workers; ++w)
        if (w != me())
            transport_.send(w + 1, Tag::Fluid, std::move(out[static_cast<std::size_t>(w)]));
    std::vector<Bytes> in(static_cast<std::size_t>(n_workers));
    for (int w = 0; w < n_workers; ++w)
        if (w != me()) in[static_cast<std::size_t>(w)] = transport_.receive(w + 1, Tag::Fluid);
    resume_clock();
    return in;
}

void FluidDomain::migrate() {
    const int n_workers = workers();
    std::vector<std::vector<std::size_t>> leaving(static_cast<std::size_t>(n_workers));
    std::vector<std::size_t> staying;
    const int self = me();
    for (std::size_t i = 0; i < owned_; ++i) {
        const int w = partition_.worker_of_point(local_.x[i]);
        (w == self ? staying : leaving[static_cast<std::size_t>(w)]).push_back(i);
    }
    migrated_out_ = owned_ - staying.size();
    std::vector<Bytes> out(static_cast<std::size_t>(n_workers));
    for (int w = 0; w < n_workers; ++w) {
        if (w == me()) continue;
        MessageWriter msg;
        const auto& list = leaving[static_cast<std::size_t>(w)];
        msg.put(static_cast<std::int64_t>(list.size()));
        for (const std::size_t i : list) {
            msg.put(ids_[i]);
            msg.put_vec3(local_.x[i]);
            msg.put_vec3(local_.v[i]);
            msg.put(local_.pressure[i]);
        }
        out[static_cast<std::size_t>(w)] = msg.take();
    }
    const std::vector<Bytes> in = swap(std::move(out));
    std::vector<std::int64_t> ids;
    std::vector<Vec3> x, v;
    std::vector<double> p;
    for (const std::size_t i : staying) {
        ids.push_back(ids_[i]);
        x.push_back(local_.x[i]);
        v.push_back(local_.v[i]);
        p.push_back(local_.pressure[i]);
    }
    migrated_in_ = 0;
    for (int w = 0; w < n_workers; ++w) {
        if (w == me()) continue;
        MessageReader r(in[static_cast<std::size_t>(w)]);
        const auto count = r.get<std::int64_t>();
        for (std::int64_t k = 0; k < count; ++k) {
            ids.push_back(r.get<std::int64_t>());
            x.push_back(r.get_vec3());
            v.push_back(r.get_vec3());
            p.push_back(r.get<double>());
        }
        migrated_in_ += static_cast<std::size_t>(count);
    }
    set_particles(std::move(ids), std::move(x), std::move(v), std::move(p));
}

void FluidDomain::gather_ghosts() {
    const int n_workers = workers();
    const double H = solver_.material().support_radius();
    for (auto& list : send_) list.clear();
    // A particle is a ghost of every worker whose cell, grown by H, holds it: exactly the
    // workers with an owned particle it may be a neighbour of.
    const std::uint64_t self = std::uint64_t(1) << me();
    for (std::size_t i = 0; i < owned_; ++i) {
        const std::uint64_t others = partition_.holders(local_.x[i], local_.x[i], H) & ~self;
        if (others == 0) continue;  // most particles: inside the cell, H from its faces
        for (int w = 0; w < n_workers; ++w)
            if ((others >> w) & 1u) send_[static_cast<std::size_t>(w)].push_back(i);
    }
    std::vector<Bytes> out(static_cast<std::size_t>(n_workers));
    for (int w = 0; w < n_workers; ++w) {
        if (w == me()) continue;
        MessageWriter msg;
        const auto& list = send_[static_cast<std::size_t>(w)];
        msg.reserve(sizeof(std::int64_t) + list.size() * 2 * sizeof(Vec3));
        msg.put(static_cast<std::int64_t>(list.size()));
        for (const std::size_t i : list) {
            msg.put_vec3(local_.x[i]);
            msg.put_vec3(local_.v[i]);
        }
        out[static_cast<std::size_t>(w)] = msg.take();
    }
    const std::vector<Bytes> in = swap(std::move(out));
    local_.x.resize(owned_);
    local_.v.resize(owned_);
    for (int w = 0; w < n_workers; ++w) {
        ghost_begin_[static_cast<std::size_t>(w)] = local_.x.size();
        if (w == me()) continue;
        MessageReader r(in[static_cast<std::size_t>(w)]);
        const auto count = r.get<std::int64_t>();
        for (std::int64_t k = 0; k < count; ++k) {
            local_.x.push_back(r.get_vec3());
            local_.v.push_back(r.get_vec3());
        }
    }
    ghost_begin_[static_cast<std::size_t>(n_workers)] = local_.x.size();
    // Ghost densities and pressures come with the halo exchanges of the step.
    local_.density.resize(local_.x.size(), 0.0);
    local_.pressure.resize(local_.x.size(), 0.0);
}

double FluidDomain::exchange(std::initializer_list<std::vector<double>*> scalars,
                             std::initializer_list<std::vector<Vec3>*> vectors, double local) {
    const int n_workers = workers();
    for (const auto* f : scalars)
        if (f->size() < local_.size())
            throw std::logic_error("FluidDomain: a halo field shorter than the particles");
    for (const auto* f : vectors)
        if (f->size() < local_.size())
            throw std::logic_error("FluidDomain: a halo field shorter than the particles");
    const std::size_t per_particle =
        scalars.size() * sizeof(double) + vectors.size() * sizeof(Vec3);
    std::vector<Bytes> out(static_cast<std::size_t>(n_workers));
    for (int w = 0; w < n_workers; ++w) {
        if (w == me()) continue;
        const auto& list = send_[static_cast<std::size_t>(w)];
        MessageWriter msg;
        msg.reserve(sizeof(double) + list.size() * per_particle);
        msg.put(local);
        for (const std::size_t i : list) {
            for (const auto* f : scalars) msg.put((*f)[i]);
            for (const auto* f : vectors) msg.put_vec3((*f)[i]);
        }
        out[static_cast<std::size_t>(w)] = msg.take();
    }
    const std::vector<Bytes> in = swap(std::move(out));
    double total = 0.0;  // in worker order: the same on every worker
    for (int w = 0; w < n_workers; ++w) {
        if (w == me()) {
            total += local;
            continue;
        }
        MessageReader r(in[static_cast<std::size_t>(w)]);
        total += r.get<double>();
        for (std::size_t k = ghost_begin_[static_cast<std::size_t>(w)];
             k < ghost_begin_[static_cast<std::size_t>(w) + 1]; ++k) {
            for (auto* f : scalars) (*f)[k] = r.get<double>();
            for (auto* f : vectors) (*f)[k] = r.get_vec3();
        }
        if (!r.done()) throw std::runtime_error("FluidDomain: a halo message of the wrong size");
    }
    return total;
}

double FluidDomain::max(double local) {
    const int n_workers = workers();
    std::vector<Bytes> out(static_cast<std::size_t>(n_workers));
    for (int w = 0; w < n_workers; ++w)
        if (w != me()) out[static_cast<std::size_t>(w)] = MessageWriter().put(local).take();
    const std::vector<Bytes> in = swap(std::move(out));
    double largest = local;
    for (int w = 0; w < n_workers; ++w) {
        if (w == me()) continue;
        MessageReader r(in[static_cast<std::size_t>(w)]);
        largest = std::max(largest, r.get<double>());
    }
    return largest;
}

double FluidDomain::sum(std::vector<Vec12>& per_body) {
    const int n_workers = workers();
    double speed = 0.0;
    for (std::size_t i = 0; i < owned_; ++i) speed = std::max(speed, local_.v[i].norm());
    MessageWriter msg;
    msg.put(speed);
    for (const Vec12& g : per_body)
        for (int k = 0; k < 12; ++k) msg.put(g[k]);
    const Bytes mine = msg.take();
    std::vector<Bytes> out(static_cast<std::size_t>(n_workers), mine);
    const std::vector<Bytes> in = swap(std::move(out));
    std::vector<Vec12> total(per_body.size(), Vec12::Zero());
    for (int w = 0; w < n_workers; ++w) {  // in worker order: the same sum on every worker
        if (w == me()) {
            for (std::size_t b = 0; b < per_body.size(); ++b) total[b] += per_body[b];
            continue;
        }
        MessageReader r(in[static_cast<std::size_t>(w)]);
        speed = std::max(speed, r.get<double>());
        for (Vec12& t : total) {
            Vec12 g;
            for (int k = 0; k < 12; ++k) g[k] = r.get<double>();
            t += g;
        }
        if (!r.done())
            throw std::runtime_error("FluidDomain: an impulse message of the wrong size");
    }
    per_body = std::move(total);
    return speed;
}

double FluidDomain::max_speed() {
    double v = 0.0;
    for (std::size_t i = 0; i < owned_; ++i) v = std::max(v, local_.v[i].norm());
    return max(v);
}

IisphStepStats FluidDomain::step(const BoundarySamples& boundary, const Vec3& g, double dt,
                                 std::vector<Vec3>& boundary_impulse) {
    migrate();
    gather_ghosts();
    return solver_.step(local_, owned_, this, boundary, g, dt, boundary_impulse);
}

}  // namespace concord
