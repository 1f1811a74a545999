// The note every command that reads an output directory prints when the run in it did not
// finish (issue 18: a killed run's directory is read up to its last complete frame).
#pragma once

#include <cstdio>

#include "concord/io/output_reader.hpp"

namespace concord::cli {

inline void note_unfinished_run(const char* command, const OutputReader& reader) {
    if (const auto note = reader.unfinished_run_note())
        std::fprintf(stderr, "concord %s: note: %s\n", command, note->c_str());
}

}  // namespace concord::cli
