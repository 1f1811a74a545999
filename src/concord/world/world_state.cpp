#include "concord/world/world_state.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "concord/math/error.hpp"
#include "concord/world/atomic_file.hpp"

namespace concord {

namespace {

constexpr char kMagic[8] = {'C', 'N', 'C', 'R', 'D', 'S', 'T', 'A'};
// Version 5 appends the fluid's particles (a byte count, then fluid_state_bytes).
// Version 4 appends the augmented-Lagrangian contact multipliers (a byte count, then
// al_memory_bytes). Version 3 stores the number of coordinates (elastic bodies add modal ones to the 12 per
// body) and the number of bodies after the header's other fields; version 2 stored the
// coordinates only and version 1 the bodies only; both are still read.
constexpr std::uint32_t kVersion = 5;
constexpr std::uint32_t kByteOrderMark = 0x01020304;

template <typename T>
void put(std::ostream& out, const T& v) {
    out.write(reinterpret_cast<const char*>(&v), sizeof(T));
}

template <typename T>
bool get(std::istream& in, T& v) {
    return static_cast<bool>(in.read(reinterpret_cast<char*>(&v), sizeof(T)));
}

bool same_bits(const VecX& a, const VecX& b) {
    return a.size() == b.size() &&
           (a.size() == 0 || std::memcmp(a.data(), b.data(),
                                         sizeof(double) * static_cast<std::size_t>(a.size())) == 0);
}

/// A section of bytes: its size (uint64), then the bytes. The size must fit in what the stream
/// still holds (when it can tell).
std::vector<std::uint8_t> read_section(std::istream& in, const std::string& path,
                                       const std::string& what) {
    std::uint64_t size = 0;
    if (!get(in, size)) throw InputError(path + ": truncated " + what);
    const auto at = in.tellg();
    if (at != std::istream::pos_type(-1)) {
        in.seekg(0, std::ios::end);
        const auto end = in.tellg();
        in.seekg(at);
        if (end != std::istream::pos_type(-1) && static_cast<std::uint64_t>(end - at) < size)
            throw InputError(path + ": truncated " + what);
    }
    std::vector<std::uint8_t> packed(static_cast<std::size_t>(size));
    if (!in.read(reinterpret_cast<char*>(packed.data()), static_cast<std::streamsize>(size)))
        throw InputError(path + ": truncated " + what);
    return packed;
}

bool same_bits(double a, double b) {
    return std::memcmp(&a, &b, sizeof(double)) == 0;
}

}  // namespace

bool WorldState::bitwise_equal(const WorldState& o) const {
    return same_bits(time, o.time) && steps == o.steps && same_bits(q, o.q) &&
           same_bits(q_dot, o.q_dot) && same_bits(barrier_stiffness, o.barrier_stiffness) &&
           time_step_level == o.time_step_level && level_successes == o.level_successes &&
           al_memory_bytes(contact_multipliers) == al_memory_bytes(o.contact_multipliers) &&
           fluid_state_bytes(fluid) == fluid_state_bytes(o.fluid);
}

void check_state_fits(const WorldState& s, int num_bodies, Eigen::Index num_coordinates) {
    if (s.q.size() != num_coordinates || s.q_dot.size() != num_coordinates)
        throw InputError("world state has " + std::to_string(s.q.size()) +
                         " coordinates, the world has " + std::to_string(num_coordinates));
    if (s.num_bodies >= 0 && s.num_bodies != num_bodies)
        throw InputError("world state has " + std::to_string(s.num_bodies) +
                         " bodies, the world has " + std::to_string(num_bodies));
    if (!s.q.allFinite() || !s.q_dot.allFinite() || !std::isfinite(s.time) ||
        !std::isfinite(s.barrier_stiffness))
        throw InputError("world state is not finite");
}

void write_world_state(std::ostream& out, const WorldState& s) {
    if (s.q.size() != s.q_dot.size())
        throw std::logic_error("write_world_state: q and q_dot sizes differ");
    out.write(kMagic, sizeof(kMagic));
    put(out, kVersion);
    put(out, kByteOrderMark);
    put(out, static_cast<std::uint64_t>(s.q.size()));
    put(out, s.time);
    put(out, static_cast<std::int64_t>(s.steps));
    put(out, s.barrier_stiffness);
    put(out, static_cast<std::int32_t>(s.time_step_level));
    put(out, static_cast<std::int32_t>(s.level_successes));
    put(out, static_cast<std::int64_t>(s.num_bodies));
    out.write(reinterpret_cast<const char*>(s.q.data()),
              static_cast<std::streamsize>(sizeof(double) * static_cast<std::size_t>(s.q.size())));
    out.write(
        reinterpret_cast<const char*>(s.q_dot.data()),
        static_cast<std::streamsize>(sizeof(double) * static_cast<std::size_t>(s.q_dot.size())));
    const std::vector<std::uint8_t> multipliers = al_memory_bytes(s.contact_multipliers);
    put(out, static_cast<std::uint64_t>(multipliers.size()));
    out.write(reinterpret_cast<const char*>(multipliers.data()),
              static_cast<std::streamsize>(multipliers.size()));
    const std::vector<std::uint8_t> fluid = fluid_state_bytes(s.fluid);
    put(out, static_cast<std::uint64_t>(fluid.size()));
    out.write(reinterpret_cast<const char*>(fluid.data()), static_cast<std::streamsize>(fluid.size()));
}

void save_world_state(const WorldState& s, const std::string& path) {
    if (s.q.size() != s.q_dot.size())
        throw InputError(path + ": inconsistent world state (q and q_dot sizes)");
    std::ostringstream out(std::ios::binary);
    write_world_state(out, s);
    write_file_atomically(path, out.str());
}

WorldState read_world_state(std::istream& in, const std::string& path) {
    char magic[sizeof(kMagic)];
    if (!in.read(magic, sizeof(magic)) || std::memcmp(magic, kMagic, sizeof(kMagic)) != 0)
        throw InputError(path + ": not a Concord world-state file");
    std::uint32_t version = 0, bom = 0;
    if (!get(in, version) || !get(in, bom)) throw InputError(path + ": truncated header");
    if (version < 1 || version > kVersion)
        throw InputError(path + ": unsupported world-state version " + std::to_string(version));
    if (bom != kByteOrderMark) throw InputError(path + ": written with another byte order");
    std::uint64_t coordinates = 0;
    std::int64_t steps = 0;
    std::int32_t level = 0, successes = 0;
    WorldState s;
    if (!get(in, coordinates) || !get(in, s.time) || !get(in, steps) || !get(in, s.barrier_stiffness) ||
        !get(in, level) || !get(in, successes))
        throw InputError(path + ": truncated header");
    std::int64_t bodies = -1;
    if (version >= 3 && !get(in, bodies)) throw InputError(path + ": truncated header");
    if (version == 1) {
        bodies = static_cast<std::int64_t>(coordinates);
        coordinates *= 12;
    }
    constexpr std::uint64_t kMaxCoordinates = 1ull << 36;
    if (coordinates > kMaxCoordinates) throw InputError(path + ": implausible state size");
    if (bodies < -1 || (bodies >= 0 && static_cast<std::uint64_t>(bodies) * 12 > coordinates))
        throw InputError(path + ": implausible body count " + std::to_string(bodies));
    s.num_bodies = static_cast<int>(bodies);
    s.steps = static_cast<int>(steps);
    s.time_step_level = level;
    s.level_successes = successes;
    // The sizes must fit in what the stream still holds before anything is allocated (a damaged
    // count must not ask for gigabytes).
    const auto here = in.tellg();
    if (here != std::istream::pos_type(-1)) {
        in.seekg(0, std::ios::end);
        const auto end = in.tellg();
        in.seekg(here);
        if (end != std::istream::pos_type(-1) &&
            static_cast<std::uint64_t>(end - here) < 2 * sizeof(double) * coordinates)
            throw InputError(path + ": truncated state (expected " + std::to_string(coordinates) +
                             " coordinates)");
    }
    const auto n = static_cast<Eigen::Index>(coordinates);
    s.q.resize(n);
    s.q_dot.resize(n);
    const auto bytes = static_cast<std::streamsize>(sizeof(double) * static_cast<std::size_t>(n));
    if (!in.read(reinterpret_cast<char*>(s.q.data()), bytes) ||
        !in.read(reinterpret_cast<char*>(s.q_dot.data()), bytes))
        throw InputError(path + ": truncated state (expected " + std::to_string(coordinates) +
                         " coordinates)");
    if (version >= 4) {
        const std::vector<std::uint8_t> packed = read_section(in, path, "contact multipliers");
        try {
            s.contact_multipliers = al_memory_from_bytes(packed);
        } catch (const std::runtime_error& e) {
            throw InputError(path + ": " + e.what());
        }
    }
    if (version >= 5) {
        const std::vector<std::uint8_t> packed = read_section(in, path, "fluid state");
        s.fluid = fluid_state_from_bytes(packed, path);
    }
    return s;
}

WorldState load_world_state(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open for reading");
    WorldState s = read_world_state(in, path);
    if (in.peek() != std::char_traits<char>::eof()) throw InputError(path + ": trailing data");
    return s;
}

}  // namespace concord
