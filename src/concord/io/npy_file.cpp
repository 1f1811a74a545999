#include "concord/io/npy_file.hpp"

#include <bit>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>

#include "concord/math/error.hpp"

namespace concord {

namespace {

constexpr char kMagic[] = "\x93NUMPY";  // 6 bytes, then version 1.0

static_assert(std::endian::native == std::endian::little,
              "the .npy writer stores little-endian floats by copying memory");

}  // namespace

std::string npy_bytes(const NpyMatrix& m) {
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" +
                         std::to_string(m.rows) + ", " + std::to_string(m.cols) + "), }";
    // Magic (6) + version (2) + length (2) + header + '\n', padded with spaces to 64 bytes.
    const std::size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header.push_back('\n');
    std::string out(kMagic, 6);
    out.push_back('\x01');
    out.push_back('\x00');
    const auto len = static_cast<std::uint16_t>(header.size());
    out.push_back(static_cast<char>(len & 0xff));
    out.push_back(static_cast<char>(len >> 8));
    out += header;
    const std::size_t bytes = m.data.size() * sizeof(float);
    const std::size_t at = out.size();
    out.resize(at + bytes);
    if (bytes) std::memcpy(out.data() + at, m.data.data(), bytes);
    return out;
}

NpyMatrix read_npy(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open for reading");
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.size() < 10 || bytes.compare(0, 6, kMagic, 6) != 0)
        throw InputError(path + ": not a .npy file");
    if (bytes[6] != 1 || bytes[7] != 0)
        throw InputError(path + ": .npy format version other than 1.0");
    const std::size_t len = static_cast<unsigned char>(bytes[8]) |
                            (static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    if (bytes.size() < 10 + len) throw InputError(path + ": truncated .npy header");
    const std::string header = bytes.substr(10, len);
    static const std::regex shape(
        R"(^\{'descr': '<f4', 'fortran_order': False, 'shape': \((\d{1,12}), (\d{1,12})\), \} *\n$)");
    std::smatch m;
    if (!std::regex_match(header, m, shape))
        throw InputError(path + ": expected a 2-d little-endian float32 array in C order");
    NpyMatrix out;
    out.rows = std::stoull(m[1].str());
    out.cols = std::stoull(m[2].str());
    const std::size_t body = bytes.size() - 10 - len;
    if (out.cols != 0 && out.rows > body / sizeof(float) / out.cols)
        throw InputError(path + ": truncated .npy data");
    if (body != out.rows * out.cols * sizeof(float))
        throw InputError(path + ": .npy data of " + std::to_string(body) + " bytes for shape (" +
                         std::to_string(out.rows) + ", " + std::to_string(out.cols) + ")");
    out.data.resize(out.rows * out.cols);
    if (body) std::memcpy(out.data.data(), bytes.data() + 10 + len, body);
    return out;
}

}  // namespace concord
