#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "concord/collision/audit/intersection_audit.hpp"
#include "concord/collision/audit/triangle_intersection.hpp"
#include "concord/math/error.hpp"

using namespace concord;

namespace {

struct Mesh {
    Vertices vertices;
    Faces faces;
};

// The closed box [lo, hi], twelve triangles counter-clockwise seen from outside. Built directly
// so that these tests do not depend on the geometry module's primitives.
Mesh box(const Vec3& lo, const Vec3& hi) {
    Mesh m;
    m.vertices.resize(8, 3);
    for (int i = 0; i < 8; ++i)
        m.vertices.row(i) << (i & 1 ? hi.x() : lo.x()), (i & 2 ? hi.y() : lo.y()),
            (i & 4 ? hi.z() : lo.z());
    const int quads[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                             {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
    m.faces.resize(12, 3);
    for (int q = 0; q < 6; ++q) {
        m.faces.row(2 * q) << quads[q][0], quads[q][1], quads[q][2];
        m.faces.row(2 * q + 1) << quads[q][0], quads[q][2], quads[q][3];
    }
    return m;
}

Mesh unit_box_at(const Vec3& lo) {
    return box(lo, lo + Vec3::Ones());
}

std::vector<AuditBody> views(const std::vector<Mesh>& meshes) {
    std::vector<AuditBody> bodies;
    for (const Mesh& m : meshes) bodies.push_back({&m.faces, &m.vertices});
    return bodies;
}

AuditResult audit(const std::vector<Mesh>& meshes, const std::vector<HalfSpace>& planes = {},
                  int max_reports = 16) {
    return audit_intersections(views(meshes), planes, max_reports);
}

const HalfSpace kGround{Vec3(0, 0, 0), Vec3(0, 0, 1)};

}  // namespace

TEST(IntersectionAudit, StackedBoxesWithAGapAreClean) {
    const double gap = std::ldexp(1.0, -30);
    const std::vector<Mesh> meshes = {unit_box_at(Vec3(0, 0, gap)),
                                      unit_box_at(Vec3(0, 0, 1 + 2 * gap)),
                                      unit_box_at(Vec3(1 + gap, 0, gap))};
    const AuditResult r = audit(meshes, {kGround});
    EXPECT_TRUE(r.clean);
    EXPECT_EQ(r.triangle_hit_count, 0);
    EXPECT_EQ(r.plane_hit_count, 0);
    EXPECT_TRUE(r.triangle_hits.empty());
    EXPECT_TRUE(r.plane_hits.empty());
}

TEST(IntersectionAudit, BoxesTouchingFaceToFaceAreReported) {
    const std::vector<Mesh> meshes = {unit_box_at(Vec3(0, 0, 1)), unit_box_at(Vec3(0, 0, 2))};
    const AuditResult r = audit(meshes, {kGround});
    EXPECT_FALSE(r.clean);
    EXPECT_GT(r.triangle_hit_count, 0);
    ASSERT_FALSE(r.triangle_hits.empty());
    for (const TriangleHit& h : r.triangle_hits) {
        EXPECT_EQ(h.body_a, 0);
        EXPECT_EQ(h.body_b, 1);
    }
    EXPECT_EQ(r.plane_hit_count, 0);
}

TEST(IntersectionAudit, OverlappingBoxesNameTheRightBodies) {
    const std::vector<Mesh> meshes = {
        unit_box_at(Vec3(0, 0, 1)), unit_box_at(Vec3(3, 0, 1)), unit_box_at(Vec3(6, 0, 1)),
        unit_box_at(Vec3(3.5, 0.25, 1.5)),  // penetrates body 1 only
    };
    const AuditResult r = audit(meshes, {kGround}, 1000);
    EXPECT_FALSE(r.clean);
    ASSERT_GT(r.triangle_hit_count, 0);
    EXPECT_EQ(static_cast<std::int64_t>(r.triangle_hits.size()), r.triangle_hit_count);
    for (const TriangleHit& h : r.triangle_hits) {
        EXPECT_EQ(h.body_a, 1);
        EXPECT_EQ(h.body_b, 3);
        // Each reported pair really intersects.
        const Mesh& a = meshes[1];
        const Mesh& b = meshes[3];
        auto v = [](const Mesh& m, int f, int k) -> Vec3 {
            return m.vertices.row(m.faces(f, k)).transpose();
        };
        EXPECT_TRUE(triangles_intersect(v(a, h.face_a, 0), v(a, h.face_a, 1), v(a, h.face_a, 2),
                                        v(b, h.face_b, 0), v(b, h.face_b, 1), v(b, h.face_b, 2)));
    }
    EXPECT_TRUE(std::is_sorted(r.triangle_hits.begin(), r.triangle_hits.end()));
}

TEST(IntersectionAudit, ExcludedBodyPairsAreNotCompared) {
    // Bodies 0-1 overlap (a robot's adjacent links, excluded), 1-2 overlap too (not excluded).
    const std::vector<Mesh> meshes = {unit_box_at(Vec3(0, 0, 1)), unit_box_at(Vec3(0.5, 0, 1)),
                                      unit_box_at(Vec3(1.2, 0, 1))};
    const std::vector<std::pair<int, int>> excluded = {{0, 1}};
    const AuditResult all = audit_intersections(views(meshes), {}, 1000);
    const AuditResult r = audit_intersections(views(meshes), {}, 1000, excluded);
    ASSERT_GT(r.triangle_hit_count, 0);
    EXPECT_LT(r.triangle_hit_count, all.triangle_hit_count);
    for (const TriangleHit& h : r.triangle_hits) {
        EXPECT_EQ(h.body_a, 1);
        EXPECT_EQ(h.body_b, 2);
    }
    const std::vector<std::pair<int, int>> both = {{0, 1}, {1, 2}};
    EXPECT_TRUE(audit_intersections(views(meshes), {}, 16, both).clean);
}

TEST(IntersectionAudit, VertexBelowAPlaneIsNamed) {
    std::vector<Mesh> meshes = {unit_box_at(Vec3(0, 0, 0.5)), unit_box_at(Vec3(3, 0, 0.5))};
    meshes[1].vertices(5, 2) = -0.1;  // one corner of body 1 dips under the ground
    const HalfSpace wall{Vec3(-10, 0, 0), Vec3(1, 0, 0)};
    const AuditResult r = audit(meshes, {wall, kGround});
    EXPECT_FALSE(r.clean);
    EXPECT_EQ(r.triangle_hit_count, 0);
    ASSERT_EQ(r.plane_hit_count, 1);
    ASSERT_EQ(r.plane_hits.size(), 1u);
    EXPECT_EQ(r.plane_hits[0], (PlaneHit{1, 5, 1}));
}

TEST(IntersectionAudit, BodyExactlyOnAPlaneCountsAndOneStepAboveDoesNot) {
    // The bottom face z = 0 lies on the ground: its four vertices (0, 1, 2, 3) are violations.
    const AuditResult on = audit({unit_box_at(Vec3(0, 0, 0))}, {kGround});
    EXPECT_FALSE(on.clean);
    ASSERT_EQ(on.plane_hit_count, 4);
    const std::vector<PlaneHit> expected = {{0, 0, 0}, {0, 1, 0}, {0, 2, 0}, {0, 3, 0}};
    EXPECT_EQ(on.plane_hits, expected);

    // The smallest positive double above the plane is enough to be clean.
    const double tiny = std::numeric_limits<double>::denorm_min();
    EXPECT_TRUE(audit({box(Vec3(0, 0, tiny), Vec3(1, 1, 1))}, {kGround}).clean);

    // A tilted plane x + y + z = 1 (normal not normalised) through one corner of the box.
    const HalfSpace tilted{Vec3(1, 0, 0), Vec3(1, 1, 1)};
    const AuditResult corner = audit({unit_box_at(Vec3(1, 0, 0))}, {tilted});
    ASSERT_EQ(corner.plane_hit_count, 1);
    EXPECT_EQ(corner.plane_hits[0], (PlaneHit{0, 0, 0}));
    EXPECT_TRUE(audit({box(Vec3(1, 0, tiny), Vec3(2, 1, 1))}, {tilted}).clean);
}

TEST(IntersectionAudit, TrianglesOfOneBodyAreNotTestedAgainstEachOther) {
    Mesh m = unit_box_at(Vec3(0, 0, 1));
    m.vertices(0, 0) = 0.5;  // folds a face through the box: a self-intersection
    const AuditResult r = audit({m});
    EXPECT_TRUE(r.clean);
}

TEST(IntersectionAudit, ReportsArePrefixesIndependentOfThreadsAndLimit) {
    // A row of boxes, each penetrating the next two, so that one body has hits with several.
    std::vector<Mesh> meshes;
    for (int i = 0; i < 12; ++i) meshes.push_back(unit_box_at(Vec3(0.4 * i, 0.1 * i, 0.05 * i)));
    const AuditResult all = audit(meshes, {HalfSpace{Vec3(0, 0, 0.3), Vec3(0, 0, 1)}}, 100000);
    ASSERT_GT(all.triangle_hit_count, 20);
    ASSERT_GT(all.plane_hit_count, 5);
    EXPECT_EQ(static_cast<std::int64_t>(all.triangle_hits.size()), all.triangle_hit_count);
    EXPECT_TRUE(std::is_sorted(all.triangle_hits.begin(), all.triangle_hits.end()));
    EXPECT_TRUE(std::is_sorted(all.plane_hits.begin(), all.plane_hits.end()));
    // Body pairs come first in the order: every (0, 1) hit precedes every (0, 2) hit.
    ASSERT_EQ(all.triangle_hits.front().body_b, 1);
    const auto first_02 = std::find_if(all.triangle_hits.begin(), all.triangle_hits.end(),
                                       [](const TriangleHit& h) { return h.body_b == 2; });
    ASSERT_NE(first_02, all.triangle_hits.end());
    EXPECT_EQ(first_02->body_a, 0);
    EXPECT_TRUE(std::all_of(first_02, all.triangle_hits.end(),
                            [](const TriangleHit& h) { return h.body_a > 0 || h.body_b > 1; }));

    for (int limit : {0, 1, 5, 17}) {
        const AuditResult some = audit(meshes, {HalfSpace{Vec3(0, 0, 0.3), Vec3(0, 0, 1)}}, limit);
        EXPECT_EQ(some.triangle_hit_count, all.triangle_hit_count);
        EXPECT_EQ(some.plane_hit_count, all.plane_hit_count);
        ASSERT_EQ(some.triangle_hits.size(), static_cast<std::size_t>(limit));
        EXPECT_TRUE(std::equal(some.triangle_hits.begin(), some.triangle_hits.end(),
                               all.triangle_hits.begin()));
        ASSERT_EQ(some.plane_hits.size(), static_cast<std::size_t>(limit));
        EXPECT_TRUE(
            std::equal(some.plane_hits.begin(), some.plane_hits.end(), all.plane_hits.begin()));
    }
    {
        tbb::global_control serial(tbb::global_control::max_allowed_parallelism, 1);
        const AuditResult one_thread =
            audit(meshes, {HalfSpace{Vec3(0, 0, 0.3), Vec3(0, 0, 1)}}, 100000);
        EXPECT_EQ(one_thread.triangle_hits, all.triangle_hits);
        EXPECT_EQ(one_thread.plane_hits, all.plane_hits);
    }
    EXPECT_EQ(audit(meshes, {}, -3).triangle_hits.size(), 0u);
}

// Bodies made of random triangles on a small integer grid, so that exact touching is common,
// against a brute-force loop over every pair of triangles of different bodies.
TEST(IntersectionAudit, AgreesWithBruteForceOnRandomTriangleSoups) {
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> coord(0, 6), small(0, 1);
    std::vector<Mesh> meshes(8);
    for (std::size_t b = 0; b < meshes.size(); ++b) {
        Mesh& m = meshes[b];
        const int n = 15;
        m.vertices.resize(3 * n, 3);
        m.faces.resize(n, 3);
        const Vec3 base(coord(rng), coord(rng), coord(rng));
        for (int f = 0; f < n; ++f) {
            for (int k = 0; k < 3; ++k)
                m.vertices.row(3 * f + k) =
                    (base + Vec3(small(rng), small(rng), small(rng)) * (1 + small(rng)))
                        .transpose();
            m.faces.row(f) << 3 * f, 3 * f + 1, 3 * f + 2;
        }
    }
    const std::vector<HalfSpace> planes = {{Vec3(0, 0, 1), Vec3(0, 0, 1)},
                                           {Vec3(6, 0, 0), Vec3(-1, -1, 0)}};

    std::vector<TriangleHit> expected;
    for (int a = 0; a < static_cast<int>(meshes.size()); ++a)
        for (int b = a + 1; b < static_cast<int>(meshes.size()); ++b)
            for (int fa = 0; fa < meshes[a].faces.rows(); ++fa)
                for (int fb = 0; fb < meshes[b].faces.rows(); ++fb) {
                    auto v = [&](int body, int f, int k) -> Vec3 {
                        return meshes[body].vertices.row(meshes[body].faces(f, k)).transpose();
                    };
                    if (triangles_intersect(v(a, fa, 0), v(a, fa, 1), v(a, fa, 2), v(b, fb, 0),
                                            v(b, fb, 1), v(b, fb, 2)))
                        expected.push_back({a, fa, b, fb});
                }
    std::vector<PlaneHit> expected_planes;
    for (int b = 0; b < static_cast<int>(meshes.size()); ++b)
        for (int v = 0; v < meshes[b].vertices.rows(); ++v)
            for (int p = 0; p < static_cast<int>(planes.size()); ++p)
                if (point_below_plane(meshes[b].vertices.row(v).transpose(), planes[p].point,
                                      planes[p].normal))
                    expected_planes.push_back({b, v, p});
    ASSERT_GT(expected.size(), 10u);
    ASSERT_GT(expected_planes.size(), 10u);

    const AuditResult r = audit(meshes, planes, 1 << 20);
    EXPECT_EQ(r.triangle_hit_count, static_cast<std::int64_t>(expected.size()));
    EXPECT_EQ(r.triangle_hits, expected);
    EXPECT_EQ(r.plane_hit_count, static_cast<std::int64_t>(expected_planes.size()));
    EXPECT_EQ(r.plane_hits, expected_planes);
}

TEST(IntersectionAudit, ManyBodiesOnlyTheMovedOneIsReported) {
    // 8 x 8 x 8 boxes with small gaps; then one box pushed into its +x neighbour.
    std::vector<Mesh> meshes;
    const double pitch = 1.0 + std::ldexp(1.0, -20);
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j)
            for (int k = 0; k < 8; ++k)
                meshes.push_back(unit_box_at(Vec3(pitch * i, pitch * j, 1 + pitch * k)));
    EXPECT_TRUE(audit(meshes, {kGround}).clean);

    const int moved = (3 * 8 + 4) * 8 + 5;  // i = 3, j = 4, k = 5; its +x neighbour is +64
    meshes[moved] = unit_box_at(Vec3(pitch * 3 + 0.5, pitch * 4, 1 + pitch * 5));
    const AuditResult r = audit(meshes, {kGround}, 100000);
    ASSERT_FALSE(r.clean);
    for (const TriangleHit& h : r.triangle_hits) {
        EXPECT_EQ(h.body_a, moved);
        EXPECT_EQ(h.body_b, moved + 64);
    }
}

TEST(IntersectionAudit, BadInputRaisesInputErrorNamingTheElement) {
    auto message = [](const std::vector<Mesh>& meshes, const std::vector<HalfSpace>& planes) {
        try {
            audit(meshes, planes);
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    std::vector<Mesh> meshes = {unit_box_at(Vec3(0, 0, 1)), unit_box_at(Vec3(3, 0, 1))};
    meshes[1].faces(3, 1) = 8;
    EXPECT_EQ(message(meshes, {}),
              "audit: body 1 face 3 refers to vertex 8, but the body has 8 vertices");
    meshes[1].faces(3, 1) = -1;
    EXPECT_EQ(message(meshes, {}),
              "audit: body 1 face 3 refers to vertex -1, but the body has 8 vertices");
    meshes[1] = unit_box_at(Vec3(3, 0, 1));
    meshes[0].vertices(6, 2) = std::nan("");
    EXPECT_EQ(message(meshes, {}), "audit: body 0 vertex 6 has a non-finite coordinate");
    meshes[0] = unit_box_at(Vec3(0, 0, 1));
    EXPECT_EQ(message(meshes, {kGround, HalfSpace{Vec3(0, 0, 0), Vec3(0, 0, 0)}}),
              "audit: plane 1 has a non-finite point or a zero or non-finite normal");
    EXPECT_EQ(message(meshes, {HalfSpace{Vec3(0, std::numeric_limits<double>::infinity(), 0),
                                         Vec3(0, 0, 1)}}),
              "audit: plane 0 has a non-finite point or a zero or non-finite normal");
    const std::vector<AuditBody> missing = {{nullptr, &meshes[0].vertices}};
    EXPECT_THROW(audit_intersections(missing, {}), InputError);
}

TEST(IntersectionAudit, EmptyScenesAreClean) {
    EXPECT_TRUE(audit_intersections({}, {}).clean);
    const Mesh empty;
    EXPECT_TRUE(audit({empty, unit_box_at(Vec3(0, 0, 1))}, {kGround}).clean);
}
