// Reading JSON documents from disk with errors that name the file, line and key.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace concord {

/// Parses JSON text. `//` and `/* */` comments are allowed; a key repeated inside one object
/// is an error (JSON parsers would otherwise keep one silently). Throws InputError
/// "SOURCE: invalid JSON at line L, column C: ..." or "SOURCE: key.path: duplicate key".
nlohmann::json parse_json_text(const std::string& text, const std::string& source);

/// Reads and parses the file at `path` as parse_json_text does; a missing or unreadable file
/// throws InputError "PATH: cannot read file (...)".
nlohmann::json read_json_file(const std::string& path);

}  // namespace concord
