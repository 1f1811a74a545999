// Input files must be regular files: a device, a FIFO or a directory named where a file is
// expected could block a reader or feed it for ever (/dev/zero as a mesh), so it is refused.
#pragma once

#include <filesystem>
#include <string>

#include "concord/math/error.hpp"

namespace concord {

/// Throws InputError "PATH: not a regular file (...)" when `path` exists and is anything but a
/// regular file (symbolic links are followed). A missing file is left to the reader's message.
inline void require_regular_file(const std::string& path) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status) || std::filesystem::is_regular_file(status)) return;
    throw InputError(path + (std::filesystem::is_directory(status)
                                 ? ": is a directory, not a file"
                                 : ": not a regular file (a device, FIFO or socket)"));
}

}  // namespace concord
