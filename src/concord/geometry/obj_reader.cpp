#include "concord/geometry/obj_reader.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "concord/math/error.hpp"

namespace concord {

namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

std::vector<std::string_view> split_tokens(std::string_view line) {
    std::vector<std::string_view> tokens;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && is_space(line[i])) ++i;
        const std::size_t start = i;
        while (i < line.size() && !is_space(line[i])) ++i;
        if (i > start) tokens.push_back(line.substr(start, i - start));
    }
    return tokens;
}

enum class NumberParse { ok, not_a_number };

// Correctly rounded (std::from_chars); "nan"/"inf" and overflow come back as non-finite values
// for the caller to reject with a clearer message than "not a number".
NumberParse parse_coordinate(std::string_view token, double& value) {
    if (!token.empty() && token.front() == '+') token.remove_prefix(1);
    const char* end = token.data() + token.size();
    const auto [ptr, ec] = std::from_chars(token.data(), end, value);
    if (ptr != end || token.empty()) return NumberParse::not_a_number;
    if (ec == std::errc::result_out_of_range) {
        value = std::numeric_limits<double>::infinity();
    } else if (ec != std::errc()) {
        return NumberParse::not_a_number;
    }
    return NumberParse::ok;
}

// The vertex part of a face corner "i", "i/t", "i//n" or "i/t/n".
bool parse_corner_index(std::string_view token, long long& index) {
    const std::size_t slash = token.find('/');
    if (slash != std::string_view::npos) token = token.substr(0, slash);
    if (!token.empty() && token.front() == '+') token.remove_prefix(1);
    const char* end = token.data() + token.size();
    const auto [ptr, ec] = std::from_chars(token.data(), end, index);
    return !token.empty() && ec == std::errc() && ptr == end;
}

// A positive index may point at a vertex defined later in the file, so it is checked once the
// whole file has been read.
struct ForwardReference {
    long long index;  // as written, 1-based
    long long face_number;
    long long line;
};

class ObjParser {
  public:
    explicit ObjParser(std::string path) : path_(std::move(path)) {}

    TriMesh parse(const std::string& text) {
        std::size_t pos = 0;
        long long line_number = 0;
        std::string logical;
        while (pos < text.size()) {
            // One logical line: physical lines ending in '\' continue onto the next.
            logical.clear();
            const long long first_line = line_number + 1;
            while (pos < text.size()) {
                std::size_t eol = text.find('\n', pos);
                if (eol == std::string::npos) eol = text.size();
                std::string_view physical(text.data() + pos, eol - pos);
                pos = eol + 1;
                ++line_number;
                while (!physical.empty() && is_space(physical.back())) physical.remove_suffix(1);
                if (!physical.empty() && physical.back() == '\\') {
                    physical.remove_suffix(1);
                    logical.append(physical);
                    logical.push_back(' ');
                    continue;
                }
                logical.append(physical);
                break;
            }
            parse_statement(logical, first_line);
        }
        return finish();
    }

  private:
    [[noreturn]] void fail(long long line, const std::string& what) const {
        throw InputError(path_ + ": line " + std::to_string(line) + ": " + what);
    }

    void parse_statement(std::string_view line, long long line_number) {
        const std::size_t hash = line.find('#');
        if (hash != std::string_view::npos) line = line.substr(0, hash);
        const std::vector<std::string_view> tokens = split_tokens(line);
        if (tokens.empty()) return;
        if (tokens[0] == "v") {
            parse_vertex(tokens, line_number);
        } else if (tokens[0] == "f" || tokens[0] == "fo") {
            parse_face(tokens, line_number);
        }
        // Everything else (normals, texture coordinates, grouping, materials, free-form
        // geometry) carries nothing a contact surface needs.
    }

    void parse_vertex(const std::vector<std::string_view>& tokens, long long line_number) {
        const long long number = static_cast<long long>(coordinates_.size() / 3) + 1;
        const std::string vertex = "vertex " + std::to_string(number);
        if (tokens.size() < 4) {
            fail(line_number,
                 vertex + " needs 3 coordinates, found " + std::to_string(tokens.size() - 1));
        }
        // Extra values (a homogeneous w or a vertex colour) are allowed and ignored.
        for (int k = 1; k <= 3; ++k) {
            double value = 0.0;
            if (parse_coordinate(tokens[k], value) != NumberParse::ok) {
                fail(line_number, vertex + ": '" + std::string(tokens[k]) + "' is not a number");
            }
            if (!std::isfinite(value)) {
                fail(line_number,
                     vertex + " has a non-finite coordinate '" + std::string(tokens[k]) + "'");
            }
            coordinates_.push_back(value);
        }
    }

    void parse_face(const std::vector<std::string_view>& tokens, long long line_number) {
        ++face_count_;
        const std::string face = "face " + std::to_string(face_count_);
        const std::size_t corners = tokens.size() - 1;
        if (corners < 3) {
            fail(line_number,
                 face + " has " + std::to_string(corners) + " vertices; a face needs at least 3");
        }
        const long long defined = static_cast<long long>(coordinates_.size() / 3);
        polygon_.clear();
        for (std::size_t c = 1; c < tokens.size(); ++c) {
            long long index = 0;
            if (!parse_corner_index(tokens[c], index)) {
                fail(line_number,
                     face + ": '" + std::string(tokens[c]) + "' is not a vertex reference");
            }
            if (index == 0) fail(line_number, face + " uses vertex 0 (OBJ indices start at 1)");
            long long zero_based = 0;
            if (index < 0) {
                zero_based = defined + index;
                if (zero_based < 0) {
                    fail(line_number, face + " references vertex " + std::to_string(index) +
                                          " but only " + std::to_string(defined) +
                                          " vertices precede it");
                }
            } else {
                zero_based = index - 1;
                if (zero_based >= defined) {
                    forward_references_.push_back({index, face_count_, line_number});
                }
                if (zero_based > std::numeric_limits<int>::max()) {
                    fail(line_number, face + " references vertex " + std::to_string(index) +
                                          ", beyond the supported mesh size");
                }
            }
            polygon_.push_back(static_cast<int>(zero_based));
        }
        for (std::size_t i = 1; i + 1 < polygon_.size(); ++i) {
            triangles_.push_back(polygon_[0]);
            triangles_.push_back(polygon_[i]);
            triangles_.push_back(polygon_[i + 1]);
        }
    }

    TriMesh finish() const {
        const long long num_vertices = static_cast<long long>(coordinates_.size() / 3);
        for (const ForwardReference& ref : forward_references_) {
            if (ref.index > num_vertices) {
                fail(ref.line, "face " + std::to_string(ref.face_number) + " references vertex " +
                                   std::to_string(ref.index) + " but the mesh has " +
                                   std::to_string(num_vertices) + " vertices");
            }
        }
        TriMesh mesh;
        mesh.vertices =
            Eigen::Map<const Vertices>(coordinates_.data(), Eigen::Index(num_vertices), 3);
        mesh.faces =
            Eigen::Map<const Faces>(triangles_.data(), Eigen::Index(triangles_.size() / 3), 3);
        return mesh;
    }

    std::string path_;
    std::vector<double> coordinates_;
    std::vector<int> triangles_;
    std::vector<int> polygon_;
    std::vector<ForwardReference> forward_references_;
    long long face_count_ = 0;
};

}  // namespace

TriMesh read_obj_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open file");
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad()) throw InputError(path + ": read error");
    return ObjParser(path).parse(buffer.str());
}

}  // namespace concord
