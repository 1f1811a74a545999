// Choosing saved frames by their frame number, for --frame K and --frames A:B.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace concord {

/// An inclusive range of frame numbers ("frame" in frames.jsonl); unset ends are open.
struct FrameSelection {
    std::optional<long> first;
    std::optional<long> last;

    bool contains(long frame) const {
        return (!first || frame >= *first) && (!last || frame <= *last);
    }
};

/// "A:B" (both inclusive), "A:" (from A), ":B" (up to B), ":" or "" (all), or "K" (only K).
/// Throws InputError "--frames: ..." (naming `option`) for anything else or for A > B.
FrameSelection parse_frame_selection(const std::string& text, const std::string& option);

/// The selection of a single frame.
FrameSelection single_frame(long frame);

/// Throws InputError "SOURCE: no saved frame N (saved frames: 0..99)" or "... selects no saved
/// frame" when `selection` matches none of `saved`, the frame numbers present (ascending).
void check_selection(const FrameSelection& selection, const std::vector<int>& saved,
                     const std::string& source);

}  // namespace concord
