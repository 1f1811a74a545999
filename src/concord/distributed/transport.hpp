// How the controller and the workers of a distributed run talk (paper Sec. 5.1): point-to-point
// messages identified by (sender, tag). Endpoint 0 is the controller, endpoints 1..N the
// workers. Two implementations: in-process (threads, for tests, debugging and per-worker timing
// on a small machine) and MPI (one process per endpoint). The ADMM code is written once against
// this interface, so both give the same trajectory bit for bit.
#pragma once

#include <stdexcept>
#include <string>

#include "concord/distributed/message.hpp"

namespace concord {

/// Message kinds. A receive names the kind it expects, so a protocol error shows up as a
/// mismatch instead of a silently misread buffer.
enum class Tag : int {
    Command = 1,       ///< controller -> worker: what to do next
    Bodies = 2,        ///< worker -> worker at a step's start: held bodies' records
    Balance = 3,       ///< worker -> controller: barrier-stiffness balance
    Stiffness = 4,     ///< controller -> worker: the step's barrier stiffness
    Shared = 5,        ///< worker -> worker each ADMM iteration: q, u, rho of shared bodies
    Report = 6,        ///< worker -> controller each ADMM iteration: stopping metrics
    Signal = 7,        ///< controller -> worker: continue or end the ADMM loop
    Result = 8,        ///< worker -> controller at a step's end: owned bodies' states, stats
    State = 9,         ///< worker -> controller on Capture: what the worker carries (checkpoint)
    Heartbeat = 10,    ///< worker -> controller every second, from a thread of its own (MPI)
    Fluid = 11,        ///< worker -> worker: fluid particles, ghosts, halo values, reductions
    FluidResult = 12,  ///< worker -> controller: a fluid command's answer
};

/// A worker process that died or stopped answering (the MPI transport's heartbeats): the run
/// cannot go on. The controller stops with exit code 3, its output intact and resumable.
class WorkerLost : public std::runtime_error {
  public:
    WorkerLost(int worker_rank, const std::string& what)
        : std::runtime_error(what), rank_(worker_rank) {}
    int rank() const { return rank_; }

  private:
    int rank_;
};

class Transport {
  public:
    virtual ~Transport() = default;
    /// This endpoint: 0 the controller, 1..num_workers() a worker.
    virtual int rank() const = 0;
    virtual int num_workers() const = 0;
    /// Sends without waiting for the receiver.
    virtual void send(int to, Tag tag, Bytes message) = 0;
    /// Blocks until the message of this kind from `from` arrives (messages of one kind from one
    /// sender arrive in the order they were sent).
    virtual Bytes receive(int from, Tag tag) = 0;
    /// Seconds this endpoint spent moving data (sending, and receiving once a message had
    /// arrived), excluding waiting for it; cumulative.
    virtual double transfer_seconds() const = 0;
};

}  // namespace concord
