// Streaming the frames of an output directory that a FrameSelection picks.
#pragma once

#include <functional>

#include "concord/export/frame_selection.hpp"
#include "concord/io/output_reader.hpp"

namespace concord {

/// Calls `visit` for every saved frame in `selection`, in file order, reading frames.jsonl one
/// line at a time (through OutputReader::frames). Returns how many were visited. Throws
/// InputError from the reader for a malformed line, and "DIR/frames.jsonl: no saved frame K
/// (saved frames: A..B)" when the selection matches nothing.
int for_each_selected_frame(const OutputReader& reader, const FrameSelection& selection,
                            const std::function<void(const FrameRecord&)>& visit);

}  // namespace concord
