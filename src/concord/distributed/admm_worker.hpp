// One worker of a distributed run (paper Algorithm 1): it owns some bodies, and for every step
// the controller commands it
//   1. classifies its bodies against the partition and sends each to the workers that must
//      hold it (bodies migrate when their home cell changes);
//   2. builds its local problem F_i over the bodies it holds (weights 1/kappa_b, 1/kappa_c)
//      plus the static bodies, and reports its share of the barrier-stiffness balance;
//   3. runs consensus ADMM with its neighbours: local Newton solve with the consensus penalty,
//      exchange of (q, u, rho) of shared bodies, consensus z, dual update, stopping metrics and
//      the merge CCD reported to the controller, penalty adaptation;
//   4. reports its owned bodies' end state and keeps it or drops it as the controller says.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "concord/collision/broad_phase/broad_phase.hpp"
#include "concord/distributed/admm_protocol.hpp"
#include "concord/distributed/body_box.hpp"
#include "concord/distributed/transport.hpp"
#include "concord/energy/consensus_energy.hpp"
#include "concord/world/step_system.hpp"
#include "concord/world/world_model.hpp"

namespace concord {

class AdmmWorker {
  public:
    /// `model` is the scene's (every process builds the same one); kept by reference.
    AdmmWorker(const WorldModel& model, Transport& transport);
    AdmmWorker(const AdmmWorker&) = delete;
    AdmmWorker& operator=(const AdmmWorker&) = delete;
    ~AdmmWorker();

    /// Serves the controller's commands until Shutdown.
    void serve();

  private:
    struct LocalSystem;

    void step(const StepCommand& cmd);
    /// The local system over these world bodies with these holder sets (reused across steps).
    LocalSystem& local_system(const std::vector<int>& bodies,
                              const std::vector<std::uint64_t>& holders);
    /// Predicted end state (dynamic), prescribed end pose (kinematic), of one owned body.
    Vec12 predicted(const BodyRecord& b, double h, double t_end) const;
    int self() const { return transport_.rank() - 1; }

    const WorldModel& model_;
    Transport& transport_;
    std::vector<Box3> rest_boxes_;
    std::vector<int> static_bodies_;
    std::map<int, BodyRecord> owned_;  ///< by body id, at the last committed state
    /// A shared body's penalty and unscaled multiplier rho u at the end of the last committed
    /// step, with its holders then (warm start of the next step's ADMM).
    struct Carry {
        std::uint64_t holders = 0;
        double rho = 0.0;
        Vec12 lambda = Vec12::Zero();
    };
    std::map<int, Carry> carry_;
    BroadPhase broad_phase_;  ///< the islands of the local problem
    std::map<std::pair<std::vector<int>, std::vector<std::uint64_t>>, std::unique_ptr<LocalSystem>>
        systems_;
};

}  // namespace concord
