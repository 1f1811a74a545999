#include "concord/distributed/distributed_world.hpp"

#include <spdlog/spdlog.h>

#include <exception>

#include "concord/distributed/admm_worker.hpp"
#include "concord/scene/distributed_json.hpp"

namespace concord {

// The controller's work happens while it holds the network's turn (see in_process_transport).
template <typename F>
decltype(auto) DistributedWorld::as_controller(F&& f) {
    InProcessTransport& t = network_->endpoint(0);
    t.enter();
    struct Leave {
        InProcessTransport& t;
        ~Leave() { t.leave(); }
    } leave{t};
    return f();
}

DistributedWorld::DistributedWorld(const SceneSpec& spec) {
    validate_distributed_spec(spec.distributed);
    model_ = std::make_unique<WorldModel>(build_world_model(spec));
    const int n = spec.distributed.workers;
    network_ = std::make_unique<InProcessNetwork>(n);
    for (int w = 1; w <= n; ++w) {
        threads_.emplace_back([this, w] {
            InProcessTransport& t = network_->endpoint(w);
            t.enter();
            try {
                AdmmWorker worker(*model_, t);
                worker.serve();
            } catch (const std::exception& e) {
                network_->abort(std::string("worker ") + std::to_string(w) + ": " + e.what());
            }
            t.leave();
        });
    }
    try {
        sim_ = as_controller([&] {
            return std::make_unique<DistributedSimulation>(*model_, network_->endpoint(0));
        });
    } catch (...) {
        network_->abort("controller failed to start");
        for (auto& th : threads_) th.join();
        throw;
    }
}

DistributedWorld::~DistributedWorld() {
    if (sim_) {
        try {
            as_controller([&] {
                sim_->shutdown();
                return 0;
            });
        } catch (...) {
            network_->abort("controller gone");
        }
    }
    for (auto& th : threads_) th.join();
}

const StepStats& DistributedWorld::step() {
    try {
        return as_controller([&]() -> const StepStats& { return sim_->step(); });
    } catch (const std::exception& e) {
        // The workers may be waiting in the middle of the protocol: break the network so that
        // they stop (and the destructor can join them). The world cannot step any more.
        network_->abort(std::string("controller: ") + e.what());
        throw;
    }
}

void DistributedWorld::restore_state(const WorldState& s) {
    as_controller([&] {
        sim_->restore_state(s);
        return 0;
    });
}

WorldState DistributedWorld::capture_state() {
    return as_controller([&] { return sim_->capture_world_state(); });
}

const FluidParticles* DistributedWorld::fluid_particles() {
    return as_controller([&] { return sim_->fluid_particles(); });
}

Checkpoint DistributedWorld::capture_checkpoint() {
    return as_controller([&] { return sim_->capture_checkpoint(); });
}

void DistributedWorld::restore_checkpoint(const Checkpoint& c) {
    as_controller([&] {
        sim_->restore_checkpoint(c);
        return 0;
    });
}

}  // namespace concord
