// The augmented-Lagrangian multipliers a world carries between steps: their byte format, their
// place in the world state (files, capture and restore), and the determinism they keep.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "concord/collision/broad_phase/collision_mesh.hpp"
#include "concord/math/error.hpp"
#include "concord/world/al_contact_memory.hpp"
#include "concord/world/world.hpp"
#include "world_test_util.hpp"

using namespace concord;
using concord::test::box_body;

namespace {

SceneSpec resting_boxes() {
    SceneSpec s;
    s.contact.model = ContactModel::AugmentedLagrangian;
    s.contact.friction = 0.2;
    s.planes.push_back({Vec3::Zero(), Vec3::UnitY(), std::nullopt});
    s.bodies.push_back(box_body("a", Vec3(0, 0.102, 0), Vec3::Constant(0.2)));
    s.bodies.push_back(box_body("b", Vec3(0.01, 0.306, 0), Vec3::Constant(0.2)));
    return s;
}

}  // namespace

TEST(AlContactMemory, BytesRoundTripAndDamageIsRefused) {
    AlContactMemory m = {{0, 0, 3, 1, 7, 2.5, 0}, {1, 0, 2, 1, 9, 0.0, 4}, {2, 1, 5, -1, 0, 1e-3, 0}};
    std::sort(m.begin(), m.end());
    const std::vector<std::uint8_t> bytes = al_memory_bytes(m);
    EXPECT_EQ(al_memory_from_bytes(bytes), m);
    EXPECT_TRUE(al_memory_from_bytes(al_memory_bytes({})).empty());
    for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
        const std::vector<std::uint8_t> part(bytes.begin(), bytes.begin() + static_cast<long>(cut));
        EXPECT_THROW(al_memory_from_bytes(part), std::runtime_error) << "cut at " << cut;
    }
    AlContactMemory unsorted = {m[1], m[0]};
    EXPECT_THROW(al_memory_from_bytes(al_memory_bytes(unsorted)), std::runtime_error);
    AlContactMemory negative = {m[0]};
    negative[0].lambda = -1.0;
    EXPECT_THROW(al_memory_from_bytes(al_memory_bytes(negative)), std::runtime_error);
}

TEST(AlContactMemory, CarriedInTheWorldStateAndReplayedBitForBit) {
    World w(resting_boxes());
    for (int i = 0; i < 20; ++i) w.step();
    const WorldState mid = w.capture_state();
    ASSERT_FALSE(mid.contact_multipliers.empty());
    std::size_t positive = 0;
    for (const AlMemoryEntry& e : mid.contact_multipliers) positive += e.lambda > 0.0;
    EXPECT_GT(positive, 0u);
    // The state file keeps them.
    const std::string path =
        (std::filesystem::temp_directory_path() / "concord_al_memory_state.bin").string();
    save_world_state(mid, path);
    const WorldState loaded = load_world_state(path);
    std::filesystem::remove(path);
    EXPECT_TRUE(loaded.bitwise_equal(mid));
    // Continuing, and restoring the captured state then continuing, give the same states.
    for (int i = 0; i < 10; ++i) w.step();
    const WorldState end = w.capture_state();
    World again(resting_boxes());
    again.restore_state(loaded);
    for (int i = 0; i < 10; ++i) again.step();
    EXPECT_TRUE(again.capture_state().bitwise_equal(end));
    // Without the multipliers the next steps differ (they are state, not a cache).
    WorldState forgetful = mid;
    forgetful.contact_multipliers.clear();
    World cold(resting_boxes());
    cold.restore_state(forgetful);
    for (int i = 0; i < 10; ++i) cold.step();
    EXPECT_FALSE(cold.capture_state().bitwise_equal(end));
}

TEST(AlContactMemory, ASystemTakesExactlyTheEntriesOfItsBodies) {
    // A system of world bodies 2, 5 and 7, each a tetrahedron (4 vertices, 4 faces, 6 edges),
    // against a world memory of 9 bodies and 2 planes with entries of every kind, some naming
    // primitives out of range. constraints_in searches per body; it must take what a scan of
    // every entry through key() takes.
    const std::vector<int> bodies = {2, 5, 7};
    ContactSurface surface;
    Faces tet_faces(4, 3);
    tet_faces << 0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3;
    Edges tet_edges(6, 2);
    tet_edges << 0, 1, 0, 2, 0, 3, 1, 2, 1, 3, 2, 3;
    surface.rest = Vertices::Zero(12, 3);
    for (int k = 0; k < 3; ++k) {
        append_body(surface.mesh, k, 4, tet_faces, tet_edges);
        surface.body_vertex_begin.push_back(4 * k);
    }
    surface.body_vertex_begin.push_back(12);
    const AlMemoryNames names(surface, bodies, 2);

    std::mt19937 rng(7);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    AlContactMemory memory;
    for (int i = 0; i < 3000; ++i) {
        AlMemoryEntry e;
        e.kind = pick(0, 2);
        e.body_a = pick(0, 8);
        e.prim_a = pick(-1, 7);
        e.body_b = e.kind == AlPairKey::PointPlane ? -1 : pick(0, 8);
        e.prim_b = pick(-1, e.kind == AlPairKey::PointPlane ? 2 : 7);
        e.lambda = 0.001 * i;
        e.inactive = i % 3;
        memory.push_back(e);
    }
    std::sort(memory.begin(), memory.end());
    memory.erase(std::unique(memory.begin(), memory.end()), memory.end());

    std::vector<AlConstraint> scanned;
    for (const AlMemoryEntry& e : memory) {
        AlConstraint c;
        if (!names.key(e, c.key)) continue;
        c.lambda = e.lambda;
        c.inactive = e.inactive;
        scanned.push_back(c);
    }
    const std::vector<AlConstraint> found = names.constraints_in(memory);
    ASSERT_GT(scanned.size(), 50u);
    ASSERT_EQ(found.size(), scanned.size());
    auto by_key = [](const AlConstraint& x, const AlConstraint& y) { return x.key < y.key; };
    std::vector<AlConstraint> a = scanned, b = found;
    std::sort(a.begin(), a.end(), by_key);
    std::sort(b.begin(), b.end(), by_key);
    for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_FALSE(by_key(a[i], b[i]) || by_key(b[i], a[i])) << i;
        EXPECT_EQ(a[i].lambda, b[i].lambda) << i;
        EXPECT_EQ(a[i].inactive, b[i].inactive) << i;
    }
    // Each taken entry names the system's bodies and its name maps back to the entry.
    for (const AlConstraint& c : found) {
        const AlMemoryEntry e = names.name(c);
        EXPECT_TRUE(std::binary_search(memory.begin(), memory.end(), e));
    }
    EXPECT_TRUE(names.constraints_in({}).empty());
}
