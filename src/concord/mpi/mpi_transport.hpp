// The MPI implementation of Transport: endpoint r is MPI rank r of MPI_COMM_WORLD (rank 0 the
// controller, ranks 1..N the workers; run with mpirun -np N+1). Messages are MPI_BYTE buffers;
// the tag is the message kind, and MPI's ordering of messages between two ranks with one tag
// gives the order the interface promises.
#pragma once

#include <deque>
#include <memory>

#include "concord/distributed/transport.hpp"

namespace concord {

class MpiTransport final : public Transport {
  public:
    /// Requires MPI to be initialised (see MpiSession).
    MpiTransport();
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

    int rank_ = 0, size_ = 1;
    std::deque<std::unique_ptr<Pending>> pending_;  ///< non-blocking sends and their buffers
    double transfer_seconds_ = 0.0;
};

/// MPI_Init / MPI_Finalize for the lifetime of the object.
class MpiSession {
  public:
    MpiSession(int* argc, char*** argv);
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;
    /// Ends every rank at once (a failed rank must not leave the others waiting).
    [[noreturn]] static void abort(int code);
};

}  // namespace concord
