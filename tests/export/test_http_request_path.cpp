#include <gtest/gtest.h>

#include "concord/export/http_request_path.hpp"

namespace concord {
namespace {

TEST(DecodeRequestPath, PlainPathsBecomeRelative) {
    EXPECT_EQ(decode_request_path("/"), "");
    EXPECT_EQ(decode_request_path("/index.html"), "index.html");
    EXPECT_EQ(decode_request_path("/data/meshes/box.obj"), "data/meshes/box.obj");
    EXPECT_EQ(decode_request_path("/data/"), "data/");
}

TEST(DecodeRequestPath, QueryFragmentDotsAndEmptySegmentsAreDropped) {
    EXPECT_EQ(decode_request_path("/index.html?data=x/&aa=1"), "index.html");
    EXPECT_EQ(decode_request_path("/a.js#part"), "a.js");
    EXPECT_EQ(decode_request_path("//data/./meshes//a.obj"), "data/meshes/a.obj");
}

TEST(DecodeRequestPath, PercentEscapesAreDecoded) {
    EXPECT_EQ(decode_request_path("/data/meshes/a%20b.obj"), "data/meshes/a b.obj");
    EXPECT_EQ(decode_request_path("/%41%62c"), "Abc");
}

TEST(DecodeRequestPath, TraversalAndTrickyEscapesAreRejected) {
    for (const char* bad : {"/..", "/../etc/passwd", "/data/../../x", "/data/%2e%2e/x",
                            "/data/.%2E/x", "/a%2Fb", "/a%2fb", "/a%5cb", "/a\\b", "/a%00b",
                            "/a%0ab", "/a%", "/a%4", "/a%zz", "data/x", "", "*"}) {
        EXPECT_FALSE(decode_request_path(bad).has_value()) << bad;
    }
}

TEST(ContentType, ByExtension) {
    EXPECT_EQ(content_type_for("index.html"), "text/html; charset=utf-8");
    EXPECT_EQ(content_type_for("viewer.js"), "text/javascript; charset=utf-8");
    EXPECT_EQ(content_type_for("frames.jsonl"), "application/jsonl; charset=utf-8");
    EXPECT_EQ(content_type_for("bodies.json"), "application/json");
    EXPECT_EQ(content_type_for("x.bin"), "application/octet-stream");
}

}  // namespace
}  // namespace concord
