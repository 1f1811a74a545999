#include "concord/world/checkpoint.hpp"

#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "concord/math/error.hpp"
#include "concord/world/atomic_file.hpp"

namespace concord {

namespace {

constexpr char kMagic[8] = {'C', 'N', 'C', 'R', 'D', 'C', 'K', 'P'};
constexpr std::uint32_t kVersion = 1;
constexpr std::uint32_t kByteOrderMark = 0x01020304;
// Strings and the simulator's bytes are bounded so that a damaged length cannot ask for
// gigabytes; a distributed run's extension grows with its shared bodies (~100 bytes each).
constexpr std::uint64_t kMaxString = 1u << 16;
constexpr std::uint64_t kMaxExtension = 1ull << 34;

template <typename T>
void put(std::string& out, const T& v) {
    out.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

void put_bytes(std::string& out, const void* data, std::size_t n) {
    put(out, static_cast<std::uint64_t>(n));
    out.append(static_cast<const char*>(data), n);
}

class Reader {
  public:
    Reader(const std::string& bytes, const std::string& path) : bytes_(bytes), path_(path) {}
    template <typename T>
    T get(const char* what) {
        T v;
        need(sizeof(T), what);
        std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
        pos_ += sizeof(T);
        return v;
    }
    std::string get_bytes(std::uint64_t limit, const char* what) {
        const auto n = get<std::uint64_t>(what);
        if (n > limit) throw InputError(path_ + ": implausible size of the " + what);
        need(static_cast<std::size_t>(n), what);
        std::string s = bytes_.substr(pos_, static_cast<std::size_t>(n));
        pos_ += static_cast<std::size_t>(n);
        return s;
    }
    std::size_t position() const { return pos_; }

  private:
    void need(std::size_t n, const char* what) const {
        if (bytes_.size() - pos_ < n) throw InputError(path_ + ": truncated checkpoint (" + what + ")");
    }
    const std::string& bytes_;
    const std::string& path_;
    std::size_t pos_ = 0;
};

}  // namespace

std::uint64_t fnv1a64(const void* bytes, std::size_t size) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    const auto* p = static_cast<const unsigned char*>(bytes);
    for (std::size_t i = 0; i < size; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

void save_checkpoint(const Checkpoint& c, const std::string& path) {
    std::string out(kMagic, sizeof(kMagic));
    put(out, kVersion);
    put(out, kByteOrderMark);
    put(out, static_cast<std::int64_t>(c.frame));
    put_bytes(out, c.scene_digest.data(), c.scene_digest.size());
    std::ostringstream state(std::ios::binary);
    if (c.world.q.size() != c.world.q_dot.size())
        throw InputError(path + ": inconsistent world state (q and q_dot sizes)");
    write_world_state(state, c.world);
    const std::string world = state.str();
    put_bytes(out, world.data(), world.size());
    put_bytes(out, c.simulator.data(), c.simulator.size());
    put_bytes(out, c.extension.data(), c.extension.size());
    put(out, fnv1a64(out.data(), out.size()));
    write_file_atomically(path, out, /*durable=*/true);
}

Checkpoint load_checkpoint(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open for reading");
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw InputError(path + ": read error");
    if (bytes.size() < sizeof(kMagic) || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0)
        throw InputError(path + ": not a Concord checkpoint");
    Reader r(bytes, path);
    for (std::size_t i = 0; i < sizeof(kMagic); ++i) r.get<char>("magic");
    const auto version = r.get<std::uint32_t>("header");
    const auto bom = r.get<std::uint32_t>("header");
    if (version != kVersion)
        throw InputError(path + ": unsupported checkpoint version " + std::to_string(version));
    if (bom != kByteOrderMark) throw InputError(path + ": written with another byte order");
    if (bytes.size() < sizeof(std::uint64_t)) throw InputError(path + ": truncated checkpoint");
    const std::size_t body = bytes.size() - sizeof(std::uint64_t);
    std::uint64_t sum = 0;
    std::memcpy(&sum, bytes.data() + body, sizeof(sum));
    if (sum != fnv1a64(bytes.data(), body))
        throw InputError(path + ": damaged checkpoint (checksum mismatch)");
    Checkpoint c;
    const auto frame = r.get<std::int64_t>("frame");
    if (frame < 0 || frame > 1'000'000'000) throw InputError(path + ": implausible frame number");
    c.frame = static_cast<int>(frame);
    c.scene_digest = r.get_bytes(kMaxString, "scene digest");
    const std::string world = r.get_bytes(body, "world state");
    std::istringstream state(world, std::ios::binary);
    c.world = read_world_state(state, path);
    if (state.peek() != std::char_traits<char>::eof())
        throw InputError(path + ": trailing data after the world state");
    c.simulator = r.get_bytes(kMaxString, "simulator name");
    const std::string ext = r.get_bytes(kMaxExtension, "simulator state");
    c.extension.assign(ext.begin(), ext.end());
    if (r.position() != body) throw InputError(path + ": trailing data");
    return c;
}

}  // namespace concord
