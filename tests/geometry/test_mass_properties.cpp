#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "concord/geometry/mass_properties.hpp"
#include "concord/geometry/primitives.hpp"
#include "concord/math/finite_difference.hpp"
#include "geometry/geometry_test_support.hpp"

using namespace concord;
using concord::test::random_rotation;
using concord::test::throws_input_error;
using concord::test::transformed;

namespace {

constexpr double kPi = std::numbers::pi;

double relative_error(const MatX& a, const MatX& b) {
    return (a - b).norm() / b.norm();
}

// Volume of the polyhedron swept by revolving a (r, y) profile in `segments` steps, as the
// revolve in primitives.cpp builds it: each profile segment sweeps an exact frustum of a regular
// n-gon pyramid, with signed height so that a counter-clockwise loop gives the enclosed volume.
double lathe_volume(const std::vector<Vec2>& profile, int segments, bool closed_loop) {
    const double k = 0.5 * segments * std::sin(2.0 * kPi / segments) / 3.0;
    double volume = 0.0;
    const std::size_t n = profile.size();
    for (std::size_t i = 0; i + (closed_loop ? 0 : 1) < n; ++i) {
        const Vec2& a = profile[i];
        const Vec2& b = profile[(i + 1) % n];
        volume += (b.y() - a.y()) * k * (a.x() * a.x() + a.x() * b.x() + b.x() * b.x());
    }
    return volume;
}

// Eight-point Gauss rule on a box of edge lengths `size` centred at the origin, mapped by
// x -> R x + t. Exact for polynomials of degree <= 3 in each coordinate, which covers every
// integrand of the affine mass matrix.
struct QuadraturePoint {
    Vec3 x;
    double weight;
};
std::vector<QuadraturePoint> box_gauss_points(const Vec3& size, const Mat3& R, const Vec3& t) {
    std::vector<QuadraturePoint> points;
    const double g = 1.0 / std::sqrt(3.0);
    const double w = size.prod() / 8.0;
    for (int i = 0; i < 8; ++i) {
        const Vec3 local(((i & 1) ? g : -g) * 0.5 * size.x(), ((i & 2) ? g : -g) * 0.5 * size.y(),
                         ((i & 4) ? g : -g) * 0.5 * size.z());
        points.push_back({R * local + t, w});
    }
    return points;
}

Eigen::Matrix<double, 3, 12> affine_basis(const Vec3& X) {
    Eigen::Matrix<double, 3, 12> J = Eigen::Matrix<double, 3, 12>::Zero();
    for (int i = 0; i < 3; ++i) {
        J(i, i) = 1.0;
        for (int j = 0; j < 3; ++j) J(i, 3 + 3 * i + j) = X[j];
    }
    return J;
}

}  // namespace

TEST(MassProperties, BoxIsExact) {
    const double a = 1.0, b = 2.0, c = 3.0, rho = 2.5;
    const MassProperties mp = compute_mass_properties(box(Vec3(a, b, c)), rho, "box");
    const double m = rho * a * b * c;
    EXPECT_NEAR(mp.volume, 6.0, 1e-14);
    EXPECT_NEAR(mp.mass, m, 1e-13);
    EXPECT_LT(mp.center_of_mass.norm(), 1e-15);
    const Mat3 S = (m / 12.0) * Vec3(a * a, b * b, c * c).asDiagonal().toDenseMatrix();
    const Mat3 I =
        (m / 12.0) * Vec3(b * b + c * c, a * a + c * c, a * a + b * b).asDiagonal().toDenseMatrix();
    EXPECT_LT((mp.second_moment - S).norm(), 1e-13);
    EXPECT_LT((mp.inertia_about_com - I).norm(), 1e-13);
}

TEST(MassProperties, OffsetBoxMovesComAndSecondMoment) {
    const Vec3 size(0.5, 1.5, 2.0), t(10.0, -3.0, 7.0);
    const MassProperties mp =
        compute_mass_properties(transformed(box(size), Mat3::Identity(), t), 1.0, "box");
    const double m = size.prod();
    EXPECT_LT((mp.center_of_mass - t).norm(), 1e-13);
    const Mat3 central = (m / 12.0) * size.cwiseAbs2().asDiagonal().toDenseMatrix();
    EXPECT_LT(relative_error(mp.second_moment, central + m * t * t.transpose()), 1e-14);
    const MassProperties centred = compute_mass_properties(box(size), 1.0, "box");
    EXPECT_LT(relative_error(mp.inertia_about_com, centred.inertia_about_com), 1e-12);
}

