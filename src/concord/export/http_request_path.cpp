#include "concord/export/http_request_path.hpp"

#include <array>
#include <utility>

namespace concord {

namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

std::optional<std::string> decode_request_path(std::string_view target) {
    if (target.empty() || target.front() != '/') return std::nullopt;
    const std::size_t end = target.find_first_of("?#");
    if (end != std::string_view::npos) target = target.substr(0, end);

    std::string result;
    std::string segment;
    // Each segment is decoded on its own, so an encoded "%2F" can never create a new segment
    // boundary and "%2E%2E" is caught as ".." below.
    auto finish_segment = [&]() -> bool {
        if (segment == "..") return false;
        if (!segment.empty() && segment != ".") {
            if (!result.empty()) result += '/';
            result += segment;
        }
        segment.clear();
        return true;
    };
    for (std::size_t i = 1; i < target.size(); ++i) {
        char c = target[i];
        if (c == '/') {
            if (!finish_segment()) return std::nullopt;
            continue;
        }
        if (c == '%') {
            if (i + 2 >= target.size()) return std::nullopt;
            const int hi = hex_value(target[i + 1]), lo = hex_value(target[i + 2]);
            if (hi < 0 || lo < 0) return std::nullopt;
            c = static_cast<char>(hi * 16 + lo);
            i += 2;
            if (c == '/') return std::nullopt;
        }
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '\\') return std::nullopt;
        segment += c;
    }
    if (!finish_segment()) return std::nullopt;
    if (target.size() > 1 && target.back() == '/' && !result.empty()) result += '/';
    return result;
}

std::string content_type_for(std::string_view file_name) {
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 12> kTypes{{
        {".html", "text/html; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".mjs", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".json", "application/json"},
        {".jsonl", "application/jsonl; charset=utf-8"},
        {".map", "application/json"},
        {".obj", "text/plain; charset=utf-8"},
        {".png", "image/png"},
        {".svg", "image/svg+xml"},
        {".glb", "model/gltf-binary"},
        {".txt", "text/plain; charset=utf-8"},
    }};
    for (const auto& [ext, type] : kTypes) {
        if (ends_with(file_name, ext)) return std::string(type);
    }
    return "application/octet-stream";
}

}  // namespace concord
