#include "concord/geometry/ply_reader.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "concord/math/error.hpp"

namespace concord {

namespace {

enum class Scalar { i8, u8, i16, u16, i32, u32, f32, f64 };

struct ScalarName {
    std::string_view name;
    Scalar type;
};

// The PLY type names, old and new spellings.
constexpr ScalarName kScalarNames[] = {
    {"char", Scalar::i8},     {"uchar", Scalar::u8},    {"short", Scalar::i16},
    {"ushort", Scalar::u16},  {"int", Scalar::i32},     {"uint", Scalar::u32},
    {"float", Scalar::f32},   {"double", Scalar::f64},  {"int8", Scalar::i8},
    {"uint8", Scalar::u8},    {"int16", Scalar::i16},   {"uint16", Scalar::u16},
    {"int32", Scalar::i32},   {"uint32", Scalar::u32},  {"float32", Scalar::f32},
    {"float64", Scalar::f64}};

std::optional<Scalar> scalar_named(std::string_view name) {
    for (const ScalarName& s : kScalarNames)
        if (s.name == name) return s.type;
    return std::nullopt;
}

std::string_view name_of(Scalar t) {
    for (const ScalarName& s : kScalarNames)
        if (s.type == t) return s.name;
    return "?";
}

std::size_t size_of(Scalar t) {
    switch (t) {
        case Scalar::i8:
        case Scalar::u8: return 1;
        case Scalar::i16:
        case Scalar::u16: return 2;
        case Scalar::i32:
        case Scalar::u32:
        case Scalar::f32: return 4;
        case Scalar::f64: return 8;
    }
    return 8;
}

bool is_integer(Scalar t) { return t != Scalar::f32 && t != Scalar::f64; }

// The range of an integer type.
std::pair<long long, long long> range_of(Scalar t) {
    switch (t) {
        case Scalar::i8: return {-128, 127};
        case Scalar::u8: return {0, 255};
        case Scalar::i16: return {-32768, 32767};
        case Scalar::u16: return {0, 65535};
        case Scalar::i32: return {std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()};
        default: return {0, std::numeric_limits<std::uint32_t>::max()};
    }
}

struct Property {
    std::string name;
    Scalar type = Scalar::f32;  // a list's item type
    bool list = false;
    Scalar count_type = Scalar::u8;
};

struct Element {
    std::string name;
    std::uint64_t count = 0;
    std::vector<Property> properties;
};

enum class Format { ascii, little_endian, big_endian };

struct Header {
    Format format = Format::ascii;
    std::vector<Element> elements;
    std::size_t data_offset = 0;  // the first byte after the end_header line
};

std::vector<std::string_view> words_of(std::string_view line) {
    std::vector<std::string_view> words;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
        if (i > start) words.push_back(line.substr(start, i - start));
    }
    return words;
}

const Property* find_property(const Element& e, std::string_view name) {
    for (const Property& p : e.properties)
        if (p.name == name) return &p;
    return nullptr;
}

// The header as the PLY format defines it: "ply", one format line, then comment, obj_info,
// "element NAME COUNT", "property TYPE NAME" and "property list TYPE TYPE NAME" lines, end_header.
// Also checked here, so that the data loop can trust it: the vertex element has scalar x, y, z,
// the face element an integer vertex_indices (or vertex_index) list, no name appears twice.
Header parse_header(const std::string& text, const std::string& path) {
    Header header;
    auto fail = [&](int n, const std::string& why) {
        throw InputError(path + ": cannot read mesh: PLY header line " + std::to_string(n + 1) +
                         ": " + why);
    };
    std::vector<int> element_lines;
    // Checks the element just finished (its properties are all known).
    auto close_element = [&]() {
        if (header.elements.empty()) return;
        const Element& e = header.elements.back();
        const int n = element_lines.back();
        if (e.name == "vertex") {
            for (const char* axis : {"x", "y", "z"}) {
                const Property* p = find_property(e, axis);
                if (p == nullptr || p->list)
                    fail(n, std::string("element vertex has no scalar property ") + axis);
            }
        } else if (e.name == "face") {
            const Property* p = find_property(e, "vertex_indices");
            if (p == nullptr) p = find_property(e, "vertex_index");
            if (p == nullptr || !p->list || !is_integer(p->type))
                fail(n, "element face has no integer list property vertex_indices");
        }
    };
    std::size_t pos = 0;
    for (int n = 0; pos < text.size(); ++n) {
        const std::size_t newline = text.find('\n', pos);
        const std::size_t end = newline == std::string::npos ? text.size() : newline;
        std::string_view line(text.data() + pos, end - pos);
        pos = newline == std::string::npos ? text.size() : newline + 1;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        const std::vector<std::string_view> w = words_of(line);
        auto word = [&](std::size_t k) { return k < w.size() ? w[k] : std::string_view(); };
        if (n == 0) {
            if (line != "ply")
                throw InputError(path + ": cannot read mesh: not a PLY file (no \"ply\" line first)");
        } else if (n == 1) {
            if (word(0) != "format" || w.size() != 3)
                fail(n, "expected \"format ascii|binary_little_endian|binary_big_endian VERSION\"");
            if (word(1) == "ascii") header.format = Format::ascii;
            else if (word(1) == "binary_little_endian") header.format = Format::little_endian;
            else if (word(1) == "binary_big_endian") header.format = Format::big_endian;
            else fail(n, "expected \"format ascii|binary_little_endian|binary_big_endian VERSION\"");
        } else if (word(0) == "comment" || word(0) == "obj_info") {
        } else if (word(0) == "element") {
            const std::string_view count = word(2);
            if (w.size() != 3 || count.find_first_not_of("0123456789") != std::string::npos ||
                count.size() > 10)
                fail(n, "expected \"element NAME COUNT\"");
            close_element();
            for (const Element& e : header.elements)
                if (e.name == word(1)) fail(n, "a second element " + std::string(word(1)));
            Element e;
            e.name = std::string(word(1));
            std::from_chars(count.data(), count.data() + count.size(), e.count);
            header.elements.push_back(std::move(e));
            element_lines.push_back(n);
        } else if (word(0) == "property") {
            Property p;
            p.list = word(1) == "list";
            const auto count_type = scalar_named(word(2));
            const auto type = scalar_named(p.list ? word(3) : word(1));
            // A list's count is an integer type (a float count read from binary data made
            // assimp allocate gigabytes; found by fuzz_mesh_reader).
            const bool ok = p.list ? w.size() == 5 && count_type && is_integer(*count_type) && type
                                   : w.size() == 3 && type;
            if (!ok || header.elements.empty())
                fail(n, "expected \"property TYPE NAME\" or \"property list TYPE TYPE NAME\" after an element");
            p.type = *type;
            if (p.list) p.count_type = *count_type;
            p.name = std::string(w.back());
            if (find_property(header.elements.back(), p.name) != nullptr)
                fail(n, "a second property " + p.name + " in element " +
                            header.elements.back().name);
            header.elements.back().properties.push_back(std::move(p));
        } else if (line == "end_header") {
            close_element();
            header.data_offset = pos;
            return header;
        } else {
            fail(n, "unexpected \"" + std::string(line.substr(0, 40)) + "\"");
        }
    }
    throw InputError(path + ": cannot read mesh: PLY header without an end_header line");
}

// Reads the values of the data section one at a time, in ascii or binary; `where` names the
// element, its number and the property for a message.
class DataCursor {
  public:
    DataCursor(const std::string& text, const Header& header, const std::string& path)
        : text_(text), format_(header.format), pos_(header.data_offset), path_(path) {
        for (std::size_t i = 0; i < header.data_offset; ++i) line_ += text[i] == '\n';
    }

