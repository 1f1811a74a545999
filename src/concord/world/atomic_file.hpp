// Files that are either whole or absent: a reader, or a run killed while writing, never sees a
// part of one (issue 18, crash-safe output).
#pragma once

#include <string>
#include <string_view>

namespace concord {

/// Writes `content` to PATH.tmp, flushes it to the disk (fsync when `durable`), and renames
/// it over `path`: the rename is atomic, so `path` holds the old content or the new one. Throws
/// InputError naming the file when it cannot be written (the temporary file is removed).
void write_file_atomically(const std::string& path, std::string_view content, bool durable = false);

}  // namespace concord
