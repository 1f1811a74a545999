// Scene files: any bytes are either a scene or an InputError, never a crash, a hang or a leak.
#include <cstdint>
#include <string>

#include "concord/math/error.hpp"
#include "concord/scene/json_file.hpp"
#include "concord/scene/scene_parser.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const nlohmann::json json = concord::parse_json_text(text, "fuzz.json");
        // Relative mesh and URDF paths resolve inside an empty scratch folder.
        (void)concord::parse_scene(json, "fuzz.json", concord::fuzz::scratch().string());
    } catch (const concord::InputError&) {
    }
    return 0;
}
