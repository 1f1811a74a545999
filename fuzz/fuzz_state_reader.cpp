// World-state files (World.save_state) and checkpoints (concord run, World.save_checkpoint):
// the first byte picks the reader.
#include <cstdint>

#include "concord/math/error.hpp"
#include "concord/world/checkpoint.hpp"
#include "concord/world/world_state.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::string path = concord::fuzz::write_input("state.bin", data + 1, size - 1);
    try {
        if (data[0] % 2)
            (void)concord::load_checkpoint(path);
        else
            (void)concord::load_world_state(path);
    } catch (const concord::InputError&) {
    }
    return 0;
}
