#include "concord/export/polar_trs.hpp"

#include <Eigen/SVD>
#include <algorithm>

namespace concord {

TRS trs_from_affine(const AffineMap& map) {
    Eigen::JacobiSVD<Mat3> svd(map.A, Eigen::ComputeFullU | Eigen::ComputeFullV);
    Mat3 R = svd.matrixU() * svd.matrixV().transpose();
    if (R.determinant() < 0) R = -R;  // in 3D, -R of a reflection is a rotation
    const Mat3 S = R.transpose() * map.A;
    TRS trs;
    trs.translation = map.p;
    trs.rotation = Eigen::Quaterniond(R).normalized();
    trs.scale = S.diagonal();
    return trs;
}

double trs_error(const TRS& trs, const AffineMap& map, const TriMesh& mesh) {
    return trs_error(trs, map, mesh.vertices);
}

double trs_error(const TRS& trs, const AffineMap& map, const Vertices& local) {
    const Mat3 L = trs.linear();
    double worst = 0.0;
    for (Eigen::Index v = 0; v < local.rows(); ++v) {
        const Vec3 X = local.row(v).transpose();
        const Vec3 d = (trs.translation + L * X) - map.apply(X);
        worst = std::max(worst, d.norm());
    }
    return worst;
}

}  // namespace concord
