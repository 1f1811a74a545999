#include "concord/export/static_http_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "concord/export/http_request_path.hpp"
#include "concord/math/error.hpp"

namespace concord {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxHeaderBytes = 16 * 1024;

/// Sends all of `data`; false when the peer went away.
bool send_all(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

const char* reason_phrase(int status) {
    switch (status) {
        case 200:
            return "OK";
        case 400:
            return "Bad Request";
        case 404:
            return "Not Found";
        case 405:
            return "Method Not Allowed";
        case 431:
            return "Request Header Fields Too Large";
        case 503:
            return "Service Unavailable";
        default:
            return "Error";
    }
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

struct Request {
    std::string method, target, version;
    bool keep_alive = true;
};

/// Parses the request line and the Connection header of one request head.
std::optional<Request> parse_request(const std::string& head) {
    std::istringstream in(head);
    Request r;
    std::string line;
    if (!std::getline(in, line)) return std::nullopt;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::istringstream first(line);
    if (!(first >> r.method >> r.target >> r.version)) return std::nullopt;
    if (r.version != "HTTP/1.1" && r.version != "HTTP/1.0") return std::nullopt;
    r.keep_alive = r.version == "HTTP/1.1";
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const std::size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        if (lower(line.substr(0, colon)) != "connection") continue;
        const std::string value = lower(line.substr(colon + 1));
        if (value.find("close") != std::string::npos) r.keep_alive = false;
        if (value.find("keep-alive") != std::string::npos) r.keep_alive = true;
    }
    return r;
}

/// The file a decoded path names inside its mount, or nullopt when there is none (or it lies
/// outside the mount once symbolic links are resolved).
std::optional<fs::path> resolve(const std::vector<HttpMount>& mounts, const std::string& path,
                                const std::string& index_file) {
    const std::string url = "/" + path;
    const HttpMount* best = nullptr;
    for (const HttpMount& m : mounts) {
        if (url.compare(0, m.prefix.size(), m.prefix) == 0 &&
            (best == nullptr || m.prefix.size() > best->prefix.size())) {
            best = &m;
        }
    }
    if (best == nullptr) return std::nullopt;
    std::string rel = url.substr(best->prefix.size());
    if (rel.empty() || rel.back() == '/') rel += index_file;
    std::error_code ec;
    const fs::path file = fs::canonical(best->root / rel, ec);
    if (ec) return std::nullopt;
    const fs::path root = fs::canonical(best->root, ec);
    if (ec) return std::nullopt;
    // The canonical file must still be below the canonical root: this catches links that point
    // out of the served folder.
    auto [root_end, file_it] = std::mismatch(root.begin(), root.end(), file.begin(), file.end());
    if (root_end != root.end()) return std::nullopt;
    if (!fs::is_regular_file(file, ec)) return std::nullopt;
    return file;
}

}  // namespace

HttpAnswer answer_request(const std::vector<HttpMount>& mounts, const std::string& head,
                          const std::string& index_file) {
    HttpAnswer a;
    const std::optional<Request> request = parse_request(head);
    if (!request) {
        a.status = 400;
    } else if (request->method != "GET" && request->method != "HEAD") {
        a.status = 405;
    } else if (auto path = decode_request_path(request->target)) {
        a.file = resolve(mounts, *path, index_file);
        if (!a.file) a.status = 404;
    } else {
        a.status = 400;
    }
    a.keep_alive = request && request->keep_alive && a.status != 400;
    a.head_only = request && request->method == "HEAD";
    return a;
}

StaticHttpServer::StaticHttpServer(std::vector<HttpMount> mounts, const HttpServerOptions& options)
    : mounts_(std::move(mounts)), options_(options) {
    for (const HttpMount& m : mounts_) {
        std::error_code ec;
        if (!fs::is_directory(m.root, ec))
            throw InputError(m.root.string() + ": folder to serve not found");
    }
    if (options_.port < 0 || options_.port > 65535)
        throw InputError("--port: expected 0..65535, got " + std::to_string(options_.port));
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0) throw InputError(std::string("cannot create a socket: ") + strerror(errno));
    const int yes = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(options_.port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        const int err = errno;
        ::close(listen_fd_);
        listen_fd_ = -1;
        const std::string where = "127.0.0.1:" + std::to_string(options_.port);
        if (err == EADDRINUSE)
            throw InputError(where +
                             ": port already in use (choose another with --port, or omit "
                             "--port to get a free one)");
        throw InputError(where + ": cannot listen (" + strerror(err) + ")");
    }
    if (::listen(listen_fd_, 64) != 0) {
        const int err = errno;
        ::close(listen_fd_);
        listen_fd_ = -1;
        throw InputError(std::string("cannot listen on 127.0.0.1: ") + strerror(err));
    }
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
}

