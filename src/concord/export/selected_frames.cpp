#include "concord/export/selected_frames.hpp"

#include <filesystem>

#include "concord/io/output_layout.hpp"

namespace concord {

int for_each_selected_frame(const OutputReader& reader, const FrameSelection& selection,
                            const std::function<void(const FrameRecord&)>& visit) {
    FrameStream stream = reader.frames();
    FrameRecord record;
    std::vector<int> saved;
    int visited = 0;
    while (stream.next(record)) {
        saved.push_back(record.frame);
        if (!selection.contains(record.frame)) {
            // Frames arrive in increasing order: past the end of the range nothing can match.
            if (selection.last && record.frame > *selection.last && visited > 0) break;
            continue;
        }
        visit(record);
        ++visited;
    }
    if (visited == 0) {
        check_selection(
            selection, saved,
            (std::filesystem::path(reader.directory()) / output_layout::kFrames).string());
    }
    return visited;
}

}  // namespace concord
