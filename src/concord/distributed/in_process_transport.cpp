#include "concord/distributed/in_process_transport.hpp"

#include <chrono>
#include <stdexcept>

namespace concord {

namespace {
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}
}  // namespace

InProcessNetwork::InProcessNetwork(int num_workers, bool one_at_a_time)
    : num_workers_(num_workers), one_at_a_time_(one_at_a_time) {
    for (int r = 0; r <= num_workers; ++r)
        endpoints_.push_back(std::make_unique<InProcessTransport>(*this, r));
}

int InProcessTransport::num_workers() const {
    return network_.num_workers_;
}

void InProcessTransport::send(int to, Tag tag, Bytes message) {
    const auto t0 = Clock::now();
    {
        std::lock_guard<std::mutex> lock(network_.mutex_);
        network_.queues_[{rank_, to, static_cast<int>(tag)}].push_back(std::move(message));
    }
    network_.arrived_.notify_all();
    transfer_seconds_ += seconds_since(t0);
}

Bytes InProcessTransport::receive(int from, Tag tag) {
    const std::tuple<int, int, int> key{from, rank_, static_cast<int>(tag)};
    std::unique_lock<std::mutex> lock(network_.mutex_);
    auto ready = [&] {
        if (!network_.aborted_.empty()) return true;
        auto it = network_.queues_.find(key);
        return it != network_.queues_.end() && !it->second.empty();
    };
    if (!ready()) {
        // Give the turn to the other endpoints while waiting.
        lock.unlock();
        leave();
        lock.lock();
        network_.arrived_.wait(lock, ready);
        lock.unlock();
        enter();
        lock.lock();
    }
    if (!network_.aborted_.empty()) throw std::runtime_error(network_.aborted_);
    const auto t0 = Clock::now();
    auto& q = network_.queues_[key];
    Bytes m = std::move(q.front());
    q.pop_front();
    transfer_seconds_ += seconds_since(t0);
    return m;
}

void InProcessNetwork::abort(const std::string& why) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (aborted_.empty()) aborted_ = why.empty() ? "distributed run aborted" : why;
    }
    arrived_.notify_all();
}

void InProcessTransport::enter() {
    if (network_.one_at_a_time_) network_.turn_.lock();
}

void InProcessTransport::leave() {
    if (network_.one_at_a_time_) network_.turn_.unlock();
}

}  // namespace concord
