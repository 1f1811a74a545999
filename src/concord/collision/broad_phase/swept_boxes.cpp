#include "concord/collision/broad_phase/swept_boxes.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cmath>
#include <limits>

namespace concord {

namespace {

// Grows the box and rounds it outward so that the padding survives floating-point rounding.
AABB padded(AABB box, double inflation) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    box.inflate(inflation);
    for (int k = 0; k < 3; ++k) {
        box.min[k] = std::nextafter(box.min[k], -inf);
        box.max[k] = std::nextafter(box.max[k], inf);
    }
    return box;
}

template <class Rows>
std::vector<AABB> element_boxes(const Rows& rows, const Vertices& x0, const Vertices& x1,
                                double inflation) {
    std::vector<AABB> boxes(static_cast<std::size_t>(rows.rows()));
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, rows.rows(), 4096),
                      [&](const tbb::blocked_range<Eigen::Index>& range) {
                          for (Eigen::Index i = range.begin(); i != range.end(); ++i) {
                              AABB box;
                              for (Eigen::Index k = 0; k < rows.cols(); ++k) {
                                  box.expand(Vec3(x0.row(rows(i, k))));
                                  box.expand(Vec3(x1.row(rows(i, k))));
                              }
                              boxes[static_cast<std::size_t>(i)] = padded(box, inflation);
                          }
                      });
    return boxes;
}

}  // namespace

AABB swept_vertex_box(const Vertices& x0, const Vertices& x1, int v, double inflation) {
    const Vec3 a = x0.row(v), b = x1.row(v);
    return padded(AABB(a.cwiseMin(b), a.cwiseMax(b)), inflation);
}

std::vector<AABB> swept_vertex_boxes(const Vertices& x0, const Vertices& x1, double inflation) {
    std::vector<AABB> boxes(static_cast<std::size_t>(x0.rows()));
    tbb::parallel_for(tbb::blocked_range<int>(0, static_cast<int>(x0.rows()), 4096),
                      [&](const tbb::blocked_range<int>& range) {
                          for (int v = range.begin(); v != range.end(); ++v)
                              boxes[static_cast<std::size_t>(v)] =
                                  swept_vertex_box(x0, x1, v, inflation);
                      });
    return boxes;
}

std::vector<AABB> swept_edge_boxes(const Edges& edges, const Vertices& x0, const Vertices& x1,
                                   double inflation) {
    return element_boxes(edges, x0, x1, inflation);
}

std::vector<AABB> swept_face_boxes(const Faces& faces, const Vertices& x0, const Vertices& x1,
                                   double inflation) {
    return element_boxes(faces, x0, x1, inflation);
}

}  // namespace concord