    struct Where {
        const Element& element;
        std::uint64_t number;
        const Property& property;
    };

    double next(Scalar type, const Where& where) {
        return format_ == Format::ascii ? next_ascii(type, where) : next_binary(type, where);
    }

    /// A list length: an integer no larger than the data left could hold (so that a huge count
    /// fails here rather than in a loop or an allocation).
    std::uint64_t next_length(const Where& where) {
        const double v = next(where.property.count_type, where);
        if (v < 0) fail(where, "a negative list length " + std::to_string(static_cast<long long>(v)));
        const auto length = static_cast<std::uint64_t>(v);
        const std::size_t item = format_ == Format::ascii ? 1 : size_of(where.property.type);
        if (length > (text_.size() - pos_) / item)
            fail(where, "a list of " + std::to_string(length) + " values, more than the data holds");
        return length;
    }

  private:
    [[noreturn]] void fail(const Where& where, const std::string& why) const {
        std::string at = "PLY ";
        if (format_ == Format::ascii) at += "line " + std::to_string(line_ + 1) + ", ";
        throw InputError(path_ + ": cannot read mesh: " + at + "element " + where.element.name + " " +
                         std::to_string(where.number) + ", property " + where.property.name +
                         ": " + why);
    }

    double next_binary(Scalar type, const Where& where) {
        const std::size_t n = size_of(type);
        if (text_.size() - pos_ < n) fail(where, "the data ends here");
        unsigned char b[8];
        std::memcpy(b, text_.data() + pos_, n);
        pos_ += n;
        const bool file_little = format_ == Format::little_endian;
        if (file_little != (std::endian::native == std::endian::little)) std::reverse(b, b + n);
        switch (type) {
            case Scalar::i8: return static_cast<std::int8_t>(b[0]);
            case Scalar::u8: return b[0];
            case Scalar::i16: return read<std::int16_t>(b);
            case Scalar::u16: return read<std::uint16_t>(b);
            case Scalar::i32: return read<std::int32_t>(b);
            case Scalar::u32: return read<std::uint32_t>(b);
            case Scalar::f32: return read<float>(b);
            case Scalar::f64: return read<double>(b);
        }
        return 0;
    }