TEST(MassProperties, IcosphereWithinRigorousBoundsAndConverges) {
    // Each icosphere is a convex polyhedron with vertices on the sphere of radius r, so it lies
    // between the ball of its smallest face-plane distance rho_min and the ball of radius r;
    // volume and (by monotonicity of integral y^2 + z^2) each principal inertia are bracketed by
    // the two balls' values. Icosahedral symmetry makes the inertia exactly isotropic.
    const double r = 1.3, rho = 2.0;
    const double ball_volume = 4.0 / 3.0 * kPi * r * r * r;
    double previous_volume_error = 0.0, previous_inertia_error = 0.0;
    for (int s = 0; s <= 5; ++s) {
        SCOPED_TRACE("subdivisions " + std::to_string(s));
        const TriMesh m = icosphere(r, s);
        const MassProperties mp = compute_mass_properties(m, rho, "icosphere");

        // Exact polyhedron volume by an independent formula: sum of face area * plane distance / 3.
        double volume = 0.0, rho_min = r;
        for (int f = 0; f < m.num_faces(); ++f) {
            const Vec3 a = m.vertices.row(m.faces(f, 0)), b = m.vertices.row(m.faces(f, 1)),
                       c = m.vertices.row(m.faces(f, 2));
            const Vec3 n = (b - a).cross(c - a);
            const double distance = n.normalized().dot(a);
            rho_min = std::min(rho_min, distance);
            volume += 0.5 * n.norm() * distance / 3.0;
            if (s <= 3) {  // convexity, which the bounds rely on
                for (int v = 0; v < m.num_vertices(); ++v) {
                    ASSERT_LE(n.normalized().dot(Vec3(m.vertices.row(v))), distance + 1e-12);
                }
            }
        }
        EXPECT_NEAR(mp.volume, volume, 1e-13 * volume);
        EXPECT_LE(mp.volume, ball_volume);
        EXPECT_GE(mp.volume, 4.0 / 3.0 * kPi * std::pow(rho_min, 3));
        EXPECT_LT(mp.center_of_mass.norm(), 1e-14);

        const double lambda = mp.inertia_about_com.trace() / 3.0;
        EXPECT_LT((mp.inertia_about_com - lambda * Mat3::Identity()).norm(), 1e-13 * lambda);
        EXPECT_LE(lambda, 8.0 * kPi / 15.0 * rho * std::pow(r, 5));
        EXPECT_GE(lambda, 8.0 * kPi / 15.0 * rho * std::pow(rho_min, 5));

        // The error shrinks like the squared edge length, by about 4 per subdivision.
        const double volume_error = 1.0 - mp.volume / ball_volume;
        const double inertia_error = 1.0 - lambda / (0.4 * mp.mass * r * r);
        EXPECT_GT(volume_error, 0.0);
        EXPECT_GT(inertia_error, 0.0);
        if (s >= 2) {  // from the icosahedron itself the first step is not yet asymptotic
            EXPECT_LT(volume_error, previous_volume_error / 3.5);
            EXPECT_LT(inertia_error, previous_inertia_error / 3.5);
        }
        previous_volume_error = volume_error;
        previous_inertia_error = inertia_error;
        RecordProperty("volume_error_s" + std::to_string(s), std::to_string(volume_error));
    }
    EXPECT_LT(previous_volume_error, 1e-3);
    EXPECT_LT(previous_inertia_error, 1e-3);
}

