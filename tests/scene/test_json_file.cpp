// JSON documents from text and files: comments, repeated keys, syntax errors, missing files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "concord/scene/json_file.hpp"
#include "scene_test_util.hpp"

namespace concord {
namespace {

using test::contains;
using test::error_of;

TEST(JsonFile, CommentsAreAllowed) {
    auto j = parse_json_text("// a scene\n{\"frames\": 3 /* three */}\n", "a.json");
    EXPECT_EQ(j.at("frames"), 3);
}

TEST(JsonFile, RepeatedKeysAreErrorsWithTheirPath) {
    EXPECT_TRUE(
        contains(error_of([] { (void)parse_json_text(R"({"frames": 1, "frames": 2})", "a.json"); }),
                 "a.json: frames: duplicate key"));
    EXPECT_TRUE(contains(
        error_of([] {
            (void)parse_json_text(
                R"({"bodies": [{"name": "a"}, [1, 2], {"shape": {}, "shape": {}}]})", "a.json");
        }),
        "a.json: bodies[2].shape: duplicate key"));
    // The same key in different objects is fine.
    EXPECT_NO_THROW((void)parse_json_text(
        R"({"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 1}, {"x": 2}]})", "a.json"));
}

TEST(JsonFile, SyntaxErrorsNameLineAndColumn) {
    std::string msg = error_of([] { (void)parse_json_text("{\n  \"frames\": 3,\n}", "a.json"); });
    EXPECT_TRUE(contains(msg, "a.json: invalid JSON at line 3, column 1"));
    EXPECT_TRUE(
        contains(error_of([] { (void)parse_json_text("", "e.json"); }), "e.json: invalid JSON"));
    EXPECT_TRUE(contains(error_of([] { (void)parse_json_text("[NaN]", "n.json"); }),
                         "n.json: invalid JSON"));
}

TEST(JsonFile, OverflowingNumbersAreErrors) {
    EXPECT_TRUE(
        contains(error_of([] { (void)parse_json_text("{\"time_step\": 1e400}", "a.json"); }),
                 "a.json: invalid JSON: number overflow"));
}

TEST(JsonFile, MissingFilesAndFolders) {
    EXPECT_TRUE(contains(error_of([] { (void)read_json_file("/no/such/file.json"); }),
                         "/no/such/file.json: cannot read file"));
    std::string dir = test::scene_data_dir();
    EXPECT_TRUE(contains(error_of([&] { (void)read_json_file(dir); }), dir + ": is a directory"));
}

TEST(JsonFile, ReadsFiles) {
    auto path = std::filesystem::temp_directory_path() / "concord_test_json_file.json";
    {
        std::ofstream out(path);
        out << R"({"x": [1, 2.5, "s"]})";
    }
    auto j = read_json_file(path.string());
    EXPECT_EQ(j.at("x").at(1), 2.5);
    std::filesystem::remove(path);
}

}  // namespace
}  // namespace concord
