#include "concord/body/modal_part_builder.hpp"

#include "concord/math/error.hpp"

namespace concord {

ModalPart make_modal_part(const ModalBasis& basis, const std::string& basis_name,
                          const TriMesh& mesh, const Vec3& origin,
                          const std::vector<double>& initial, const std::string& context) {
    ModalPart part;
    part.basis_name = basis_name;
    part.num_modes = basis.num_modes;
    Vertices at = mesh.vertices;
    at.rowwise() -= origin.transpose();
    auto phi = std::make_shared<MatX>(basis.sample(at));
    Vertices mass_points = basis.mass.points;
    mass_points.rowwise() += origin.transpose();
    try {
        part.reduced_mass = reduced_mass_matrix(mass_points, basis.mass.phi, basis.mass.mass);
    } catch (const InputError& e) {
        throw InputError(context + ": " + e.what());
    }
    part.modal_stiffness = basis.modal_stiffness;
    part.modal_damping = basis.modal_damping.size() > 0
                             ? basis.modal_damping
                             : MatX::Zero(basis.num_modes, basis.num_modes);
    part.eta_initial = VecX::Zero(basis.num_modes);
    for (std::size_t k = 0; k < initial.size() && k < static_cast<std::size_t>(basis.num_modes); ++k)
        part.eta_initial[static_cast<Eigen::Index>(k)] = initial[k];
    // Largest displacement of each mode over the surface; a floor keeps it a usable scale for
    // a mode that does not move the surface at all.
    part.mode_scale = VecX::Zero(basis.num_modes);
    for (Eigen::Index v = 0; v < mesh.vertices.rows(); ++v)
        for (int k = 0; k < basis.num_modes; ++k)
            part.mode_scale[k] = std::max(part.mode_scale[k], phi->block(3 * v, k, 3, 1).norm());
    for (int k = 0; k < basis.num_modes; ++k)
        if (!(part.mode_scale[k] > 0.0)) part.mode_scale[k] = 1.0;
    part.vertex_modes = std::move(phi);
    part.field = basis.field;
    part.field_origin = origin;
    return part;
}

double modal_part_mass(const ModalPart& part) { return part.reduced_mass(0, 0); }

}  // namespace concord
