#include "concord/world/fluid_state.hpp"

#include <cstring>

#include "concord/math/error.hpp"

namespace concord {

std::vector<std::uint8_t> fluid_state_bytes(const FluidState& s) {
    const std::uint64_t n = s.x.size();
    std::vector<std::uint8_t> out(8 + n * 7 * 8);
    std::memcpy(out.data(), &n, 8);
    std::size_t at = 8;
    auto put = [&](double d) {
        std::memcpy(out.data() + at, &d, 8);
        at += 8;
    };
    for (std::size_t i = 0; i < n; ++i) {
        for (int a = 0; a < 3; ++a) put(s.x[i][a]);
        for (int a = 0; a < 3; ++a) put(s.v[i][a]);
        put(s.pressure[i]);
    }
    return out;
}

FluidState fluid_state_from_bytes(const std::vector<std::uint8_t>& bytes, const std::string& what) {
    std::uint64_t n = 0;
    if (bytes.size() < 8) throw InputError(what + ": truncated fluid state");
    std::memcpy(&n, bytes.data(), 8);
    if (n > (bytes.size() - 8) / 56 || bytes.size() != 8 + n * 56)
        throw InputError(what + ": fluid state of " + std::to_string(bytes.size()) +
                         " bytes does not hold the " + std::to_string(n) + " particles it names");
    FluidState s;
    s.x.resize(n);
    s.v.resize(n);
    s.pressure.resize(n);
    std::size_t at = 8;
    auto get = [&] {
        double d;
        std::memcpy(&d, bytes.data() + at, 8);
        at += 8;
        return d;
    };
    for (std::size_t i = 0; i < n; ++i) {
        for (int a = 0; a < 3; ++a) s.x[i][a] = get();
        for (int a = 0; a < 3; ++a) s.v[i][a] = get();
        s.pressure[i] = get();
    }
    return s;
}

}  // namespace concord
