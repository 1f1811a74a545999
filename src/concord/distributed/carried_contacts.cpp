#include "concord/distributed/carried_contacts.hpp"

#include <algorithm>

namespace concord {

void attach_contact_multipliers(const AlContactMemory& memory,
                                const std::function<BodyRecord*(int body)>& record) {
    for (const AlMemoryEntry& e : memory) {
        BodyRecord* r = record(e.body_a);
        if (r == nullptr && e.body_b >= 0) r = record(e.body_b);
        if (r != nullptr) r->contact_multipliers.push_back(e);
    }
}

AlContactMemory carried_contact_multipliers(std::span<const BodyRecord> records) {
    struct Carried {
        AlMemoryEntry entry;
        bool by_body_b;
    };
    std::vector<Carried> all;
    for (const BodyRecord& r : records)
        for (const AlMemoryEntry& e : r.contact_multipliers) all.push_back({e, r.id != e.body_a});
    std::sort(all.begin(), all.end(), [](const Carried& x, const Carried& y) {
        if (x.entry < y.entry) return true;
        if (y.entry < x.entry) return false;
        return x.by_body_b < y.by_body_b;  // body_a's copy first
    });
    AlContactMemory out;
    for (const Carried& c : all)
        if (out.empty() || out.back() < c.entry) out.push_back(c.entry);
    return out;
}

}  // namespace concord
