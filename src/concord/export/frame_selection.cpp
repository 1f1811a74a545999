#include "concord/export/frame_selection.hpp"

#include <algorithm>
#include <charconv>

#include "concord/math/error.hpp"

namespace concord {

namespace {

std::optional<long> parse_number(const std::string& text, const std::string& option,
                                 const std::string& whole) {
    if (text.empty()) return std::nullopt;
    long value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < 0)
        throw InputError(option + ": expected frame numbers like 10:20, got \"" + whole + "\"");
    return value;
}

}  // namespace

FrameSelection parse_frame_selection(const std::string& text, const std::string& option) {
    FrameSelection s;
    const std::size_t colon = text.find(':');
    if (colon == std::string::npos) {
        if (text.empty()) return s;
        s.first = s.last = parse_number(text, option, text);
        return s;
    }
    if (text.find(':', colon + 1) != std::string::npos)
        throw InputError(option + ": expected A:B, got \"" + text + "\"");
    s.first = parse_number(text.substr(0, colon), option, text);
    s.last = parse_number(text.substr(colon + 1), option, text);
    if (s.first && s.last && *s.first > *s.last)
        throw InputError(option + ": the first frame comes after the last in \"" + text + "\"");
    return s;
}

FrameSelection single_frame(long frame) {
    FrameSelection s;
    s.first = s.last = frame;
    return s;
}

void check_selection(const FrameSelection& selection, const std::vector<int>& saved,
                     const std::string& source) {
    if (std::any_of(saved.begin(), saved.end(), [&](int f) { return selection.contains(f); }))
        return;
    const std::string range =
        saved.empty() ? std::string("none")
                      : std::to_string(saved.front()) + ".." + std::to_string(saved.back());
    if (selection.first && selection.last && *selection.first == *selection.last) {
        throw InputError(source + ": no saved frame " + std::to_string(*selection.first) +
                         " (saved frames: " + range + ")");
    }
    throw InputError(source + ": the selection matches no saved frame (saved frames: " + range +
                     ")");
}

}  // namespace concord
