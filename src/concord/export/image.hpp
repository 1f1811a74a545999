// An 8-bit RGB picture and its PNG encoding (libpng).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace concord {

struct Image {
    int width = 0;
    int height = 0;
    std::vector<std::uint8_t> rgb;  ///< row-major, top row first, 3 bytes per pixel

    Image() = default;
    Image(int w, int h) : width(w), height(h), rgb(static_cast<std::size_t>(w) * h * 3, 0) {}

    std::uint8_t* pixel(int x, int y) {
        return &rgb[(static_cast<std::size_t>(y) * width + x) * 3];
    }
    const std::uint8_t* pixel(int x, int y) const {
        return &rgb[(static_cast<std::size_t>(y) * width + x) * 3];
    }
};

/// Writes `image` as an 8-bit RGB PNG. Throws InputError "PATH: cannot write PNG (...)".
void write_png(const Image& image, const std::string& path);

/// Reads an 8-bit RGB or RGBA PNG (alpha dropped), for tests and tools. Throws InputError.
Image read_png(const std::string& path);

}  // namespace concord
