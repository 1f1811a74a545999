// A minimal read-only HTTP/1.1 file server on 127.0.0.1, for `concord view`: it serves the
// viewer's built assets and an output directory, nothing else, to the local machine only.
#pragma once

#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace concord {

/// URL prefix -> folder: "/data/" with root DIR serves DIR/x for "/data/x". The longest
/// matching prefix wins; "/" catches the rest.
struct HttpMount {
    std::string prefix;
    std::filesystem::path root;
};

/// What the server answers to one request head (the text before the blank line): the status,
/// and for 200 the file (canonical, inside its mount's canonical root), whether the connection
/// stays open, and whether only the head is sent (HEAD). No I/O but resolving the path on disk;
/// the server's connection loop sends what it says (and the fuzz harness checks it).
struct HttpAnswer {
    int status = 200;
    std::optional<std::filesystem::path> file;
    bool keep_alive = false;
    bool head_only = false;
};
HttpAnswer answer_request(const std::vector<HttpMount>& mounts, const std::string& head,
                          const std::string& index_file);

struct HttpServerOptions {
    int port = 0;                           ///< 0: let the system choose a free port
    std::string index_file = "index.html";  ///< served for a path ending in '/'
    int max_connections = 32;               ///< more at once are answered 503
    double idle_timeout_seconds = 5.0;      ///< a keep-alive connection idle this long is closed
};

/// Only GET and HEAD of regular files inside a mount are answered; a path that leaves its mount
/// (a ".." segment, or a symbolic link pointing outside) is refused, never followed.
class StaticHttpServer {
  public:
    /// Binds and listens on 127.0.0.1. Throws InputError "127.0.0.1:PORT: port already in use
    /// ..." when the port is taken, and InputError for a mount folder that does not exist.
    StaticHttpServer(std::vector<HttpMount> mounts, const HttpServerOptions& options);
    ~StaticHttpServer();
    StaticHttpServer(const StaticHttpServer&) = delete;
    StaticHttpServer& operator=(const StaticHttpServer&) = delete;

    int port() const { return port_; }
    /// "http://127.0.0.1:PORT/"
    std::string url() const;

    /// Answers requests until `stop` becomes true (checked at least every 200 ms) or, when
    /// max_seconds > 0, until that much time has passed. Each connection runs on its own thread;
    /// all have finished when this returns.
    void serve(const std::atomic<bool>& stop, double max_seconds = 0.0);

    /// Requests answered so far (any status).
    long requests_served() const { return requests_.load(); }

  private:
    void handle_connection(int fd);

    std::vector<HttpMount> mounts_;
    HttpServerOptions options_;
    int listen_fd_ = -1;
    int port_ = 0;
    std::atomic<long> requests_{0};
    std::atomic<int> open_connections_{0};
    std::atomic<bool> stopping_{false};
};

}  // namespace concord
