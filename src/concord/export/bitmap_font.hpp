// A 5x7 pixel font for ASCII text in PNG plots (the picture has no system fonts to draw with).
#pragma once

#include <array>
#include <cstdint>

namespace concord {

/// Glyph columns for character c: 5 bytes, left to right; bit k of a byte is row k from the top.
/// Characters outside ' '..'~' come back as '?'.
const std::array<std::uint8_t, 5>& glyph_columns(char c);

/// Each glyph is 5 pixels wide and 7 high, drawn on a 6 x 8 cell.
inline constexpr int kGlyphWidth = 5;
inline constexpr int kGlyphHeight = 7;
inline constexpr int kGlyphAdvance = 6;

}  // namespace concord
