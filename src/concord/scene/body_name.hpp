// Body names double as file names in output directories (meshes/NAME.obj).
#pragma once

#include <string>
#include <string_view>

namespace concord {

/// True for 1 to 128 characters from [A-Za-z0-9_.-] that do not start with '.' or '-': such
/// a name is a valid file name on every common file system and needs no quoting in a shell.
bool is_file_safe_name(std::string_view name);

/// The rule above in words, for error messages.
inline constexpr const char* kFileSafeNameRule =
    "1 to 128 characters from A-Z a-z 0-9 _ . - , not starting with '.' or '-'";

}  // namespace concord