TEST(MassProperties, CylinderMatchesPolygonalPrism) {
    // A prism over a regular n-gon of circumradius R: area A = n/2 R^2 sin(a), polar moment
    // J = n R^4 sin(a) (2 + cos(a)) / 12 with a = 2 pi / n, isotropic in the cross-section.
    const double R = 0.7, h = 1.9, rho = 3.0;
    for (int n : {3, 4, 7, 32, 200}) {
        SCOPED_TRACE("segments " + std::to_string(n));
        const MassProperties mp = compute_mass_properties(cylinder(R, h, n), rho, "cylinder");
        const double angle = 2.0 * kPi / n;
        const double A = 0.5 * n * R * R * std::sin(angle);
        const double J = n * std::pow(R, 4) * std::sin(angle) * (2.0 + std::cos(angle)) / 12.0;
        EXPECT_NEAR(mp.volume, A * h, 1e-14 * A * h);
        EXPECT_LT(mp.center_of_mass.norm(), 1e-15);
        const double across = rho * (A * h * h * h / 12.0 + h * J / 2.0);
        const Mat3 I = Vec3(across, rho * h * J, across).asDiagonal();
        EXPECT_LT(relative_error(mp.inertia_about_com, I), 1e-14);
    }
    // And the polygon correction vanishes in the limit: pi R^2 h and m (3 R^2 + h^2) / 12.
    const MassProperties fine = compute_mass_properties(cylinder(R, h, 2000), 1.0, "cylinder");
    EXPECT_NEAR(fine.volume / (kPi * R * R * h), 1.0, 2e-6);
    EXPECT_NEAR(fine.inertia_about_com(0, 0) / (fine.mass * (3 * R * R + h * h) / 12.0), 1.0, 2e-6);
}

TEST(MassProperties, LatheSolidsMatchExactFrustumVolumes) {
    const int n = 24;
    const double fs = 0.1 * std::sqrt(1.0 + 0.25 * 0.25);
    EXPECT_NEAR(compute_mass_properties(funnel(1.0, 0.5, 2.0, 0.1, n), 1.0, "funnel").volume,
                lathe_volume({{0.5, -1}, {0.5 + fs, -1}, {1.0 + fs, 1}, {1.0, 1}}, n, true), 1e-14);

    std::vector<Vec2> pill = {{0, -0.5 - 0.4}};
    for (int k = 1; k <= 4; ++k) {
        const double polar = 0.5 * kPi * k / 4;
        pill.emplace_back(0.4 * std::sin(polar), -0.5 - 0.4 * std::cos(polar));
    }
    for (int k = 4; k >= 1; --k) {
        const double polar = 0.5 * kPi * k / 4;
        pill.emplace_back(0.4 * std::sin(polar), 0.5 + 0.4 * std::cos(polar));
    }
    pill.emplace_back(0, 0.5 + 0.4);
    EXPECT_NEAR(compute_mass_properties(capsule(0.4, 1.0, n, 4), 1.0, "capsule").volume,
                lathe_volume(pill, n, false), 1e-14);

    std::vector<Vec2> tube;
    for (int k = 0; k < 10; ++k) {
        tube.emplace_back(2.0 + 0.5 * std::cos(2 * kPi * k / 10), 0.5 * std::sin(2 * kPi * k / 10));
    }
    const MassProperties ring = compute_mass_properties(torus(2.0, 0.5, n, 10), 1.0, "torus");
    EXPECT_NEAR(ring.volume, lathe_volume(tube, n, true), 1e-13);
    EXPECT_LT(ring.center_of_mass.norm(), 1e-14);
}

TEST(MassProperties, ContainerIsOuterBoxMinusCavity) {
    const Vec3 inner(1.0, 2.0, 3.0);
    const double t = 0.1, rho = 1.5;
    const Vec3 outer = inner + Vec3(2 * t, t, 2 * t);
    const Vec3 cavity_centre(0.0, 0.5 * t, 0.0);  // floor at -H/2 + t, rim at H/2
    const double vo = outer.prod(), vi = inner.prod();
    const MassProperties mp =
        compute_mass_properties(open_box_container(inner, t), rho, "container");
    EXPECT_NEAR(mp.volume, vo - vi, 1e-13);
    EXPECT_LT((mp.center_of_mass - (-vi / (vo - vi)) * cavity_centre).norm(), 1e-13);
    const Mat3 S = rho * ((vo / 12.0) * outer.cwiseAbs2().asDiagonal().toDenseMatrix() -
                          (vi / 12.0) * inner.cwiseAbs2().asDiagonal().toDenseMatrix() -
                          vi * cavity_centre * cavity_centre.transpose());
    EXPECT_LT(relative_error(mp.second_moment, S), 1e-13);
}

