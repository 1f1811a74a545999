// Mesh files (OBJ and PLY by Concord's readers, STL through assimp): the first byte picks the
// format, the rest is the file.
#include <cstdint>

#include "concord/geometry/mesh_io.hpp"
#include "concord/math/error.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    static const char* const kNames[] = {"m.obj", "m.stl", "m.ply"};
    const std::string path = concord::fuzz::write_input(kNames[data[0] % 3], data + 1, size - 1);
    try {
        (void)concord::load_mesh(path);
    } catch (const concord::InputError&) {
    }
    return 0;
}
