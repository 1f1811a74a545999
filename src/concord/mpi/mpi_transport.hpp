// The MPI implementation of Transport: endpoint r is MPI rank r of MPI_COMM_WORLD (rank 0 the
// controller, ranks 1..N the workers; run with mpirun -np N+1). Messages are MPI_BYTE buffers;
// the tag is the message kind, and MPI's ordering of messages between two ranks with one tag
// gives the order the interface promises.
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <vector>

#include "concord/distributed/transport.hpp"

namespace concord {

class MpiTransport final : public Transport {
  public:
    /// Requires MPI to be initialised (see MpiSession). On the controller (rank 0),
    /// `worker_timeout` > 0 makes receive() throw WorkerLost when a worker has sent nothing, not
    /// even a heartbeat (MpiHeartbeat), for that many seconds; 0 waits for ever.
    explicit MpiTransport(double worker_timeout = 0.0);
    /// Waits for the sends still in flight.
    ~MpiTransport() override;
    int rank() const override { return rank_; }
    int num_workers() const override { return size_ - 1; }
    void send(int to, Tag tag, Bytes message) override;
    Bytes receive(int from, Tag tag) override;
    double transfer_seconds() const override { return transfer_seconds_; }

  private:
    struct Pending;
    void complete_finished_sends();
    /// Controller: takes the heartbeats that arrived, then throws WorkerLost for a worker
    /// silent for longer than the timeout.
    void check_workers_alive();

    int rank_ = 0, size_ = 1;
    double worker_timeout_ = 0.0;
    std::vector<std::chrono::steady_clock::time_point> last_heard_;  ///< per rank (controller)
    std::deque<std::unique_ptr<Pending>> pending_;  ///< non-blocking sends and their buffers
    double transfer_seconds_ = 0.0;
};

/// A worker's sign of life: a thread of its own sends an empty Tag::Heartbeat message to the
/// controller every `interval` seconds for the lifetime of the object, whatever the worker is
/// computing, so that a controller can tell a busy worker from a dead or stopped one. Needs
/// MPI_THREAD_MULTIPLE (MpiSession::threads_supported); does nothing without it.
class MpiHeartbeat {
  public:
    explicit MpiHeartbeat(double interval = 1.0);
    ~MpiHeartbeat();
    MpiHeartbeat(const MpiHeartbeat&) = delete;
    MpiHeartbeat& operator=(const MpiHeartbeat&) = delete;

  private:
    struct State;
    std::unique_ptr<State> state_;
};

/// MPI_Init / MPI_Finalize for the lifetime of the object.
class MpiSession {
  public:
    MpiSession(int* argc, char*** argv);
    ~MpiSession();
    /// Whether MPI gave MPI_THREAD_MULTIPLE (heartbeats need it).
    static bool threads_supported();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;
    /// Ends every rank at once (a failed rank must not leave the others waiting).
    [[noreturn]] static void abort(int code);
};

}  // namespace concord
