#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "concord/export/static_http_server.hpp"
#include "concord/math/error.hpp"
#include "io/io_test_util.hpp"

namespace concord {
namespace {

/// Sends `request` raw on a fresh connection and returns everything until the server closes.
std::string http_exchange(int port, const std::string& request) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    timeval tv{3, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    std::string reply;
    char buf[4096];
    for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;)
        reply.append(buf, static_cast<std::size_t>(n));
    ::close(fd);
    return reply;
}

std::string get(int port, const std::string& target) {
    return http_exchange(port,
                         "GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
}

int status_of(const std::string& reply) {
    return reply.size() > 12 ? std::stoi(reply.substr(9, 3)) : -1;
}

std::string body_of(const std::string& reply) {
    const auto at = reply.find("\r\n\r\n");
    return at == std::string::npos ? "" : reply.substr(at + 4);
}

class ServerTest : public ::testing::Test {
  protected:
    test::ScratchDir scratch{"http_server"};
    std::unique_ptr<StaticHttpServer> server;
    std::atomic<bool> stop{false};
    std::thread thread;

    void SetUp() override {
        namespace fs = std::filesystem;
        fs::create_directories(scratch.path() / "assets");
        fs::create_directories(scratch.path() / "out" / "meshes");
        test::write_file(scratch.file("assets/index.html"), "<html>viewer</html>");
        test::write_file(scratch.file("out/frames.jsonl"), "{\"frame\": 0}\n");
        test::write_file(scratch.file("out/meshes/a b.obj"), "v 0 0 0\n");
        test::write_file(scratch.file("secret.txt"), "do not serve");
        fs::create_symlink(scratch.path() / "secret.txt", scratch.path() / "out" / "link.txt");
        server = std::make_unique<StaticHttpServer>(
            std::vector<HttpMount>{{"/data/", scratch.path() / "out"},
                                   {"/", scratch.path() / "assets"}},
            HttpServerOptions{});
        thread = std::thread([this] { server->serve(stop); });
    }
    void TearDown() override {
        stop = true;
        thread.join();
    }
};

TEST_F(ServerTest, ServesAssetsAndOutputFiles) {
    const std::string index = get(server->port(), "/");
    EXPECT_EQ(status_of(index), 200);
    EXPECT_EQ(body_of(index), "<html>viewer</html>");
    EXPECT_TRUE(test::contains(index, "Content-Type: text/html"));
    EXPECT_EQ(body_of(get(server->port(), "/data/frames.jsonl")), "{\"frame\": 0}\n");
    EXPECT_EQ(body_of(get(server->port(), "/data/meshes/a%20b.obj")), "v 0 0 0\n");
    EXPECT_EQ(server->url(), "http://127.0.0.1:" + std::to_string(server->port()) + "/");
}

TEST_F(ServerTest, RefusesEverythingOutsideTheMounts) {
    EXPECT_EQ(status_of(get(server->port(), "/../secret.txt")), 400);
    EXPECT_EQ(status_of(get(server->port(), "/data/../../secret.txt")), 400);
    EXPECT_EQ(status_of(get(server->port(), "/data/%2e%2e/secret.txt")), 400);
    EXPECT_EQ(status_of(get(server->port(), "/data/link.txt")), 404);  // link leaves the mount
    EXPECT_EQ(status_of(get(server->port(), "/data/missing.json")), 404);
    EXPECT_EQ(status_of(get(server->port(), "/data/meshes")), 404);  // a folder, no index
    const std::string refused = get(server->port(), "/../secret.txt");
    EXPECT_FALSE(test::contains(refused, "do not serve"));
}

TEST_F(ServerTest, OnlyGetAndHead) {
    const std::string head =
        http_exchange(server->port(), "HEAD / HTTP/1.1\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(status_of(head), 200);
    EXPECT_TRUE(test::contains(head, "Content-Length: 19"));
    EXPECT_EQ(body_of(head), "");
    const std::string post =
        http_exchange(server->port(), "POST / HTTP/1.1\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(status_of(post), 405);
    EXPECT_EQ(status_of(http_exchange(server->port(), "garbage\r\n\r\n")), 400);
}

TEST_F(ServerTest, KeepAliveAnswersSeveralRequestsOnOneConnection) {
    const std::string reply =
        http_exchange(server->port(),
                      "GET / HTTP/1.1\r\n\r\nGET /data/frames.jsonl HTTP/1.1\r\n"
                      "Connection: close\r\n\r\n");
    EXPECT_TRUE(test::contains(reply, "<html>viewer</html>"));
    EXPECT_TRUE(test::contains(reply, "{\"frame\": 0}"));
    EXPECT_EQ(server->requests_served(), 2);
}

TEST_F(ServerTest, APortInUseIsAClearError) {
    HttpServerOptions options;
    options.port = server->port();
    const std::string message = test::error_of([&] {
        StaticHttpServer second({{"/", scratch.path() / "assets"}}, options);
    });
    EXPECT_TRUE(test::contains(
        message, "127.0.0.1:" + std::to_string(server->port()) + ": port already in use"));
}

TEST(StaticHttpServer, MissingFolderIsAnInputError) {
    EXPECT_TRUE(test::contains(test::error_of([] {
                                   StaticHttpServer s({{"/", "/nonexistent/concord"}}, {});
                               }),
                               "/nonexistent/concord: folder to serve not found"));
}

TEST(StaticHttpServer, ServeStopsAfterMaxSeconds) {
    test::ScratchDir dir("http_max_seconds");
    StaticHttpServer s({{"/", dir.path()}}, {});
    std::atomic<bool> never{false};
    const auto start = std::chrono::steady_clock::now();
    s.serve(never, 0.3);
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_GE(took, 0.3);
    EXPECT_LT(took, 2.0);
}

}  // namespace
}  // namespace concord