TEST(MassProperties, InvariantUnderRigidMotions) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> offset(-100.0, 100.0);
    const std::vector<TriMesh> shapes = {open_box_container(Vec3(1, 2, 3), 0.1),
                                         torus(2.0, 0.5, 16, 8), funnel(1.0, 0.5, 2.0, 0.1, 12),
                                         capsule(0.3, 1.0, 10, 3)};
    for (const TriMesh& shape : shapes) {
        const MassProperties ref = compute_mass_properties(shape, 2.0, "shape");
        const Eigen::SelfAdjointEigenSolver<Mat3> ref_eig(ref.inertia_about_com);
        for (int trial = 0; trial < 5; ++trial) {
            const Mat3 R = random_rotation(rng);
            const Vec3 t(offset(rng), offset(rng), offset(rng));
            const MassProperties mp =
                compute_mass_properties(transformed(shape, R, t), 2.0, "moved");
            EXPECT_NEAR(mp.volume, ref.volume, 1e-12 * ref.volume);
            EXPECT_NEAR(mp.mass, ref.mass, 1e-12 * ref.mass);
            EXPECT_LT((mp.center_of_mass - (R * ref.center_of_mass + t)).norm(), 1e-11);
            const Eigen::SelfAdjointEigenSolver<Mat3> eig(mp.inertia_about_com);
            EXPECT_LT((eig.eigenvalues() - ref_eig.eigenvalues()).norm(),
                      1e-10 * ref_eig.eigenvalues().norm());
            EXPECT_LT(
                relative_error(mp.inertia_about_com, R * ref.inertia_about_com * R.transpose()),
                1e-10);
            // S about the new origin = rotated central moments + parallel-axis term.
            const Mat3 central =
                ref.second_moment - ref.mass * ref.center_of_mass * ref.center_of_mass.transpose();
            const Vec3 c = mp.center_of_mass;
            EXPECT_LT(relative_error(mp.second_moment,
                                     R * central * R.transpose() + mp.mass * c * c.transpose()),
                      1e-12);
        }
    }
}

TEST(AffineMassMatrix, CentredBoxBlocksAreAnalytic) {
    const Vec3 size(0.7, 1.1, 1.9);
    const double rho = 3.0, m = rho * size.prod();
    const Mat12 M = affine_mass_matrix(compute_mass_properties(box(size), rho, "box"));
    const Mat3 pp = M.block<3, 3>(0, 0);
    const Eigen::Matrix<double, 3, 9> pa = M.block<3, 9>(0, 3);
    EXPECT_LT((pp - m * Mat3::Identity()).norm(), 1e-13);
    EXPECT_LT(pa.norm(), 1e-14);
    const Mat3 S = (m / 12.0) * size.cwiseAbs2().asDiagonal().toDenseMatrix();
    for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 3; ++k) {
            const Mat3 block = M.block<3, 3>(3 + 3 * i, 3 + 3 * k);
            EXPECT_LT((block - (i == k ? S : Mat3::Zero())).norm(), 1e-13);
        }
    }
}

TEST(AffineMassMatrix, EqualsExactQuadratureOfJtJ) {
    std::mt19937 rng(5);
    const Vec3 size(0.7, 1.1, 1.9);
    const double rho = 3.0;
    for (int trial = 0; trial < 4; ++trial) {
        const Mat3 R = random_rotation(rng);
        const Vec3 t = Vec3::Random() * 5.0;
        const MassProperties mp = compute_mass_properties(transformed(box(size), R, t), rho, "box");
        const Mat12 M = affine_mass_matrix(mp);

        Mat12 quadrature = Mat12::Zero();
        for (const auto& [x, w] : box_gauss_points(size, R, t)) {
            const auto J = affine_basis(x);
            quadrature += rho * w * J.transpose() * J;
        }
        EXPECT_LT(relative_error(M, quadrature), 1e-13);
        EXPECT_LT((M - M.transpose()).norm(), 1e-15 * M.norm());
        EXPECT_GT(Eigen::SelfAdjointEigenSolver<Mat12>(M).eigenvalues().minCoeff(), 0.0);
    }
}

