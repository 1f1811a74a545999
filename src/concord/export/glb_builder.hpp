// Assembles a glTF 2.0 binary file (.glb): a JSON document plus one binary buffer, with helpers
// for the buffer views and accessors that meshes and animations need.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace concord {

class GlbBuilder {
  public:
    /// glTF constants used here.
    static constexpr int kFloat = 5126;
    static constexpr int kUnsignedInt = 5125;
    static constexpr int kArrayBuffer = 34962;
    static constexpr int kElementArrayBuffer = 34963;

    GlbBuilder();

    /// The document; "buffers", "bufferViews" and "accessors" are managed by the builder, the
    /// caller fills in the rest (scenes, nodes, meshes, materials, animations).
    nlohmann::json& document() { return doc_; }

    /// Float accessor of `type` ("SCALAR", "VEC3", "VEC4") over `values` (count * components
    /// numbers), in a buffer view of its own. With `bounds`, min and max per component are
    /// stored (glTF requires them for POSITION and for animation inputs).
    int add_floats(const std::vector<float>& values, const std::string& type,
                   std::optional<int> target, bool bounds);
    /// Unsigned-int SCALAR accessor for triangle indices.
    int add_indices(const std::vector<std::uint32_t>& indices);

    /// The .glb bytes: header, JSON chunk (space-padded), BIN chunk (zero-padded).
    std::vector<std::uint8_t> bytes() const;
    /// Writes bytes() to `path`; throws InputError "PATH: cannot write file".
    void write(const std::string& path) const;

  private:
    int add_view(const void* data, std::size_t size, std::optional<int> target);

    nlohmann::json doc_;
    std::vector<std::uint8_t> bin_;
};

}  // namespace concord
