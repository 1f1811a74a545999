#include "concord/mpi/mpi_transport.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

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

MpiTransport::MpiTransport() {
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
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
    return b;
}

MpiSession::MpiSession(int* argc, char*** argv) {
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
}

MpiSession::~MpiSession() {
    MPI_Finalize();
}

void MpiSession::abort(int code) {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);
}

}  // namespace concord
