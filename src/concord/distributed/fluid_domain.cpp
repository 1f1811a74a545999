#include "concord/distributed/fluid_domain.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "concord/distributed/message.hpp"

namespace concord {

namespace {

void put_value(MessageWriter& w, double x) {
    w.put(x);
}
void put_value(MessageWriter& w, const Vec3& x) {
    w.put_vec3(x);
}

template <typename T>
T get_value(MessageReader& r);
template <>
double get_value<double>(MessageReader& r) {
    return r.get<double>();
}
template <>
Vec3 get_value<Vec3>(MessageReader& r) {
    return r.get_vec3();
}

}  // namespace

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
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return ids[a] < ids[b]; });
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

void FluidDomain::migrate() {
    const int n_workers = workers();
    std::vector<std::vector<std::size_t>> leaving(static_cast<std::size_t>(n_workers));
    std::vector<std::size_t> staying;
    for (std::size_t i = 0; i < owned_; ++i) {
        const int w = partition_.worker_of_point(local_.x[i]);
        (w == me() ? staying : leaving[static_cast<std::size_t>(w)]).push_back(i);
    }
    migrated_out_ = owned_ - staying.size();
    pause_clock();
    for (int w = 0; w < n_workers; ++w) {
        if (w == me()) continue;
        MessageWriter msg;
        const auto& list = leaving[static_cast<std::size_t>(w)];
        msg.put(static_cast<std::int64_t>(list.size()));
        for (const std::size_t i : list) {
            msg.put(ids_[i]);
            put_value(msg, local_.x[i]);
            put_value(msg, local_.v[i]);
            put_value(msg, local_.pressure[i]);
        }
        transport_.send(w + 1, Tag::Fluid, msg.take());
    }
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
        const Bytes bytes = transport_.receive(w + 1, Tag::Fluid);
        MessageReader r(bytes);
        const auto count = r.get<std::int64_t>();
        for (std::int64_t k = 0; k < count; ++k) {
            ids.push_back(r.get<std::int64_t>());
            x.push_back(get_value<Vec3>(r));
            v.push_back(get_value<Vec3>(r));
            p.push_back(get_value<double>(r));
        }
        migrated_in_ += static_cast<std::size_t>(count);
    }
    resume_clock();
    set_particles(std::move(ids), std::move(x), std::move(v), std::move(p));
}

void FluidDomain::gather_ghosts() {
    const int n_workers = workers();
    const double H = solver_.material().support_radius();
    for (auto& list : send_) list.clear();
    // A particle is a ghost of every worker whose cell, grown by H, holds it: exactly the
    // workers with an owned particle it may be a neighbour of.
    for (std::size_t i = 0; i < owned_; ++i) {
        const std::uint64_t holders = partition_.holders(local_.x[i], local_.x[i], H);
        for (int w = 0; w < n_workers; ++w)
            if (w != me() && ((holders >> w) & 1u)) send_[static_cast<std::size_t>(w)].push_back(i);
    }
    pause_clock();
    for (int w = 0; w < n_workers; ++w) {
        if (w == me()) continue;
        MessageWriter msg;
        const auto& list = send_[static_cast<std::size_t>(w)];
        msg.put(static_cast<std::int64_t>(list.size()));
        for (const std::size_t i : list) {
            put_value(msg, local_.x[i]);
            put_value(msg, local_.v[i]);
        }
        transport_.send(w + 1, Tag::Fluid, msg.take());
    }
    local_.x.resize(owned_);
    local_.v.resize(owned_);
    for (int w = 0; w < n_workers; ++w) {
        ghost_begin_[static_cast<std::size_t>(w)] = local_.x.size();
        if (w == me()) continue;
        const Bytes bytes = transport_.receive(w + 1, Tag::Fluid);
        MessageReader r(bytes);
        const auto count = r.get<std::int64_t>();
        for (std::int64_t k = 0; k < count; ++k) {
            local_.x.push_back(get_value<Vec3>(r));
            local_.v.push_back(get_value<Vec3>(r));
        }
    }
    ghost_begin_[static_cast<std::size_t>(n_workers)] = local_.x.size();
    resume_clock();
    // Ghost densities and pressures come with the halo exchanges of the step.
    local_.density.resize(local_.x.size(), 0.0);
    local_.pressure.resize(local_.x.size(), 0.0);
}

template <typename T>
void FluidDomain::exchange(std::vector<T>& field) {
    const int n_workers = workers();
    if (field.size() < local_.size())
        throw std::logic_error("FluidDomain: a halo field shorter than the particles");
    pause_clock();
    for (int w = 0; w < n_workers; ++w) {
        if (w == me()) continue;
        MessageWriter msg;
        for (const std::size_t i : send_[static_cast<std::size_t>(w)]) put_value(msg, field[i]);
        transport_.send(w + 1, Tag::Fluid, msg.take());
    }
    for (int w = 0; w < n_workers; ++w) {
        if (w == me()) continue;
        const Bytes bytes = transport_.receive(w + 1, Tag::Fluid);
        MessageReader r(bytes);
        for (std::size_t k = ghost_begin_[static_cast<std::size_t>(w)];
             k < ghost_begin_[static_cast<std::size_t>(w) + 1]; ++k)
            field[k] = get_value<T>(r);
        if (!r.done()) throw std::runtime_error("FluidDomain: a halo message of the wrong size");
    }
    resume_clock();
}

void FluidDomain::refresh(std::vector<double>& field) {
    exchange(field);
}
void FluidDomain::refresh(std::vector<Vec3>& field) {
    exchange(field);
}

std::vector<double> FluidDomain::all_values(double local) {
    const int n_workers = workers();
    pause_clock();
    for (int w = 0; w < n_workers; ++w)
        if (w != me()) transport_.send(w + 1, Tag::Fluid, MessageWriter().put(local).take());
    std::vector<double> values(static_cast<std::size_t>(n_workers), local);
    for (int w = 0; w < n_workers; ++w) {
        if (w == me()) continue;
        const Bytes bytes = transport_.receive(w + 1, Tag::Fluid);
        MessageReader r(bytes);
        values[static_cast<std::size_t>(w)] = r.get<double>();
    }
    resume_clock();
    return values;
}

double FluidDomain::sum(double local) {
    double total = 0.0;  // in worker order: the same on every worker
    for (const double x : all_values(local)) total += x;
    return total;
}

double FluidDomain::max(double local) {
    const std::vector<double> values = all_values(local);
    return *std::max_element(values.begin(), values.end());
}

void FluidDomain::sum(std::vector<Vec12>& per_body) {
    const int n_workers = workers();
    MessageWriter msg;
    for (const Vec12& g : per_body)
        for (int k = 0; k < 12; ++k) msg.put(g[k]);
    const Bytes mine = msg.take();
    pause_clock();
    for (int w = 0; w < n_workers; ++w)
        if (w != me()) transport_.send(w + 1, Tag::Fluid, mine);
    std::vector<Vec12> total(per_body.size(), Vec12::Zero());
    for (int w = 0; w < n_workers; ++w) {  // in worker order: the same sum on every worker
        if (w == me()) {
            for (std::size_t b = 0; b < per_body.size(); ++b) total[b] += per_body[b];
            continue;
        }
        const Bytes bytes = transport_.receive(w + 1, Tag::Fluid);
        MessageReader r(bytes);
        for (Vec12& t : total) {
            Vec12 g;
            for (int k = 0; k < 12; ++k) g[k] = r.get<double>();
            t += g;
        }
        if (!r.done())
            throw std::runtime_error("FluidDomain: an impulse message of the wrong size");
    }
    resume_clock();
    per_body = std::move(total);
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