    template <class T>
    static double read(const unsigned char* b) {
        T value;
        std::memcpy(&value, b, sizeof value);
        return static_cast<double>(value);
    }

    double next_ascii(Scalar type, const Where& where) {
        while (pos_ < text_.size() && is_space(text_[pos_])) line_ += text_[pos_++] == '\n';
        const std::size_t start = pos_;
        while (pos_ < text_.size() && !is_space(text_[pos_])) ++pos_;
        if (pos_ == start) fail(where, "the data ends here");
        const std::string_view token(text_.data() + start, pos_ - start);
        const char* first = token.data() + (token.front() == '+' ? 1 : 0);
        const char* last = token.data() + token.size();
        auto not_a = [&]() {
            fail(where, "'" + std::string(token.substr(0, 40)) + "' is not a " +
                            std::string(name_of(type)));
        };
        if (is_integer(type)) {
            long long v = 0;
            const auto [ptr, ec] = std::from_chars(first, last, v);
            const auto [lo, hi] = range_of(type);
            if (ec != std::errc() || ptr != last || first == last || v < lo || v > hi) not_a();
            return static_cast<double>(v);
        }
        double v = 0;
        const auto [ptr, ec] = std::from_chars(first, last, v);
        if (ptr != last || first == last) not_a();
        // Overflow reads as infinity, for load_mesh to report as a non-finite coordinate.
        // Overflow reads as infinity (for load_mesh to report as a non-finite coordinate),
        // underflow as zero, as strtod rounds them; from_chars leaves both to the caller.
        if (ec == std::errc::result_out_of_range) v = std::strtod(std::string(token).c_str(), nullptr);
        else if (ec != std::errc()) not_a();
        return v;
    }

