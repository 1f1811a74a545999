#include "concord/scene/body_name.hpp"

namespace concord {

bool is_file_safe_name(std::string_view name) {
    if (name.empty() || name.size() > 128) return false;
    if (name.front() == '.' || name.front() == '-') return false;
    for (char c : name) {
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '.' || c == '-';
        if (!ok) return false;
    }
    return true;
}

}  // namespace concord
