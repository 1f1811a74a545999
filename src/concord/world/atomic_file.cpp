#include "concord/world/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "concord/math/error.hpp"

namespace concord {

void write_file_atomically(const std::string& path, std::string_view content, bool durable) {
    const std::string tmp = path + ".tmp";
    auto fail = [&](const char* what) {
        const std::string reason = std::strerror(errno);
        ::unlink(tmp.c_str());
        throw InputError(path + ": " + what + " (" + reason + ")");
    };
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) fail("cannot write file");
    std::size_t done = 0;
    while (done < content.size()) {
        const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            ::close(fd);
            fail("write failed");
        }
        done += static_cast<std::size_t>(n);
    }
    if (durable && ::fsync(fd) != 0) {
        ::close(fd);
        fail("write failed");
    }
    if (::close(fd) != 0) fail("write failed");
    if (std::rename(tmp.c_str(), path.c_str()) != 0) fail("cannot replace the file");
}

}  // namespace concord
