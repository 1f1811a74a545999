// A distributed run inside one process: the controller on the calling thread and N workers on
// threads of their own, talking through the in-process transport. Same algorithm and messages
// as the MPI run (apps/concord --mpi), hence the same trajectory bit for bit; used by
// `concord run --workers N`, by the tests and for per-worker timing on a small machine.
#pragma once

#include <memory>
#include <thread>
#include <vector>

#include "concord/distributed/distributed_simulation.hpp"
#include "concord/distributed/in_process_transport.hpp"

namespace concord {

class DistributedWorld {
  public:
    /// Runs spec.distributed.workers workers (>= 1). Throws InputError for an invalid scene.
    explicit DistributedWorld(const SceneSpec& spec);
    ~DistributedWorld();
    DistributedWorld(const DistributedWorld&) = delete;
    DistributedWorld& operator=(const DistributedWorld&) = delete;

    const SceneSpec& spec() const { return model_->spec; }
    const WorldModel& model() const { return *model_; }
    int num_bodies() const { return sim_->num_bodies(); }
    const AffineBody& body(int i) const { return sim_->body(i); }
    Vec12 q(int i) const { return sim_->q(i); }
    Vec12 q_dot(int i) const { return sim_->q_dot(i); }
    /// Body i's frames.jsonl row: q(i), then its modal coordinates.
    VecX state_row(int i) const { return sim_->state_row(i); }
    double time() const { return sim_->time(); }
    int step_count() const { return sim_->step_count(); }
    const Partition& partition() const { return sim_->partition(); }

    /// One time step. If it throws, the run is over: the workers are stopped.
    const StepStats& step();
    const StepStats& last_stats() const { return sim_->last_stats(); }
    /// The whole state (the fluid's particles gathered from the workers).
    WorldState capture_state();
    /// The fluid's particles, gathered from the workers (null without a fluid).
    const FluidParticles* fluid_particles();
    void restore_state(const WorldState& s);
    /// DistributedSimulation::capture_checkpoint / restore_checkpoint.
    Checkpoint capture_checkpoint();
    void restore_checkpoint(const Checkpoint& c);
    const SolverParams& solver_params() const { return sim_->solver_params(); }
    void set_solver_params(const SolverParams& p) { sim_->set_solver_params(p); }
    DistributedSimulation& simulation() { return *sim_; }

  private:
    template <typename F>
    decltype(auto) as_controller(F&& f);

    std::unique_ptr<WorldModel> model_;
    std::unique_ptr<InProcessNetwork> network_;
    std::vector<std::thread> threads_;
    std::unique_ptr<DistributedSimulation> sim_;
};

}  // namespace concord