StaticHttpServer::~StaticHttpServer() {
    if (listen_fd_ >= 0) ::close(listen_fd_);
}

std::string StaticHttpServer::url() const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/";
}

void StaticHttpServer::serve(const std::atomic<bool>& stop, double max_seconds) {
    const auto start = std::chrono::steady_clock::now();
    struct Worker {
        std::thread thread;
        std::shared_ptr<std::atomic<bool>> done;
    };
    std::vector<Worker> workers;
    auto join_finished = [&workers] {
        std::erase_if(workers, [](Worker& w) {
            if (!w.done->load()) return false;
            w.thread.join();
            return true;
        });
    };
    while (!stop.load()) {
        join_finished();
        if (max_seconds > 0 &&
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >=
                max_seconds) {
            break;
        }
        pollfd p{listen_fd_, POLLIN, 0};
        const int ready = ::poll(&p, 1, 200);
        if (ready <= 0) continue;  // timeout, or EINTR from a signal: re-check stop
        const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) continue;
        if (open_connections_.load() >= options_.max_connections) {
            const std::string busy =
                "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: "
                "close\r\n\r\n";
            send_all(fd, busy.data(), busy.size());
            ::close(fd);
            continue;
        }
        // Headers and bodies go out in separate writes; without this, Nagle's algorithm and
        // delayed ACKs stall every small response by tens of milliseconds.
        const int one = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        ++open_connections_;
        auto done = std::make_shared<std::atomic<bool>>(false);
        workers.push_back({std::thread([this, fd, done] {
                               handle_connection(fd);
                               ::close(fd);
                               --open_connections_;
                               *done = true;
                           }),
                           done});
    }
    stopping_ = true;
    for (auto& w : workers) w.thread.join();
}

void StaticHttpServer::handle_connection(int fd) {
    const int idle_ms = static_cast<int>(options_.idle_timeout_seconds * 1000);
    std::string buffer;
    char chunk[8192];
    for (;;) {
        // Read one request head.
        std::size_t head_end;
        while ((head_end = buffer.find("\r\n\r\n")) == std::string::npos) {
            if (buffer.size() > kMaxHeaderBytes) {
                const std::string r =
                    "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 0\r\n"
                    "Connection: close\r\n\r\n";
                send_all(fd, r.data(), r.size());
                return;
            }
            pollfd p{fd, POLLIN, 0};
            if (stopping_.load() || ::poll(&p, 1, idle_ms) <= 0) return;
            const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
            if (n <= 0) return;
            buffer.append(chunk, static_cast<std::size_t>(n));
        }
        const std::string head = buffer.substr(0, head_end);
        buffer.erase(0, head_end + 4);  // GET and HEAD carry no body
        ++requests_;

        const HttpAnswer answer = answer_request(mounts_, head, options_.index_file);
        int status = answer.status;
        std::optional<fs::path> file = answer.file;
        const bool keep_alive = answer.keep_alive;

        std::ifstream in;
        std::uintmax_t size = 0;
        if (file) {
            in.open(*file, std::ios::binary);
            std::error_code ec;
            size = fs::file_size(*file, ec);
            if (!in || ec) {
                status = 404;
                file.reset();
            }
        }
        std::string body;
        if (!file) {
            body = std::to_string(status) + " " + reason_phrase(status) + "\n";
            size = body.size();
        }
        std::string header = "HTTP/1.1 " + std::to_string(status) + " " + reason_phrase(status) +
                             "\r\nContent-Type: " +
                             (file ? content_type_for(file->filename().string())
                                   : std::string("text/plain; charset=utf-8")) +
                             "\r\nContent-Length: " + std::to_string(size) +
                             "\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n";
        if (status == 405) header += "Allow: GET, HEAD\r\n";
        header += keep_alive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";
        if (!send_all(fd, header.data(), header.size())) return;
        if (!answer.head_only) {
            if (file) {
                // Exactly Content-Length bytes, even if the file grows meanwhile (frames.jsonl
                // of a run still in progress): the rest is seen on the next reload.
                std::vector<char> data(1 << 16);
                std::uintmax_t left = size;
                while (left > 0) {
                    const auto want =
                        static_cast<std::streamsize>(std::min<std::uintmax_t>(left, data.size()));
                    in.read(data.data(), want);
                    const auto n = static_cast<std::size_t>(in.gcount());
                    if (n == 0) return;  // the file shrank: the peer sees a short body
                    if (!send_all(fd, data.data(), n)) return;
                    left -= n;
                }
            } else if (!send_all(fd, body.data(), body.size())) {
                return;
            }
        }
        if (!keep_alive) return;
    }
}

}  // namespace concord
