// The scene's "fluids": blocks of SPH fluid (issue 16; docs/fluids.md). All blocks of a scene
// form one fluid, so they share its particle radius and material.
#pragma once

#include <string>

#include "concord/math/types.hpp"

namespace concord {

struct FluidBlockSpec {
    std::string name;
    /// Exactly one region: a box [block_min, block_max], or the inside of a closed mesh file.
    bool has_block = true;
    Vec3 block_min = Vec3::Zero(), block_max = Vec3::Zero();
    std::string mesh_file;           ///< as written in the scene file
    std::string resolved_mesh_file;  ///< absolute path
    Vec3 mesh_scale = Vec3::Ones();
    double particle_radius = 0.01;    ///< r, m: particles laid 2 r apart, kernel support 4 r
    double rest_density = 1000.0;     ///< kg/m^3
    double viscosity = 1e-3;          ///< kinematic, m^2/s
    double density_tolerance = 1e-3;  ///< average compression that ends a pressure solve
    Vec3 velocity = Vec3::Zero();     ///< initial velocity of every particle, m/s

    bool operator==(const FluidBlockSpec&) const = default;
};

}  // namespace concord
