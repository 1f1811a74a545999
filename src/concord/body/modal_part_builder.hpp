// Turns a modal basis into the modal part of one body: mode values at the body's mesh
// vertices, the reduced mass matrix over the basis's mass quadrature, modal stiffness and
// damping (docs/elastic.md). Bodies sharing a basis each get their own samples.
#pragma once

#include <string>
#include <vector>

#include "concord/body/modal_part.hpp"
#include "concord/elastic/modal_basis.hpp"
#include "concord/geometry/mesh.hpp"

namespace concord {

/// `origin`: body-local position of the basis's origin (the basis is evaluated at X - origin).
/// `initial`: eta at t = 0 (empty: zeros). Throws InputError (prefixed by `context`) when the
/// body's unknowns would have a singular mass matrix.
ModalPart make_modal_part(const ModalBasis& basis, const std::string& basis_name,
                          const TriMesh& mesh, const Vec3& origin,
                          const std::vector<double>& initial, const std::string& context);

/// Total mass the basis's quadrature gives the body (the p block of M_z).
double modal_part_mass(const ModalPart& part);

}  // namespace concord
