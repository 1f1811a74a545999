#include "concord/geometry/mass_properties.hpp"

#include <cmath>
#include <sstream>
#include <string>

#include <Eigen/Eigenvalues>

#include "concord/geometry/mesh_validation.hpp"
#include "concord/math/error.hpp"

namespace concord {

MassProperties compute_mass_properties(const TriMesh& mesh, double density,
                                       const std::string& name) {
    if (!(density > 0.0) || !std::isfinite(density)) {
        std::ostringstream s;
        s << name << ": density must be positive and finite, got " << density;
        throw InputError(s.str());
    }
    require_closed_oriented(mesh, name);

    // With Y = X - r and a face (a, b, c) in Y, the tetrahedron (0, a, b, c) of signed volume
    // D / 6, D = a . (b x c), has
    //   integral of Y dV     = D / 24 (a + b + c)
    //   integral of Y Y^T dV = D / 120 (a a^T + b b^T + c c^T + s s^T),  s = a + b + c.
    // Summed over a closed outward mesh the tetrahedra outside the solid cancel.
    const Vec3 r = mesh.bounds().center();
    double six_volume = 0.0;
    Vec3 first_24 = Vec3::Zero();
    Mat3 second_120 = Mat3::Zero();
    for (int f = 0; f < mesh.num_faces(); ++f) {
        const Vec3 a = mesh.vertices.row(mesh.faces(f, 0)).transpose() - r;
        const Vec3 b = mesh.vertices.row(mesh.faces(f, 1)).transpose() - r;
        const Vec3 c = mesh.vertices.row(mesh.faces(f, 2)).transpose() - r;
        const double d = a.dot(b.cross(c));
        const Vec3 s = a + b + c;
        six_volume += d;
        first_24 += d * s;
        second_120 +=
            d * (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose());
    }
    const double volume = six_volume / 6.0;
    const Vec3 first = first_24 / 24.0;      // integral of Y dV
    const Mat3 second = second_120 / 120.0;  // integral of Y Y^T dV

    MassProperties mp;
    mp.volume = volume;
    mp.mass = density * volume;
    const Vec3 com_from_r = first / volume;
    mp.center_of_mass = r + com_from_r;
    // Central moments straight from the Y integrals (no round trip through the origin).
    Mat3 central = density * (second - volume * com_from_r * com_from_r.transpose());
    central = 0.5 * (central + central.transpose());
    // Back to the mesh origin: integral of X X^T = integral of (Y + r)(Y + r)^T.
    Mat3 about_origin = density * (second + first * r.transpose() + r * first.transpose() +
                                   volume * r * r.transpose());
    mp.second_moment = 0.5 * (about_origin + about_origin.transpose());
    mp.inertia_about_com = central.trace() * Mat3::Identity() - central;
    return mp;
}

Mat12 affine_mass_matrix(const MassProperties& mp) {
    Mat12 M = Mat12::Zero();
    for (int i = 0; i < 3; ++i) {
        M(i, i) = mp.mass;
        for (int j = 0; j < 3; ++j) {
            M(i, 3 + 3 * i + j) = M(3 + 3 * i + j, i) = mp.mass * mp.center_of_mass[j];
        }
        M.block<3, 3>(3 + 3 * i, 3 + 3 * i) = mp.second_moment;
    }
    return M;
}

std::string inertia_problem(double mass, const Mat3& I) {
    if (!(mass > 0.0) || !std::isfinite(mass)) return "the mass must be positive and finite";
    if (!I.allFinite()) return "the inertia tensor has a non-finite entry";
    const double scale = I.cwiseAbs().maxCoeff();
    if ((I - I.transpose()).cwiseAbs().maxCoeff() > 1e-9 * scale)
        return "the inertia tensor is not symmetric";
    const Eigen::SelfAdjointEigenSolver<Mat3> eig(0.5 * (I + I.transpose()));
    const Vec3 m = eig.eigenvalues();  // ascending
    std::ostringstream s;
    s.precision(6);
    if (!(m[0] > 0.0)) {
        s << "the inertia tensor is not positive definite (principal moments " << m[0] << ", "
          << m[1] << ", " << m[2] << " kg m^2)";
        return s.str();
    }
    // The largest moment is the one that can exceed the sum of the other two.
    if (m[2] - (m[0] + m[1]) > 1e-9 * m.sum()) {
        s << "no body has this inertia: the principal moment " << m[2]
          << " kg m^2 exceeds the sum of the other two (" << m[0] << " + " << m[1] << ")";
        return s.str();
    }
    return {};
}

MassProperties mass_properties_from_inertia(double volume, double mass, const Vec3& com,
                                            const Mat3& inertia, const std::string& name) {
    if (const std::string problem = inertia_problem(mass, inertia); !problem.empty())
        throw InputError(name + ": " + problem);
    MassProperties mp;
    mp.volume = volume;
    mp.mass = mass;
    mp.center_of_mass = com;
    const Mat3 I = 0.5 * (inertia + inertia.transpose());
    mp.inertia_about_com = I;
    const Mat3 Sc = 0.5 * I.trace() * Mat3::Identity() - I;
    mp.second_moment = Sc + mass * com * com.transpose();
    return mp;
}

}  // namespace concord
