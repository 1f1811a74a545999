// Fixed-size linear-algebra types used throughout Concord.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <cstdint>

namespace concord {

using Scalar = double;
using Vec2 = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;
using Vec6 = Eigen::Matrix<double, 6, 1>;
using Vec9 = Eigen::Matrix<double, 9, 1>;
using Vec12 = Eigen::Matrix<double, 12, 1>;
using Mat2 = Eigen::Matrix2d;
using Mat3 = Eigen::Matrix3d;
using Mat6 = Eigen::Matrix<double, 6, 6>;
using Mat9 = Eigen::Matrix<double, 9, 9>;
using Mat12 = Eigen::Matrix<double, 12, 12>;
using VecX = Eigen::VectorXd;
using MatX = Eigen::MatrixXd;

template <int N>
using Vec = Eigen::Matrix<double, N, 1>;
template <int R, int C = R>
using Mat = Eigen::Matrix<double, R, C>;

/// Vertex positions of a mesh, one row per vertex.
using Vertices = Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor>;
/// Triangle vertex indices, one row per face, counter-clockwise seen from outside.
using Faces = Eigen::Matrix<int, Eigen::Dynamic, 3, Eigen::RowMajor>;
/// Unique undirected edges, one row per edge, smaller index first.
using Edges = Eigen::Matrix<int, Eigen::Dynamic, 2, Eigen::RowMajor>;

}  // namespace concord