TEST(AffineMassMatrix, QuadraticFormIsTheKineticIntegral) {
    // q^T M q = integral of rho |p + A X|^2 dV = m |p|^2 + 2 m p . (A c) + tr(A S A^T), checked
    // on a general solid with the moments and on a rotated box with exact quadrature.
    std::mt19937 rng(9);
    std::normal_distribution<double> n(0.0, 1.0);
    const MassProperties torus_mp = compute_mass_properties(
        transformed(torus(2.0, 0.5, 16, 8), random_rotation(rng), Vec3(1, 2, 3)), 1.7, "torus");
    const Mat12 Mt = affine_mass_matrix(torus_mp);

    const Vec3 size(0.7, 1.1, 1.9);
    const Mat3 R = random_rotation(rng);
    const Vec3 t(-2, 0.5, 4);
    const Mat12 Mb =
        affine_mass_matrix(compute_mass_properties(transformed(box(size), R, t), 2.0, "box"));
    const auto points = box_gauss_points(size, R, t);

    for (int trial = 0; trial < 20; ++trial) {
        Vec12 q;
        for (int i = 0; i < 12; ++i) q[i] = n(rng);
        const Vec3 p = q.head<3>();
        const Mat3 A = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(q.data() + 3);

        const double from_moments = torus_mp.mass * p.squaredNorm() +
                                    2.0 * torus_mp.mass * p.dot(A * torus_mp.center_of_mass) +
                                    (A * torus_mp.second_moment * A.transpose()).trace();
        EXPECT_NEAR(q.dot(Mt * q), from_moments, 1e-12 * std::abs(from_moments));

        double integral = 0.0;
        for (const auto& [x, w] : points) integral += 2.0 * w * (p + A * x).squaredNorm();
        EXPECT_NEAR(q.dot(Mb * q), integral, 1e-12 * integral);
    }
}

TEST(AffineMassMatrix, IsTheHessianOfKineticEnergy) {
    // Finite differences of the quadrature kinetic energy 1/2 int rho |p + A X|^2 give M q.
    const Vec3 size(0.7, 1.1, 1.9);
    std::mt19937 rng(3);
    const Mat3 R = random_rotation(rng);
    const Vec3 t(1, -1, 2);
    const double rho = 1.3;
    const Mat12 M =
        affine_mass_matrix(compute_mass_properties(transformed(box(size), R, t), rho, "box"));
    const auto points = box_gauss_points(size, R, t);
    auto energy = [&](const VecX& q) {
        const Vec3 p = q.head<3>();
        const Mat3 A = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(q.data() + 3);
        double e = 0.0;
        for (const auto& [x, w] : points) e += 0.5 * rho * w * (p + A * x).squaredNorm();
        return e;
    };
    VecX q = VecX::Zero(12);
    q.head<3>() = Vec3(0.3, -0.2, 0.1);
    q.tail<9>() << 1.1, 0.1, -0.2, 0.05, 0.9, 0.3, -0.1, 0.2, 1.2;
    const VecX g = fd_gradient(energy, q, 1e-6);
    EXPECT_LT((g - M * q).norm(), 1e-7 * (M * q).norm());
}

TEST(MassPropertiesErrors, BadMeshesAndDensities) {
    const TriMesh cube = box(Vec3::Ones());
    Faces open = cube.faces.topRows(11);
    EXPECT_TRUE(throws_input_error(
        [&] { compute_mass_properties(make_mesh(cube.vertices, open), 1.0, "lid.obj"); },
        "lid.obj: mesh is not closed: boundary edge ("));

    TriMesh inverted = cube;
    inverted.faces.col(1).swap(inverted.faces.col(2));
    inverted.build_connectivity();
    EXPECT_TRUE(throws_input_error([&] { compute_mass_properties(inverted, 1.0, "inv"); },
                                   "inv: mesh is inside out"));

    Vertices v(3, 3);
    v << 0, 0, 0, 1, 0, 0, 0, 1, 0;
    Faces sheet(2, 3);
    sheet << 0, 1, 2, 0, 2, 1;
    EXPECT_TRUE(
        throws_input_error([&] { compute_mass_properties(make_mesh(v, sheet), 1.0, "flat"); },
                           "flat: mesh encloses no volume"));

    for (double density : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN(),
                           std::numeric_limits<double>::infinity()}) {
        EXPECT_TRUE(throws_input_error([&] { compute_mass_properties(cube, density, "cube"); },
                                       "cube: density must be positive and finite, got "));
    }
}

