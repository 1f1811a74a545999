// BodyParts and NearParts: every primitive's box lies in a part of its body, one body's parts
// refresh alone to what a full build gives, and the per-body lists of nearby parts never miss
// a primitive box that overlaps one of a near body's (zero false negatives).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "broad_phase/random_scene.hpp"
#include "concord/collision/broad_phase/body_parts.hpp"
#include "concord/collision/broad_phase/swept_boxes.hpp"

using namespace concord;
using concord::test::Scene;

namespace {

struct Boxes {
    std::vector<AABB> vertex, edge, face, body;
};

Boxes boxes_of(const Scene& s, const Vertices& x0, const Vertices& x1) {
    Boxes b;
    swept_vertex_boxes(x0, x1, 0.01, b.vertex);
    swept_edge_boxes(s.mesh.edges, x0, x1, 0.01, b.edge);
    swept_face_boxes(s.mesh.faces, x0, x1, 0.01, b.face);
    b.body.assign(static_cast<std::size_t>(test::num_bodies(s)), AABB{});
    for (std::size_t v = 0; v < b.vertex.size(); ++v)
        b.body[static_cast<std::size_t>(s.mesh.vertex_body[v])].expand(b.vertex[v]);
    return b;
}

bool contains(const AABB& outer, const AABB& inner) {
    return (outer.min.array() <= inner.min.array()).all() &&
           (outer.max.array() >= inner.max.array()).all();
}

}  // namespace

TEST(BodyParts, EveryBoxLiesInAPartOfItsBody) {
    for (int seed = 0; seed < 20; ++seed) {
        std::mt19937 rng(static_cast<unsigned>(seed));
        // Bodies of up to 150 vertices: some with exact parts, some cut into cells.
        const Scene s = test::random_scene(
            rng, {.min_bodies = 2, .max_bodies = 12, .max_vertices_per_body = 150});
        const Boxes b = boxes_of(s, s.x0, s.x1);
        BodyParts parts;
        parts.build(s.mesh.face_body, b.face, b.body);
        ASSERT_EQ(parts.num_bodies(), static_cast<int>(b.body.size()));
        for (int f = 0; f < s.mesh.num_faces(); ++f) {
            const int body = s.mesh.face_body[static_cast<std::size_t>(f)];
            const std::span<const AABB> of = parts.of(body);
            const int count = static_cast<int>(parts.members(body).size());
            EXPECT_EQ(static_cast<int>(of.size()),
                      count <= BodyParts::kExactParts ? count : BodyParts::kCells);
            bool inside = false;
            for (const AABB& part : of)
                inside = inside || contains(part, b.face[static_cast<std::size_t>(f)]);
            EXPECT_TRUE(inside) << "seed " << seed << " face " << f;
        }
    }
}

TEST(BodyParts, APrimitiveAsLargeAsItsBodyStaysInAPartOfItsOwn) {
    // A body of 3 long thin edges along three walls of a cube, and one of 100 small ones:
    // the first keeps each edge's box as a part (no part covers the cube's inside), the second
    // is cut into kCells parts.
    std::vector<int> body_of = {0, 0, 0};
    std::vector<AABB> boxes = {AABB(Vec3(0, 0, 0), Vec3(1, 0, 0)),
                               AABB(Vec3(0, 0, 0), Vec3(0, 1, 0)),
                               AABB(Vec3(0, 0, 0), Vec3(0, 0, 1))};
    for (int i = 0; i < 100; ++i) {
        body_of.push_back(1);
        const Vec3 c(2.0 + 0.01 * i, 0.5, 0.5);
        boxes.push_back(AABB(c, c + Vec3::Constant(0.005)));
    }
    std::vector<AABB> body_boxes(2);
    for (std::size_t i = 0; i < boxes.size(); ++i)
        body_boxes[static_cast<std::size_t>(body_of[i])].expand(boxes[i]);
    BodyParts parts;
    parts.build(body_of, boxes, body_boxes);
    ASSERT_EQ(parts.of(0).size(), 3u);
    const AABB middle(Vec3::Constant(0.4), Vec3::Constant(0.6));
    for (const AABB& part : parts.of(0)) EXPECT_FALSE(part.overlaps(middle));
    EXPECT_EQ(parts.of(1).size(), static_cast<std::size_t>(BodyParts::kCells));
    // Cells along the longest side (x) split the line of small boxes: no part spans it.
    for (const AABB& part : parts.of(1))
        if (!part.empty()) {
            EXPECT_LT(part.extent().x(), 0.5);
        }
}

