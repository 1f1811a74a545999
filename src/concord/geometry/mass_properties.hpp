// Mass, centre of mass and second moments of a closed triangle mesh of uniform density.
#pragma once

#include <string>

#include "concord/geometry/mesh.hpp"
#include "concord/math/types.hpp"

namespace concord {

/// Mass properties of a uniform solid in its mesh coordinates X.
struct MassProperties {
    double volume = 0.0;
    double mass = 0.0;                      ///< density * volume
    Vec3 center_of_mass = Vec3::Zero();     ///< c = (1 / V) * integral of X dV
    Mat3 second_moment = Mat3::Zero();      ///< S = density * integral of X X^T dV, about the
                                            ///< origin of the mesh coordinates (not the com)
    Mat3 inertia_about_com = Mat3::Zero();  ///< I = tr(Sc) Id - Sc, Sc = S - m c c^T
};

/// Exact integrals over the solid bounded by the mesh (divergence theorem: each face spans a
/// signed tetrahedron with a reference point, whose moments of order 0, 1 and 2 are closed
/// form), so the only error is rounding. The reference point is the bounding-box centre, which
/// keeps digits for meshes far from their origin.
///
/// Throws InputError "NAME: ..." for a density that is not positive and finite, and for meshes
/// that are open, non-manifold, inconsistently oriented, inside out or enclose no volume (see
/// require_closed_oriented).
MassProperties compute_mass_properties(const TriMesh& mesh, double density,
                                       const std::string& name);

/// Mass matrix of an affine body, M = integral of density J^T J dV, for the 12 coordinates
/// q = [p (3), A row-major (9)] of the map x(X) = p + A X. J(X) is the 3 x 12 matrix with
/// J[i][i] = 1 and J[i][3 + 3 i + j] = X_j, so the kinetic energy is 1/2 qdot^T M qdot. With
/// m, c and S from `mp` (S about the mesh origin):
///   M[p_i, p_k]     = m delta_ik
///   M[p_i, A_kl]    = m c_l delta_ik
///   M[A_ij, A_kl]   = delta_ik S_jl
/// i.e. q^T M q = m |p|^2 + 2 m p . (A c) + tr(A S A^T) = integral of density |p + A X|^2 dV.
/// M is symmetric positive definite for any solid with positive volume.
Mat12 affine_mass_matrix(const MassProperties& mp);

/// Empty when (mass, inertia about the centre of mass) can belong to a rigid body; otherwise
/// why not: mass not positive and finite, a non-finite or asymmetric tensor (relative 1e-9),
/// a principal moment not positive, or one larger than the sum of the other two (relative 1e-9:
/// no distribution of mass has it).
std::string inertia_problem(double mass, const Mat3& inertia);

/// The mass properties of a body whose mass, centre of mass (mesh coordinates) and inertia
/// about it are given (a URDF <inertial>), keeping `volume` from its surface:
/// S = m c c^T + Sc with Sc = tr(I)/2 Id - I. Throws InputError "NAME: ..." when
/// inertia_problem finds one.
MassProperties mass_properties_from_inertia(double volume, double mass, const Vec3& center_of_mass,
                                            const Mat3& inertia, const std::string& name);

}  // namespace concord