namespace {
::testing::AssertionResult contains_text(const std::string& text, const std::string& part) {
    if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "\"" << part << "\" not in \"" << text << "\"";
}
}  // namespace

TEST(MassPropertiesFromInertia, ReproducesTheMeshsOwnMassProperties) {
    // A rotated, shifted box: its computed mass, centre and inertia given back as an
    // <inertial> give the same second moments and so the same affine mass matrix.
    const Mat3 R = Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()).toRotationMatrix();
    const TriMesh m = transformed(box(Vec3(0.3, 0.5, 0.9)), R, Vec3(0.4, -1.0, 2.0));
    const MassProperties mp = compute_mass_properties(m, 700.0, "box");
    const MassProperties back = mass_properties_from_inertia(mp.volume, mp.mass, mp.center_of_mass,
                                                             mp.inertia_about_com, "box");
    EXPECT_EQ(back.volume, mp.volume);
    EXPECT_LT((back.second_moment - mp.second_moment).norm(), 1e-12 * mp.second_moment.norm());
    EXPECT_LT((affine_mass_matrix(back) - affine_mass_matrix(mp)).norm(),
              1e-12 * affine_mass_matrix(mp).norm());
}

TEST(MassPropertiesFromInertia, KineticEnergyIsTheRigidBodys) {
    // 1/2 qdot^T M qdot = 1/2 m |v_c|^2 + 1/2 w^T I w for a rigid motion about the com.
    const double m = 3.0;
    const Vec3 c(0.1, -0.2, 0.3);
    Mat3 I;
    I << 0.2, 0.01, -0.02, 0.01, 0.3, 0.03, -0.02, 0.03, 0.25;
    const Mat12 M = affine_mass_matrix(mass_properties_from_inertia(1.0, m, c, I, "b"));
    const Vec3 v(0.5, -1.0, 2.0), w(0.3, 0.7, -0.4);
    Mat3 W;
    W << 0, -w.z(), w.y(), w.z(), 0, -w.x(), -w.y(), w.x(), 0;
    // A' = [w]x (A = I), p' = v - A' c.
    Vec12 qd;
    qd.head<3>() = v - W * c;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) qd[3 + 3 * i + j] = W(i, j);
    EXPECT_NEAR(0.5 * qd.dot(M * qd), 0.5 * m * v.squaredNorm() + 0.5 * w.dot(I * w), 1e-12);
}

TEST(MassPropertiesFromInertia, UnrealisableInertiaIsRefused) {
    EXPECT_EQ(inertia_problem(1.0, Mat3::Identity()), "");
    EXPECT_EQ(inertia_problem(1.0, Vec3(1, 1, 2).asDiagonal()), "");  // a flat disc's limit
    EXPECT_TRUE(contains_text(inertia_problem(0.0, Mat3::Identity()), "mass must be positive"));
    EXPECT_TRUE(contains_text(inertia_problem(1.0, Vec3(1, 1, 2.1).asDiagonal()),
                              "no body has this inertia: the principal moment 2.1"));
    EXPECT_TRUE(
        contains_text(inertia_problem(1.0, Vec3(1, 1, -1).asDiagonal()), "not positive definite"));
    Mat3 skew = Mat3::Identity();
    skew(0, 1) = 0.1;
    EXPECT_TRUE(contains_text(inertia_problem(1.0, skew), "not symmetric"));
    EXPECT_TRUE(throws_input_error(
        [] {
            mass_properties_from_inertia(1.0, 1.0, Vec3::Zero(), Vec3(1, 1, 3).asDiagonal(),
                                         "link 'a'");
        },
        "link 'a': no body has this inertia"));
}