namespace {

// Every primitive of every body is in exactly one part of its body, and each part's box is the
// union of its primitives' boxes (exactly; an empty part has an empty box).
void expect_parts_unite_their_members(const BodyParts& parts, std::span<const int> body_of,
                                      const std::vector<AABB>& boxes, const std::string& where) {
    std::vector<int> seen(body_of.size(), 0);
    for (int b = 0; b < parts.num_bodies(); ++b) {
        std::size_t members = 0;
        int p = 0;
        parts.for_each_part(b, [&](const AABB& part, std::span<const int> ids) {
            const AABB& listed = parts.of(b)[static_cast<std::size_t>(p++)];
            ASSERT_EQ(part.min, listed.min) << where;
            ASSERT_EQ(part.max, listed.max) << where;
            AABB united;
            for (int i : ids) {
                EXPECT_EQ(body_of[static_cast<std::size_t>(i)], b) << where;
                ++seen[static_cast<std::size_t>(i)];
                united.expand(boxes[static_cast<std::size_t>(i)]);
            }
            members += ids.size();
            if (ids.empty()) {
                EXPECT_TRUE(part.empty()) << where;
                return;
            }
            EXPECT_EQ(part.min, united.min) << where << " body " << b;
            EXPECT_EQ(part.max, united.max) << where << " body " << b;
        });
        EXPECT_EQ(members, parts.members(b).size()) << where;
    }
    for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], 1) << where << " item " << i;
}

}  // namespace

TEST(BodyParts, PartsHoldEachPrimitiveOnceAndUniteTheirBoxes) {
    for (int seed = 0; seed < 10; ++seed) {
        std::mt19937 rng(static_cast<unsigned>(300 + seed));
        const Scene s = test::random_scene(
            rng, {.min_bodies = 2, .max_bodies = 10, .max_vertices_per_body = 150});
        const Boxes b = boxes_of(s, s.x0, s.x1);
        BodyParts parts;
        parts.build(s.mesh.face_body, b.face, b.body);
        expect_parts_unite_their_members(parts, s.mesh.face_body, b.face,
                                         "seed " + std::to_string(seed));
    }
}

