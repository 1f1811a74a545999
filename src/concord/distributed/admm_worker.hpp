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

#include "concord/distributed/admm_protocol.hpp"
#include "concord/distributed/body_box.hpp"
#include "concord/distributed/distributed_fluid.hpp"
#include "concord/distributed/transport.hpp"
#include "concord/energy/consensus_energy.hpp"
#include "concord/world/step_system.hpp"
#include "concord/world/world_model.hpp"

namespace concord {

struct LocalMeasure;

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
    struct Run;  ///< one step's working state (admm_worker.cpp)

    /// One step: the stages below in order (the paper's Algorithm 1).
    void step(const StepCommand& cmd);
    // 1. Hand each owned body to the workers that hold it this step; receive theirs.
    void exchange_bodies(Run& run);
    // 2. The local problem F_i over the held bodies and every static body, by islands.
    void build_local_problem(Run& run);
    // 3. This worker's share of IPC's barrier-stiffness balance; the scene's stiffness back.
    void agree_barrier_stiffness(Run& run);
    // 4. The neighbours holding the shared bodies too, initial penalties, local solve options.
    void find_shared_bodies(Run& run);
    // 5. Consensus ADMM, per friction lag round:
    void start_lag_round(Run& run, int round);  // z^1, u, rho (warm start)
    NewtonStats solve_local(Run& run);          // Eq. 5: the local solve with the penalty
    void exchange_shared(Run& run);             // (q, u, rho) of shared bodies to neighbours
    WorkerReport update_consensus(Run& run);    // Eq. 6, 7, 9-10: z, u and the residuals
    void check_convergence(Run& run, const NewtonStats& st, WorkerReport& rep);  // Eq. 8, merge
    void accelerate(Run& run, const ControllerSignal& sig);  // Anderson, when the spec asks
    void adapt_penalties(Run& run, int k);                   // Eq. 12 or its variants
    // 6. Kinematic bodies onto their prescribed pose, when no worker's CCD objects.
    void snap_kinematic(Run& run);
    // 7. The owned bodies' end states and the statistics to the controller.
    void send_result(Run& run);
    // 8. Keep the end state or go back to the start, as the controller decides.
    void commit_or_discard(Run& run);

    /// The local system over these world bodies with these holder sets (reused across steps).
    LocalSystem& local_system(const std::vector<int>& bodies,
                              const std::vector<std::uint64_t>& holders);
    /// Predicted end state (dynamic), prescribed end pose (kinematic), of one held body: its
    /// whole coordinate block (modal coordinates predicted as q + h q_dot).
    VecX predicted(const BodyRecord& b, double h, double t_end) const;
    /// h^2 times the body's acceleration from external forces and the fluid (q~ - q - h q_dot).
    Vec12 forced_motion(const BodyRecord& b, double h) const;
    /// Whether a shared dynamic body's z^1 is its start state q rather than q~ (InitialConsensus).
    bool starts_at_rest(const Run& run, const BodyRecord& rec) const;
    /// Whether a step's motion `step` of this body (its whole coordinate block) is no more than
    /// a body at rest makes: what the forces on it would move it by, or the consensus tolerance.
    bool moves_as_at_rest(const Run& run, const BodyRecord& rec, const VecX& step) const;
    /// BodyRecord::supported of each body of the local system at the end of the step x.
    std::vector<char> supported_at_end(const Run& run, const LocalMeasure& measured) const;
    int self() const { return transport_.rank() - 1; }

    const WorldModel& model_;
    Transport& transport_;
    std::vector<RestBound> rest_bounds_;
    std::vector<int> static_bodies_;
    std::vector<int> group_;  ///< joint_groups(): bodies held and owned together
    /// Per elastic body: the consensus metric of its modal coordinates, M_eta / m (empty else).
    std::vector<MatX> modal_metric_;
    std::map<int, BodyRecord> owned_;     ///< by body id, at the last committed state
    std::unique_ptr<FluidWorker> fluid_;  ///< the scene's fluid (its cell of it), if any
    /// Shared bodies' penalties and multipliers at the end of the last committed step, by body
    /// id (warm start of the next step's ADMM; checkpoints capture them).
    std::map<int, CarriedMultiplier> carry_;
    /// Whether local systems take new holder sets in place (StepSystem::set_replication: no
    /// elastic bodies, no joints in the scene).
    bool reweightable_ = false;
    /// Local systems by bodies (and holders, unless reweightable_): those of the last step, and
    /// those in use in this one (a system not used again in a step is dropped at its end).
    using SystemKey = std::pair<std::vector<int>, std::vector<std::uint64_t>>;
    using SystemCache = std::map<SystemKey, std::unique_ptr<LocalSystem>>;
    SystemCache systems_, kept_;
    /// The systems of systems_ and kept_, for new systems to take a broad-phase envelope from.
    BroadPhaseDonors donors_;
};

}  // namespace concord
