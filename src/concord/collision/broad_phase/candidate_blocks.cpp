#include "concord/collision/broad_phase/candidate_blocks.hpp"

#include <unistd.h>

#include <cstdio>
#include <string>

#include "concord/math/error.hpp"

namespace concord::broad_phase_detail {

void check_candidate_memory(std::size_t count, std::size_t bytes_each, std::size_t memory_bytes) {
    constexpr std::size_t kCopies = 4;  // the blocks, the gathered list, sort keys and scratch
    const double need = static_cast<double>(count) * static_cast<double>(bytes_each * kCopies);
    if (need <= 0.5 * static_cast<double>(memory_bytes)) return;
    char text[320];
    std::snprintf(text, sizeof text,
                  "broad phase: %zu candidate pairs would need about %.1f GB, more than half of "
                  "this machine's memory (%.1f GB): the bodies' swept boxes overlap far more than "
                  "contact needs (a time step or velocity too large for the scene?); lower "
                  "time_step",
                  count, need / 1e9, static_cast<double>(memory_bytes) / 1e9);
    throw InputError(text);
}

std::size_t physical_memory_bytes() {
    static const std::size_t bytes = [] {
        const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
        return pages > 0 && size > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(size)
                                     : std::size_t{1} << 34;
    }();
    return bytes;
}

}  // namespace concord::broad_phase_detail
