// The broad phase refuses a candidate set that would not fit in memory, with a message (issue
// 18, bounded work), instead of exhausting the machine.
#include <gtest/gtest.h>

#include "concord/collision/broad_phase/candidate_blocks.hpp"
#include "concord/math/error.hpp"

namespace concord::broad_phase_detail {
namespace {

TEST(CandidateBlocks, ACandidateSetBeyondHalfTheMemoryIsRefused) {
    constexpr std::size_t kGiB = std::size_t{1} << 30;
    EXPECT_NO_THROW(check_candidate_memory(10'000'000, 16, 24 * kGiB));  // 0.64 GB
    try {
        check_candidate_memory(1'000'000'000, 16, 24 * kGiB);  // 64 GB
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("1000000000 candidate pairs"), std::string::npos) << what;
        EXPECT_NE(what.find("lower time_step"), std::string::npos) << what;
    }
    EXPECT_GT(physical_memory_bytes(), std::size_t{1} << 28);
}

}  // namespace
}  // namespace concord::broad_phase_detail
