#include "concord/export/glb_builder.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <limits>

#include "concord/math/error.hpp"

namespace concord {

namespace {

int components_of(const std::string& type) {
    if (type == "SCALAR") return 1;
    if (type == "VEC2") return 2;
    if (type == "VEC3") return 3;
    if (type == "VEC4") return 4;
    if (type == "MAT4") return 16;
    throw std::invalid_argument("GlbBuilder: unsupported accessor type " + type);
}

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
    for (int k = 0; k < 4; ++k) out.push_back(static_cast<std::uint8_t>(v >> (8 * k)));
}

}  // namespace

GlbBuilder::GlbBuilder() {
    doc_["asset"] = {{"version", "2.0"}, {"generator", "concord export"}};
    doc_["bufferViews"] = nlohmann::json::array();
    doc_["accessors"] = nlohmann::json::array();
}

int GlbBuilder::add_view(const void* data, std::size_t size, std::optional<int> target) {
    // Every view starts 4-byte aligned, as accessors of 4-byte components require.
    while (bin_.size() % 4 != 0) bin_.push_back(0);
    nlohmann::json view = {{"buffer", 0}, {"byteOffset", bin_.size()}, {"byteLength", size}};
    if (target) view["target"] = *target;
    const auto* bytes = static_cast<const std::uint8_t*>(data);
    bin_.insert(bin_.end(), bytes, bytes + size);
    doc_["bufferViews"].push_back(view);
    return static_cast<int>(doc_["bufferViews"].size()) - 1;
}

int GlbBuilder::add_floats(const std::vector<float>& values, const std::string& type,
                           std::optional<int> target, bool bounds) {
    const int n = components_of(type);
    if (values.empty() || values.size() % static_cast<std::size_t>(n) != 0)
        throw std::invalid_argument("GlbBuilder::add_floats: " + std::to_string(values.size()) +
                                    " values do not make whole " + type + " elements");
    const std::size_t count = values.size() / static_cast<std::size_t>(n);
    // glTF stores little-endian IEEE floats: the host's own layout on x86 and ARM Linux.
    static_assert(std::endian::native == std::endian::little &&
                  std::numeric_limits<float>::is_iec559);
    const int view = add_view(values.data(), values.size() * sizeof(float), target);
    nlohmann::json accessor = {
        {"bufferView", view}, {"componentType", kFloat}, {"count", count}, {"type", type}};
    if (bounds) {
        std::vector<float> lo(static_cast<std::size_t>(n), std::numeric_limits<float>::max());
        std::vector<float> hi(static_cast<std::size_t>(n), std::numeric_limits<float>::lowest());
        for (std::size_t i = 0; i < values.size(); ++i) {
            const std::size_t c = i % static_cast<std::size_t>(n);
            lo[c] = std::min(lo[c], values[i]);
            hi[c] = std::max(hi[c], values[i]);
        }
        accessor["min"] = lo;
        accessor["max"] = hi;
    }
    doc_["accessors"].push_back(accessor);
    return static_cast<int>(doc_["accessors"].size()) - 1;
}

int GlbBuilder::add_indices(const std::vector<std::uint32_t>& indices) {
    if (indices.empty()) throw std::invalid_argument("GlbBuilder::add_indices: no indices");
    const int view =
        add_view(indices.data(), indices.size() * sizeof(std::uint32_t), kElementArrayBuffer);
    doc_["accessors"].push_back({{"bufferView", view},
                                 {"componentType", kUnsignedInt},
                                 {"count", indices.size()},
                                 {"type", "SCALAR"}});
    return static_cast<int>(doc_["accessors"].size()) - 1;
}

std::vector<std::uint8_t> GlbBuilder::bytes() const {
    nlohmann::json doc = doc_;
    std::vector<std::uint8_t> bin = bin_;
    while (bin.size() % 4 != 0) bin.push_back(0);
    doc["buffers"] = nlohmann::json::array({{{"byteLength", bin.size()}}});
    if (doc["bufferViews"].empty()) doc.erase("bufferViews");
    if (doc["accessors"].empty()) doc.erase("accessors");
    if (bin.empty()) doc.erase("buffers");
    std::string text = doc.dump();
    while (text.size() % 4 != 0) text.push_back(' ');

    std::vector<std::uint8_t> out;
    const std::size_t total = 12 + 8 + text.size() + (bin.empty() ? 0 : 8 + bin.size());
    out.reserve(total);
    put_u32(out, 0x46546C67);  // "glTF"
    put_u32(out, 2);
    put_u32(out, static_cast<std::uint32_t>(total));
    put_u32(out, static_cast<std::uint32_t>(text.size()));
    put_u32(out, 0x4E4F534A);  // "JSON"
    out.insert(out.end(), text.begin(), text.end());
    if (!bin.empty()) {
        put_u32(out, static_cast<std::uint32_t>(bin.size()));
        put_u32(out, 0x004E4942);  // "BIN\0"
        out.insert(out.end(), bin.begin(), bin.end());
    }
    return out;
}

void GlbBuilder::write(const std::string& path) const {
    const std::vector<std::uint8_t> data = bytes();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data.data()),
              static_cast<std::streamsize>(data.size()));
    out.close();
    if (!out) throw InputError(path + ": cannot write file");
}

}  // namespace concord
