#include "concord/mpi/mpi_transport.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace concord {

namespace {
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

void check(int rc, const char* what) {
    if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI error in ") + what);
}
}  // namespace

struct MpiTransport::Pending {
    Bytes buffer;
    MPI_Request request = MPI_REQUEST_NULL;
};

namespace {
int g_thread_level = MPI_THREAD_SINGLE;
}  // namespace

MpiTransport::MpiTransport(double worker_timeout) {
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
    if (rank_ == 0 && MpiSession::threads_supported()) worker_timeout_ = worker_timeout;
    last_heard_.assign(static_cast<std::size_t>(size_), Clock::now());
}

void MpiTransport::check_workers_alive() {
    if (worker_timeout_ <= 0.0) return;
    for (;;) {
        int arrived = 0;
        MPI_Status status;
        check(MPI_Iprobe(MPI_ANY_SOURCE, static_cast<int>(Tag::Heartbeat), MPI_COMM_WORLD,
                         &arrived, &status),
              "MPI_Iprobe");
        if (!arrived) break;
        char none = 0;
        check(MPI_Recv(&none, 1, MPI_BYTE, status.MPI_SOURCE, static_cast<int>(Tag::Heartbeat),
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE),
              "MPI_Recv");
        last_heard_[static_cast<std::size_t>(status.MPI_SOURCE)] = Clock::now();
    }
    const auto now = Clock::now();
    for (int r = 1; r < size_; ++r) {
        const double silent =
            std::chrono::duration<double>(now - last_heard_[static_cast<std::size_t>(r)]).count();
        if (silent > worker_timeout_)
            throw WorkerLost(r, "worker rank " + std::to_string(r) + " has not answered for " +
                                    std::to_string(static_cast<int>(silent)) +
                                    " s (the process died or stopped)");
    }
}

MpiTransport::~MpiTransport() {
    for (auto& p : pending_) MPI_Wait(&p->request, MPI_STATUS_IGNORE);
}

void MpiTransport::complete_finished_sends() {
    while (!pending_.empty()) {
        int done = 0;
        MPI_Test(&pending_.front()->request, &done, MPI_STATUS_IGNORE);
        if (!done) break;
        pending_.pop_front();
    }
}

void MpiTransport::send(int to, Tag tag, Bytes message) {
    // Non-blocking: workers send to each other before receiving, so a blocking send of a large
    // message could wait for a receive that never comes first. The buffer lives until done.
    const auto t0 = Clock::now();
    auto p = std::make_unique<Pending>();
    p->buffer = std::move(message);
    check(MPI_Isend(p->buffer.data(), static_cast<int>(p->buffer.size()), MPI_BYTE, to,
                    static_cast<int>(tag), MPI_COMM_WORLD, &p->request),
          "MPI_Isend");
    pending_.push_back(std::move(p));
    complete_finished_sends();
    transfer_seconds_ += seconds_since(t0);
}

Bytes MpiTransport::receive(int from, Tag tag) {
    // Wait without burning a core: MPI_Probe busy-polls, which with more ranks than cores (the
    // controller beside its workers) takes a core from a worker that computes. Poll briefly,
    // then sleep between polls, up to 200 us (a small latency next to a local solve).
    MPI_Status status;
    int arrived = 0;
    for (int polls = 0;; ++polls) {
        check(MPI_Iprobe(from, static_cast<int>(tag), MPI_COMM_WORLD, &arrived, &status),
              "MPI_Iprobe");
        if (arrived) break;
        if (polls % 64 == 0) check_workers_alive();
        if (polls >= 100) {
            const int us = std::min(200, 5 * (polls - 99));
            std::this_thread::sleep_for(std::chrono::microseconds(us));
        }
    }
    const auto t0 = Clock::now();
    int count = 0;
    check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
    Bytes b(static_cast<std::size_t>(count));
    check(MPI_Recv(b.data(), count, MPI_BYTE, from, static_cast<int>(tag), MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE),
          "MPI_Recv");
    transfer_seconds_ += seconds_since(t0);
    if (!last_heard_.empty()) last_heard_[static_cast<std::size_t>(from)] = Clock::now();
    return b;
}

struct MpiHeartbeat::State {
    std::mutex mutex;
    std::condition_variable wake;
    bool stop = false;
    std::thread thread;
};

MpiHeartbeat::MpiHeartbeat(double interval) {
    if (!MpiSession::threads_supported()) return;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) return;
    state_ = std::make_unique<State>();
    state_->thread = std::thread([s = state_.get(), interval] {
        static const char kBeat = 0;
        std::vector<MPI_Request> sent;
        std::unique_lock<std::mutex> lock(s->mutex);
        while (!s->stop) {
            MPI_Request r = MPI_REQUEST_NULL;
            if (MPI_Isend(&kBeat, 1, MPI_BYTE, 0, static_cast<int>(Tag::Heartbeat), MPI_COMM_WORLD,
                          &r) == MPI_SUCCESS)
                sent.push_back(r);
            // Drop the sends that completed (an empty message is sent eagerly).
            std::erase_if(sent, [](MPI_Request& q) {
                int done = 0;
                MPI_Test(&q, &done, MPI_STATUS_IGNORE);
                return done != 0;
            });
            s->wake.wait_for(lock, std::chrono::duration<double>(interval), [s] { return s->stop; });
        }
        // The controller may have stopped receiving: do not wait for these.
        for (MPI_Request& q : sent) MPI_Request_free(&q);
    });
}

MpiHeartbeat::~MpiHeartbeat() {
    if (!state_) return;
    {
        std::lock_guard<std::mutex> lock(state_->mutex);
        state_->stop = true;
    }
    state_->wake.notify_all();
    state_->thread.join();
}

bool MpiSession::threads_supported() {
    return g_thread_level >= MPI_THREAD_MULTIPLE;
}

MpiSession::MpiSession(int* argc, char*** argv) {
    // MPI_THREAD_MULTIPLE for the workers' heartbeat threads (MpiHeartbeat); the solver's own
    // TBB threads never call MPI.
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    g_thread_level = provided;
}

MpiSession::~MpiSession() {
    MPI_Finalize();
}

void MpiSession::abort(int code) {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);
}

}  // namespace concord
