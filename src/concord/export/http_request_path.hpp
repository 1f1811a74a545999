// Turning the target of an HTTP request line into a safe relative file path.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace concord {

/// Decodes the path of a request target ("/data/meshes/a%20b.obj?x=1" -> "data/meshes/a b.obj"):
/// drops the query and fragment, percent-decodes, removes empty and "." segments and keeps a
/// trailing '/' (which asks for a folder's index file). Returns nullopt, so that the server
/// answers 400, for anything that could reach outside the served folders or confuse a file
/// system: a target not starting with '/', a ".." segment, a malformed or encoded NUL, '/' or
/// '\\' escape, or a control character.
std::optional<std::string> decode_request_path(std::string_view target);

/// The Content-Type for a file name, by extension (application/octet-stream when unknown).
std::string content_type_for(std::string_view file_name);

}  // namespace concord
