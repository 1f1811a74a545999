// The in-process implementation of Transport: every endpoint is a thread of one process and
// messages are queued in memory.
//
// With `one_at_a_time` (the default) the endpoints take turns: a thread runs only while it
// holds the network's turn, and gives it up while it waits for a message. Each worker's compute
// time is then measured without the others competing for the cores (the paper's per-worker
// times on a small machine), and each local solve still uses every core through TBB.
#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "concord/distributed/transport.hpp"

namespace concord {

class InProcessNetwork;

class InProcessTransport final : public Transport {
  public:
    InProcessTransport(InProcessNetwork& network, int rank) : network_(network), rank_(rank) {}
    int rank() const override { return rank_; }
    int num_workers() const override;
    void send(int to, Tag tag, Bytes message) override;
    Bytes receive(int from, Tag tag) override;
    double transfer_seconds() const override { return transfer_seconds_; }

    /// Takes / gives back the network's turn (no-op unless one_at_a_time). The thread that
    /// runs this endpoint calls enter() first and leave() last.
    void enter();
    void leave();

  private:
    InProcessNetwork& network_;
    int rank_;
    double transfer_seconds_ = 0.0;
};

class InProcessNetwork {
  public:
    explicit InProcessNetwork(int num_workers, bool one_at_a_time = true);
    InProcessNetwork(const InProcessNetwork&) = delete;
    InProcessNetwork& operator=(const InProcessNetwork&) = delete;

    int num_workers() const { return num_workers_; }
    /// Endpoint `rank` (0 controller, 1..N workers).
    InProcessTransport& endpoint(int rank) {
        return *endpoints_.at(static_cast<std::size_t>(rank));
    }
    /// Breaks the network: every waiting and later receive throws std::runtime_error(why), so
    /// that an endpoint that failed does not leave the others waiting forever.
    void abort(const std::string& why);

  private:
    friend class InProcessTransport;
    int num_workers_;
    bool one_at_a_time_;
    std::vector<std::unique_ptr<InProcessTransport>> endpoints_;
    std::mutex mutex_;
    std::condition_variable arrived_;
    std::map<std::tuple<int, int, int>, std::deque<Bytes>> queues_;  ///< (from, to, tag)
    std::mutex turn_;
    std::string aborted_;  ///< non-empty once abort() was called
};

}  // namespace concord
