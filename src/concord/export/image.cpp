#include "concord/export/image.hpp"

#include <png.h>

#include <cstdio>
#include <memory>

#include "concord/math/error.hpp"

namespace concord {

namespace {

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};

// libpng reports errors through a callback that must not return. Throwing a C++ exception
// through libpng's C frames is not safe, so its setjmp protocol is used and the message is kept
// here for the InputError raised afterwards.
struct PngErrorState {
    char message[256] = "unknown libpng error";
};

void on_png_error(png_structp png, png_const_charp msg) {
    auto* state = static_cast<PngErrorState*>(png_get_error_ptr(png));
    std::snprintf(state->message, sizeof state->message, "%s", msg);
    png_longjmp(png, 1);
}

void on_png_warning(png_structp, png_const_charp) {}

}  // namespace

void write_png(const Image& image, const std::string& path) {
    if (image.width <= 0 || image.height <= 0)
        throw InputError(path + ": cannot write PNG (empty image)");
    std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "wb"));
    if (!file) throw InputError(path + ": cannot write PNG (cannot open the file)");
    PngErrorState state;
    png_structp png =
        png_create_write_struct(PNG_LIBPNG_VER_STRING, &state, on_png_error, on_png_warning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!png || !info) {
        png_destroy_write_struct(&png, &info);
        throw InputError(path + ": cannot write PNG (out of memory)");
    }
    std::vector<png_bytep> rows(static_cast<std::size_t>(image.height));
    for (int y = 0; y < image.height; ++y)
        rows[static_cast<std::size_t>(y)] = const_cast<png_bytep>(image.pixel(0, y));
    volatile bool ok = false;  // volatile: read after a longjmp
    if (setjmp(png_jmpbuf(png)) == 0) {
        png_init_io(png, file.get());
        png_set_IHDR(png, info, static_cast<png_uint_32>(image.width),
                     static_cast<png_uint_32>(image.height), 8, PNG_COLOR_TYPE_RGB,
                     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        png_set_rows(png, info, rows.data());
        png_write_png(png, info, PNG_TRANSFORM_IDENTITY, nullptr);
        ok = true;
    }
    png_destroy_write_struct(&png, &info);
    if (!ok) throw InputError(path + ": cannot write PNG (" + state.message + ")");
    if (std::fflush(file.get()) != 0) throw InputError(path + ": cannot write PNG (disk full?)");
}

Image read_png(const std::string& path) {
    std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
    if (!file) throw InputError(path + ": cannot read PNG (cannot open the file)");
    PngErrorState state;
    png_structp png =
        png_create_read_struct(PNG_LIBPNG_VER_STRING, &state, on_png_error, on_png_warning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!png || !info) {
        png_destroy_read_struct(&png, &info, nullptr);
        throw InputError(path + ": cannot read PNG (out of memory)");
    }
    Image image;
    volatile bool ok = false;  // volatile: read after a longjmp
    if (setjmp(png_jmpbuf(png)) == 0) {
        png_init_io(png, file.get());
        png_read_png(png, info,
                     PNG_TRANSFORM_STRIP_16 | PNG_TRANSFORM_PACKING | PNG_TRANSFORM_EXPAND |
                         PNG_TRANSFORM_GRAY_TO_RGB | PNG_TRANSFORM_STRIP_ALPHA,
                     nullptr);
        const int w = static_cast<int>(png_get_image_width(png, info));
        const int h = static_cast<int>(png_get_image_height(png, info));
        if (png_get_channels(png, info) == 3) {
            image = Image(w, h);
            png_bytepp rows = png_get_rows(png, info);
            for (int y = 0; y < h; ++y) std::copy(rows[y], rows[y] + 3 * w, image.pixel(0, y));
            ok = true;
        } else {
            std::snprintf(state.message, sizeof state.message, "unsupported channel count");
        }
    }
    png_destroy_read_struct(&png, &info, nullptr);
    if (!ok) throw InputError(path + ": cannot read PNG (" + state.message + ")");
    return image;
}

}  // namespace concord
