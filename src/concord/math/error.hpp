// The error type for bad input at the boundary (files, JSON, CLI arguments).
#pragma once

#include <stdexcept>
#include <string>

namespace concord {

/// Thrown for input the user can fix: a missing file, a malformed row, an open mesh where a
/// volume is needed. The message is one line naming the file, key or element at fault; the CLI
/// prints it to stderr and exits with code 2.
class InputError : public std::runtime_error {
public:
    explicit InputError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace concord
