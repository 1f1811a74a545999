#include <gtest/gtest.h>

#include "concord/export/frame_selection.hpp"
#include "io/io_test_util.hpp"

namespace concord {
namespace {

TEST(FrameSelection, ParsesRangesAndSingleFrames) {
    auto s = parse_frame_selection("3:7", "--frames");
    EXPECT_FALSE(s.contains(2));
    EXPECT_TRUE(s.contains(3));
    EXPECT_TRUE(s.contains(7));
    EXPECT_FALSE(s.contains(8));
    s = parse_frame_selection("5:", "--frames");
    EXPECT_FALSE(s.contains(4));
    EXPECT_TRUE(s.contains(1000000));
    s = parse_frame_selection(":2", "--frames");
    EXPECT_TRUE(s.contains(0));
    EXPECT_FALSE(s.contains(3));
    s = parse_frame_selection("4", "--frames");
    EXPECT_TRUE(s.contains(4));
    EXPECT_FALSE(s.contains(5));
    EXPECT_TRUE(parse_frame_selection("", "--frames").contains(99));
    EXPECT_TRUE(parse_frame_selection(":", "--frames").contains(0));
}

TEST(FrameSelection, RejectsMalformedText) {
    for (const char* bad : {"a:b", "1:2:3", "-1:4", "5:3", "1.5", "3x"}) {
        const std::string e = test::error_of([&] { parse_frame_selection(bad, "--frames"); });
        EXPECT_TRUE(test::contains(e, "--frames: ")) << bad;
    }
}

TEST(FrameSelection, CheckNamesTheSavedRange) {
    EXPECT_NO_THROW(check_selection(single_frame(3), {0, 1, 2, 3}, "f.jsonl"));
    EXPECT_TRUE(test::contains(test::error_of([] {
                                   check_selection(single_frame(9), {0, 1, 2}, "f.jsonl");
                               }),
                               "f.jsonl: no saved frame 9 (saved frames: 0..2)"));
    EXPECT_TRUE(
        test::contains(test::error_of([] {
                           check_selection(parse_frame_selection("5:8", "x"), {0, 1}, "f.jsonl");
                       }),
                       "matches no saved frame (saved frames: 0..1)"));
}

}  // namespace
}  // namespace concord
