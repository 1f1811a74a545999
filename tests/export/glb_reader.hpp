// Splits a .glb file into its JSON and binary chunks and reads accessors, for the export tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/io_test_util.hpp"

namespace concord::test {

struct Glb {
    nlohmann::json json;
    std::vector<std::uint8_t> bin;
    std::string error;  ///< empty when the container is well formed

    static std::uint32_t u32(const std::string& s, std::size_t at) {
        std::uint32_t v = 0;
        std::memcpy(&v, s.data() + at, 4);
        return v;
    }

    explicit Glb(const std::string& path) {
        const std::string s = read_file(path);
        if (s.size() < 20) {
            error = "too short";
            return;
        }
        if (u32(s, 0) != 0x46546C67) {
            error = "bad magic";
            return;
        }
        if (u32(s, 4) != 2) {
            error = "bad version";
            return;
        }
        if (u32(s, 8) != s.size()) {
            error = "length field differs from file size";
            return;
        }
        const std::uint32_t json_len = u32(s, 12);
        if (u32(s, 16) != 0x4E4F534A) {
            error = "first chunk is not JSON";
            return;
        }
        if (json_len % 4 != 0 || 20 + json_len > s.size()) {
            error = "bad JSON chunk length";
            return;
        }
        json = nlohmann::json::parse(s.substr(20, json_len));
        std::size_t at = 20 + json_len;
        if (at < s.size()) {
            const std::uint32_t bin_len = u32(s, at);
            if (u32(s, at + 4) != 0x004E4942) {
                error = "second chunk is not BIN";
                return;
            }
            if (bin_len % 4 != 0 || at + 8 + bin_len != s.size()) {
                error = "bad BIN chunk length";
                return;
            }
            bin.assign(s.begin() + static_cast<long>(at + 8), s.end());
        }
    }

    /// Floats of accessor `i` (componentType FLOAT), checking that it lies inside its view.
    std::vector<float> floats(int i) const {
        const auto& a = json["accessors"][i];
        const auto& v = json["bufferViews"][a["bufferView"].get<int>()];
        const std::size_t n = a["count"].get<std::size_t>() * components(a["type"]);
        EXPECT_EQ(a["componentType"], 5126);
        const std::size_t offset = v["byteOffset"].get<std::size_t>() + a.value("byteOffset", 0u);
        EXPECT_LE(offset + 4 * n,
                  v["byteOffset"].get<std::size_t>() + v["byteLength"].get<std::size_t>());
        std::vector<float> out(n);
        std::memcpy(out.data(), bin.data() + offset, 4 * n);
        return out;
    }

    static std::size_t components(const std::string& type) {
        if (type == "SCALAR") return 1;
        if (type == "VEC3") return 3;
        if (type == "VEC4") return 4;
        return 0;
    }
};

}  // namespace concord::test
