// Shared by the libFuzzer harnesses (fuzz/README.md): a scratch folder per process and input
// bytes written to a file there, for readers that take a path.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace concord::fuzz {

/// A folder of this process under the system temp directory (removed by the OS's tmp policy;
/// the harnesses run for minutes).
inline const std::filesystem::path& scratch() {
    static const std::filesystem::path dir = [] {
        auto d = std::filesystem::temp_directory_path() /
                 ("concord_fuzz_" + std::to_string(::getpid()));
        std::filesystem::create_directories(d);
        return d;
    }();
    return dir;
}

/// Writes the bytes to scratch()/name and returns the path.
inline std::string write_input(const std::string& name, const std::uint8_t* data, std::size_t size) {
    const std::string path = (scratch() / name).string();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    return path;
}

}  // namespace concord::fuzz
