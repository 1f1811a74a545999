// Which record carries an augmented-Lagrangian pair between distributed steps, and how the
// next step takes them back (distributed/carried_contacts.hpp).
#include <gtest/gtest.h>

#include "concord/distributed/carried_contacts.hpp"

using namespace concord;

namespace {

AlMemoryEntry pair(int body_a, int body_b, int prim, double lambda) {
    AlMemoryEntry e;
    e.kind = 0;
    e.body_a = body_a;
    e.prim_a = prim;
    e.body_b = body_b;
    e.prim_b = prim + 1;
    e.lambda = lambda;
    return e;
}

BodyRecord record(int id) {
    BodyRecord r;
    r.id = id;
    return r;
}

}  // namespace

// body_a's record when it is written here, else body_b's; a half-space (body_b -1) or a pair
// of two bodies written elsewhere is dropped.
TEST(CarriedContacts, APairGoesWithItsFirstBodyWrittenHere) {
    std::vector<BodyRecord> owned = {record(2), record(5)};
    auto here = [&](int body) -> BodyRecord* {
        for (BodyRecord& r : owned)
            if (r.id == body) return &r;
        return nullptr;
    };
    const AlContactMemory m = {pair(2, 5, 0, 1.0), pair(3, 5, 0, 2.0), pair(3, -1, 0, 3.0),
                               pair(5, -1, 4, 4.0), pair(1, 3, 0, 5.0)};
    attach_contact_multipliers(m, here);
    ASSERT_EQ(owned[0].contact_multipliers.size(), 1u);
    EXPECT_EQ(owned[0].contact_multipliers[0].lambda, 1.0);
    ASSERT_EQ(owned[1].contact_multipliers.size(), 2u);  // (3, 5) by body_b, (5, plane)
    EXPECT_EQ(owned[1].contact_multipliers[0].lambda, 2.0);
    EXPECT_EQ(owned[1].contact_multipliers[1].lambda, 4.0);
}

// Each pair once, sorted; of a pair carried by both its bodies' records, body_a's copy.
TEST(CarriedContacts, TheNextStepTakesEachPairOnceAndBodyAsCopyFirst) {
    BodyRecord a = record(4), b = record(7);
    a.contact_multipliers = {pair(4, 7, 0, 1.0), pair(4, -1, 2, 3.0)};
    b.contact_multipliers = {pair(7, 9, 0, 5.0), pair(4, 7, 0, 2.0)};  // carried by body_b too
    for (const auto& records : {std::vector<BodyRecord>{a, b}, std::vector<BodyRecord>{b, a}}) {
        const AlContactMemory m = carried_contact_multipliers(records);
        ASSERT_EQ(m.size(), 3u);
        EXPECT_TRUE(std::is_sorted(m.begin(), m.end()));
        for (const AlMemoryEntry& e : m)
            if (e.body_a == 4 && e.body_b == 7) EXPECT_EQ(e.lambda, 1.0);
    }
}
