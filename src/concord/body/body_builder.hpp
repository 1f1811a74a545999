// Builds affine bodies (mesh, mass, stiffness, initial state) from their scene description.
#pragma once

#include "concord/body/affine_body.hpp"
#include "concord/scene/scene_spec.hpp"

namespace concord {

/// The body's surface in local coordinates X, from a primitive generator or a mesh file.
TriMesh build_shape_mesh(const ShapeSpec& shape, const std::string& body_name);

/// Mesh, mass properties, affine mass matrix, orthogonality stiffness (kappa = Young's
/// modulus, see docs/affine-bodies.md) and initial state q = [position, R]. Throws InputError
/// naming the body for an open or inverted mesh or an invalid material. `same_shape`, when
/// given, is a body built from a spec with an equal shape and density (the bodies of an array):
/// its mesh, mass properties and bounding radius are taken over instead of built and checked
/// again, since they would come out the same.
AffineBody build_body(const BodySpec& spec, const AffineBody* same_shape = nullptr);

/// d q / d t of a body moving with centre-of-mass velocity v and angular velocity w (world
/// frame, about the centre of mass): A' = [w]x A and p' = v - A' c (c the local centre of mass).
Vec12 affine_velocity(const Vec12& q, const Vec3& local_com, const Vec3& v, const Vec3& w);

/// Cross-product matrix [w]x.
Mat3 skew(const Vec3& w);

}  // namespace concord