TEST(BodyParts, UpdatingOneBodyKeepsItsPrimitivesInTheirParts) {
    // An update unites each part's primitives' new boxes (the parts stay exact bounds); the
    // other bodies' parts do not change; a body moved without turning gets the parts a new
    // build gives it (its primitives stay in the same cells).
    int turned = 0;
    for (int seed = 0; seed < 10; ++seed) {
        std::mt19937 rng(static_cast<unsigned>(100 + seed));
        const Scene s = test::random_scene(
            rng, {.min_bodies = 3, .max_bodies = 10, .max_vertices_per_body = 120});
        const int n = test::num_bodies(s);
        const Boxes before = boxes_of(s, s.x0, s.x0);
        // Body `moved` goes to x1 (turned and moved); body `shifted` is translated.
        const int moved = static_cast<int>(rng() % static_cast<unsigned>(n));
        const int shifted = (moved + 1) % n;
        const Vec3 shift(0.3, -0.2, 0.1);
        Vertices x = s.x0;
        for (Eigen::Index v = 0; v < x.rows(); ++v) {
            const int body = s.mesh.vertex_body[static_cast<std::size_t>(v)];
            if (body == moved) x.row(v) = s.x1.row(v);
            if (body == shifted) x.row(v) += shift.transpose();
        }
        const Boxes after = boxes_of(s, x, x);
        BodyParts updated, built;
        updated.build(s.mesh.edge_body, before.edge, before.body);
        std::vector<std::uint8_t> flags(static_cast<std::size_t>(n), 0);
        flags[static_cast<std::size_t>(moved)] = 1;
        flags[static_cast<std::size_t>(shifted)] = 1;
        updated.update(after.edge, flags);
        const std::string where = "seed " + std::to_string(seed);
        expect_parts_unite_their_members(updated, s.mesh.edge_body, after.edge, where);
        BodyParts original;
        original.build(s.mesh.edge_body, before.edge, before.body);
        built.build(s.mesh.edge_body, after.edge, after.body);
        for (int b = 0; b < n; ++b) {
            const auto u = updated.of(b), f = built.of(b), o = original.of(b);
            ASSERT_EQ(u.size(), f.size());
            bool same_as_built = true;
            for (std::size_t k = 0; k < u.size(); ++k) {
                same_as_built = same_as_built && u[k].min == f[k].min && u[k].max == f[k].max;
                if (b != moved && b != shifted) {
                    EXPECT_EQ(u[k].min, o[k].min) << where << " body " << b;
                    EXPECT_EQ(u[k].max, o[k].max) << where << " body " << b;
                }
            }
            if (b == shifted) {
                // Cell boundaries move with the body box; rounding aside, no primitive changes
                // its cell, so the parts are the ones a build makes up to rounding.
                for (std::size_t k = 0; k < u.size(); ++k) {
                    if (f[k].empty()) continue;
                    EXPECT_LT((u[k].min - f[k].min).norm(), 1e-12) << where;
                    EXPECT_LT((u[k].max - f[k].max).norm(), 1e-12) << where;
                }
            }
            if (b == moved && !same_as_built) ++turned;
        }
    }
    EXPECT_GT(turned, 0);  // some turned body keeps parts a new build would not make
}

TEST(NearParts, NeverMissesABoxOfANearBody) {
    std::size_t overlapping = 0;
    for (int seed = 0; seed < 30; ++seed) {
        std::mt19937 rng(static_cast<unsigned>(200 + seed));
        const Scene s = test::random_scene(
            rng, {.min_bodies = 2, .max_bodies = 10, .max_vertices_per_body = 120});
        const int n = test::num_bodies(s);
        const Boxes b = boxes_of(s, s.x0, s.x1);
        BodyParts faces;
        faces.build(s.mesh.face_body, b.face, b.body);
        // Every other body is near (the lists then hold the parts overlapping the body's box);
        // only the odd bodies get lists.
        std::vector<std::uint8_t> listed(static_cast<std::size_t>(n), 0);
        for (int body = 1; body < n; body += 2) listed[static_cast<std::size_t>(body)] = 1;
        NearParts near;
        near.build(
            faces, b.body,
            [&](int body, auto&& visit) {
                for (int c = 0; c < n; ++c)
                    if (c != body) visit(c);
            },
            listed);
        for (int v = 0; v < s.mesh.num_vertices(); ++v) {
            const int body = s.mesh.vertex_body[static_cast<std::size_t>(v)];
            const AABB& box = b.vertex[static_cast<std::size_t>(v)];
            bool meets = false;
            for (int f = 0; f < s.mesh.num_faces(); ++f)
                meets = meets || (s.mesh.face_body[static_cast<std::size_t>(f)] != body &&
                                  box.overlaps(b.face[static_cast<std::size_t>(f)]));
            if (listed[static_cast<std::size_t>(body)] == 0) {
                EXPECT_FALSE(near.overlaps(body, box));
                continue;
            }
            if (meets) {
                ++overlapping;
                EXPECT_TRUE(near.overlaps(body, box)) << "seed " << seed << " vertex " << v;
            }
        }
    }
    EXPECT_GT(overlapping, 100u);  // not a test of empty lists
}
