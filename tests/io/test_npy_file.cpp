#include "concord/io/npy_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "concord/math/error.hpp"

namespace concord {
namespace {

std::string temp_file(const std::string& name, const std::string& bytes) {
    const auto path = std::filesystem::temp_directory_path() / ("concord-npy-" + name);
    std::ofstream(path, std::ios::binary) << bytes;
    return path.string();
}

TEST(NpyFile, HeaderIsNumPysAndTheDataReadsBack) {
    NpyMatrix m{3, 5, {}};
    for (int i = 0; i < 15; ++i) m.data.push_back(0.5f * static_cast<float>(i) - 1.0f);
    const std::string bytes = npy_bytes(m);
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
    const std::size_t len = static_cast<unsigned char>(bytes[8]) |
                            (static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    EXPECT_EQ((10 + len) % 64, 0u);
    const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 5), }";
    EXPECT_EQ(bytes.substr(10, dict.size()), dict);
    EXPECT_EQ(bytes.find_first_not_of(' ', 10 + dict.size()), 10 + len - 1);
    EXPECT_EQ(bytes[10 + len - 1], '\n');
    EXPECT_EQ(bytes.size(), 10 + len + 15 * 4);
    const NpyMatrix back = read_npy(temp_file("ok.npy", bytes));
    EXPECT_EQ(back.rows, 3u);
    EXPECT_EQ(back.cols, 5u);
    EXPECT_EQ(back.data, m.data);
    const NpyMatrix empty = read_npy(temp_file("empty.npy", npy_bytes(NpyMatrix{0, 5, {}})));
    EXPECT_EQ(empty.rows, 0u);
}

TEST(NpyFile, AnythingElseIsRefusedNamingTheFile) {
    NpyMatrix m{2, 5, std::vector<float>(10, 1.0f)};
    const std::string good = npy_bytes(m);
    const std::string cases[] = {
        "", "not numpy at all", good.substr(0, 9), good.substr(0, good.size() - 1),
        good + "x", [&] { std::string s = good; s[15] = 'i'; return s; }(),  // '<i4'
        [&] { std::string s = good; s[6] = 2; return s; }(),                 // version 2.0
    };
    int k = 0;
    for (const std::string& bad : cases) {
        const std::string path = temp_file("bad" + std::to_string(k++) + ".npy", bad);
        try {
            read_npy(path);
            ADD_FAILURE() << "accepted case " << k;
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
        }
    }
}

}  // namespace
}  // namespace concord
