// One worker's share of a fluid split across workers (docs/fluids.md "Distributed"; issue 16,
// after Rustico et al. 2012): the worker owns the particles in its cell of the partition and
// steps them with IISPH; ghost copies of the particles of other cells within one support
// radius of its cell come from their owners at the start of every fluid step, and the values
// IISPH reads from neighbours (density, advected velocity, d_ii, pressure, sum_j d_ij p_j) are
// exchanged where the solve needs them (FluidHalo). Particles that leave the cell move to the
// worker whose cell they entered (migration) before the ghosts are gathered. Written against
// Transport (Tag::Fluid messages between workers), so the in-process and the MPI transports run
// the same code.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "concord/distributed/partition.hpp"
#include "concord/distributed/transport.hpp"
#include "concord/fluid/fluid_halo.hpp"
#include "concord/fluid/iisph.hpp"
#include "concord/world/fluid_coupling.hpp"

namespace concord {

class FluidDomain final : public FluidHalo, public FluidSplit {
  public:
    /// The worker of `transport` (rank 1..N) owns cell rank - 1 of `partition`, which must have
    /// transport.num_workers() cells.
    FluidDomain(Transport& transport, const FluidMaterial& material, double particle_mass,
                const Partition& partition);

    /// This worker's particles (global ids, any order; sorted by id here). Each must lie in
    /// this worker's cell: the first step moves those that do not.
    void set_particles(std::vector<std::int64_t> ids, std::vector<Vec3> x, std::vector<Vec3> v,
                       std::vector<double> pressure);
    /// A new partition (the planes moved): the next step migrates particles to their new cells.
    void set_partition(const Partition& partition);

    /// One fluid step of every worker (all must call it with the same g and dt): migration,
    /// ghosts, IISPH with the halo exchanges. boundary_impulse gets the impulse of this
    /// worker's particles on the samples (sum it over workers in rank order for the total).
    IisphStepStats step(const BoundarySamples& boundary, const Vec3& g, double dt,
                        std::vector<Vec3>& boundary_impulse) override;

    /// The fastest particle speed of every worker (for the CFL step), the same on all.
    double max_speed() override;
    /// Per body, the sum over every worker in worker order; returns max_speed() (FluidSplit).
    double sum(std::vector<Vec12>& per_body) override;

    /// Owned particles: ids (increasing) and the solver's arrays, whose first owned() entries
    /// are this worker's particles (the rest are the last step's ghosts).
    const std::vector<std::int64_t>& ids() const { return ids_; }
    const FluidParticles& particles() const { return local_; }
    std::size_t owned() const override { return owned_; }
    FluidParticles& local_particles() override { return local_; }
    std::size_t ghosts() const { return local_.size() - owned_; }
    /// Compute time between the exchanges with the other workers, for the modelled parallel
    /// time of a distributed step (every worker goes through the same exchanges, so segment k
    /// of one worker runs alongside segment k of the others): start_timing() opens the first
    /// segment, segments() closes the last and returns them (seconds, waiting and transfers
    /// left out).
    void start_timing();
    std::vector<double> segments();

    /// Particles received from and sent to other workers by the last step's migration.
    std::size_t migrated_in() const { return migrated_in_; }
    std::size_t migrated_out() const { return migrated_out_; }

    // FluidHalo
    double exchange(std::initializer_list<std::vector<double>*> scalars,
                    std::initializer_list<std::vector<Vec3>*> vectors, double local) override;
    double max(double local) override;
    using FluidHalo::sum;

  private:
    /// Around every exchange: its start ends a compute segment, its end starts the next.
    void pause_clock();
    void resume_clock();
    /// One exchange: out[w] goes to every other worker w, and what each sent comes back (by
    /// worker; this worker's entry empty). Packing and unpacking the messages are compute, on
    /// either side of it; the sends and the waiting are not.
    std::vector<Bytes> swap(std::vector<Bytes> out);
    int me() const { return transport_.rank() - 1; }
    int workers() const { return transport_.num_workers(); }
    void migrate();
    void gather_ghosts();

    Transport& transport_;
    Partition partition_;
    IisphSolver solver_;
    FluidParticles local_;  ///< owned particles (by increasing id), then ghosts
    std::vector<std::int64_t> ids_;
    std::size_t owned_ = 0;
    std::vector<std::vector<std::size_t>>
        send_;                              ///< per worker: owned particles it holds as ghosts
    std::vector<std::size_t> ghost_begin_;  ///< per worker + 1: its ghosts in local_
    std::size_t migrated_in_ = 0, migrated_out_ = 0;
    std::vector<double> segments_;
    std::chrono::steady_clock::time_point segment_start_{};
};

}  // namespace concord
