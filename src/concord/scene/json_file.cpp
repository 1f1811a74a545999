#include "concord/scene/json_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "concord/math/error.hpp"
#include "concord/math/regular_file.hpp"

namespace concord {

namespace {

/// Follows the parser's events to know the key path of every key, so that a repeated key can
/// be reported where it is.
class DuplicateKeyDetector {
  public:
    explicit DuplicateKeyDetector(std::string source) : source_(std::move(source)) {}

    bool operator()(int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        using Event = nlohmann::json::parse_event_t;
        switch (event) {
            case Event::object_start:
                push(false);
                break;
            case Event::array_start:
                push(true);
                break;
            case Event::key: {
                Frame& top = frames_.back();
                top.key = parsed.get<std::string>();
                if (!top.keys.insert(top.key).second) {
                    throw InputError(source_ + ": " + path() + ": duplicate key");
                }
                break;
            }
            case Event::object_end:
            case Event::array_end:
                frames_.pop_back();
                value_done();
                break;
            case Event::value:
                value_done();
                break;
        }
        return true;
    }

  private:
    struct Frame {
        bool is_array = false;
        std::size_t index = 0;
        std::string key;
        std::set<std::string> keys;
    };

    void push(bool is_array) {
        frames_.emplace_back();
        frames_.back().is_array = is_array;
    }

    void value_done() {
        if (!frames_.empty() && frames_.back().is_array) ++frames_.back().index;
    }

    std::string path() const {
        std::string p;
        for (const Frame& f : frames_) {
            if (f.is_array) {
                // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "[" + to_string(i).
                p += '[';
                p += std::to_string(f.index);
                p += ']';
            } else {
                if (!p.empty()) p += ".";
                p += f.key;
            }
        }
        return p;
    }

    std::string source_;
    std::vector<Frame> frames_;
};

}  // namespace

nlohmann::json parse_json_text(const std::string& text, const std::string& source) {
    try {
        return nlohmann::json::parse(text, DuplicateKeyDetector(source), /*allow_exceptions=*/true,
                                     /*ignore_comments=*/true);
    } catch (const nlohmann::json::parse_error& e) {
        // e.what() is "[json.exception.parse_error.101] parse error at line 2, column 5: ...".
        std::string what = e.what();
        auto at = what.find(" at line ");
        if (at != std::string::npos) what = what.substr(at + 1);
        // A one-line document (a frames.jsonl line) has only columns worth naming.
        const std::string first_line = "at line 1, column";
        if (text.find('\n') == std::string::npos && what.rfind(first_line, 0) == 0) {
            what = "at column" + what.substr(first_line.size());
        }
        throw InputError(source + ": invalid JSON " + what);
    } catch (const nlohmann::json::exception& e) {
        // Number overflow (e.g. 1e400) and similar: not a finite number.
        std::string what = e.what();
        auto end = what.find("] ");
        if (end != std::string::npos) what = what.substr(end + 2);
        throw InputError(source + ": invalid JSON: " + what);
    }
}

nlohmann::json read_json_file(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw InputError(path + ": is a directory, not a file");
    require_regular_file(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot read file (" + std::strerror(errno) + ")");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw InputError(path + ": cannot read file");
    return parse_json_text(text.str(), path);
}

}  // namespace concord