    static bool is_space(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
    }

    const std::string& text_;
    Format format_;
    std::size_t pos_;
    std::uint64_t line_ = 0;
    const std::string& path_;
};

}  // namespace

TriMesh read_ply_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot read file");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const Header header = parse_header(text, path);
    DataCursor data(text, header, path);

    std::vector<double> coordinates;
    std::vector<long long> corners;       // three per triangle, as in the file
    std::vector<std::uint64_t> face_of;   // the face each triangle comes from
    std::vector<long long> polygon;
    std::uint64_t num_vertices = 0;
    for (const Element& e : header.elements) {
        if (e.properties.empty()) continue;  // nothing to read, however large the count
        const bool vertex = e.name == "vertex";
        const bool face = e.name == "face";
        int axis_of[3] = {-1, -1, -1};  // property index of x, y, z
        int indices = -1;               // property index of the face's index list
        for (int k = 0; k < static_cast<int>(e.properties.size()); ++k) {
            const std::string& name = e.properties[k].name;
            if (vertex && name.size() == 1 && name[0] >= 'x' && name[0] <= 'z')
                axis_of[name[0] - 'x'] = k;
            if (face && indices < 0 && (name == "vertex_indices" || name == "vertex_index"))
                indices = k;
        }
        if (vertex) num_vertices = e.count;
        for (std::uint64_t i = 0; i < e.count; ++i) {
            double xyz[3] = {0, 0, 0};
            for (int k = 0; k < static_cast<int>(e.properties.size()); ++k) {
                const Property& p = e.properties[k];
                const DataCursor::Where where{e, i, p};
                if (!p.list) {
                    const double v = data.next(p.type, where);
                    for (int a = 0; a < 3; ++a)
                        if (axis_of[a] == k) xyz[a] = v;
                    continue;
                }
                const std::uint64_t length = data.next_length(where);
                if (k != indices) {
                    for (std::uint64_t j = 0; j < length; ++j) data.next(p.type, where);
                    continue;
                }
                if (length < 3)
                    throw InputError(path + ": face " + std::to_string(i) + " has " +
                                     std::to_string(length) +
                                     " vertices; points and lines are not surfaces");
                polygon.clear();
                for (std::uint64_t j = 0; j < length; ++j)
                    polygon.push_back(static_cast<long long>(data.next(p.type, where)));
                for (std::size_t j = 1; j + 1 < polygon.size(); ++j) {
                    corners.insert(corners.end(), {polygon[0], polygon[j], polygon[j + 1]});
                    face_of.push_back(i);
                }
            }
            if (vertex) coordinates.insert(coordinates.end(), xyz, xyz + 3);
        }
    }

    if (num_vertices > static_cast<std::uint64_t>(std::numeric_limits<int>::max()) ||
        corners.size() / 3 > static_cast<std::size_t>(std::numeric_limits<int>::max()))
        throw InputError(path + ": cannot read mesh: more vertices or triangles than Concord holds");
    for (std::size_t c = 0; c < corners.size(); ++c)
        if (corners[c] < 0 || static_cast<std::uint64_t>(corners[c]) >= num_vertices)
            throw InputError(path + ": cannot read mesh: face " + std::to_string(face_of[c / 3]) +
                             " references vertex " + std::to_string(corners[c]) +
                             ", out of range (" + std::to_string(num_vertices) + " vertices)");
    TriMesh mesh;
    mesh.vertices = Eigen::Map<const Vertices>(coordinates.data(),
                                               Eigen::Index(coordinates.size() / 3), 3);
    mesh.faces.resize(Eigen::Index(corners.size() / 3), 3);
    for (std::size_t c = 0; c < corners.size(); ++c)
        mesh.faces(Eigen::Index(c / 3), Eigen::Index(c % 3)) = static_cast<int>(corners[c]);
    return mesh;
}

}  // namespace concord
