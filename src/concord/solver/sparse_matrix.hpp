// The sparse matrix type of Newton systems (column-major, both triangles stored).
#pragma once

#include <Eigen/SparseCore>

namespace concord {

using SparseMatrix = Eigen::SparseMatrix<double>;

}  // namespace concord
