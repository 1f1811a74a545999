#include "concord/collision/broad_phase/swept_boxes.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>

#include "concord/collision/broad_phase/outward_rounding.hpp"

namespace concord {

namespace {

constexpr Eigen::Index kGrain = 4096;

// Box of the rows `corners` of x0 and x1 (row-major V x 3 arrays), grown and rounded outward
// so that the padding survives the rounding of the subtraction and addition.
template <int kCorners>
AABB padded_box(const double* x0, const double* x1, const int* corners, double inflation) {
    AABB box;
    for (int k = 0; k < 3; ++k) {
        double lo = x0[3 * corners[0] + k], hi = lo;
        for (int c = 0; c < kCorners; ++c) {
            const double a = x0[3 * corners[c] + k], b = x1[3 * corners[c] + k];
            lo = std::min({lo, a, b});
            hi = std::max({hi, a, b});
        }
        box.min[k] = next_down(lo - inflation);
        box.max[k] = next_up(hi + inflation);
    }
    return box;
}

template <int kCorners, class Rows>
void element_boxes(const Rows& rows, const Vertices& x0, const Vertices& x1, double inflation,
                   std::vector<AABB>& boxes) {
    boxes.resize(static_cast<std::size_t>(rows.rows()));
    const int* indices = rows.data();
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, rows.rows(), kGrain),
                      [&](const tbb::blocked_range<Eigen::Index>& range) {
                          for (Eigen::Index i = range.begin(); i != range.end(); ++i)
                              boxes[static_cast<std::size_t>(i)] = padded_box<kCorners>(
                                  x0.data(), x1.data(), indices + kCorners * i, inflation);
                      });
}

}  // namespace

AABB swept_vertex_box(const Vertices& x0, const Vertices& x1, int v, double inflation) {
    return padded_box<1>(x0.data(), x1.data(), &v, inflation);
}

AABB swept_edge_box(const Edges& edges, const Vertices& x0, const Vertices& x1, int e,
                    double inflation) {
    return padded_box<2>(x0.data(), x1.data(), edges.data() + 2 * static_cast<Eigen::Index>(e),
                         inflation);
}

AABB swept_face_box(const Faces& faces, const Vertices& x0, const Vertices& x1, int f,
                    double inflation) {
    return padded_box<3>(x0.data(), x1.data(), faces.data() + 3 * static_cast<Eigen::Index>(f),
                         inflation);
}

void swept_vertex_boxes(const Vertices& x0, const Vertices& x1, double inflation,
                        std::vector<AABB>& boxes) {
    boxes.resize(static_cast<std::size_t>(x0.rows()));
    tbb::parallel_for(tbb::blocked_range<int>(0, static_cast<int>(x0.rows()), kGrain),
                      [&](const tbb::blocked_range<int>& range) {
                          for (int v = range.begin(); v != range.end(); ++v)
                              boxes[static_cast<std::size_t>(v)] =
                                  padded_box<1>(x0.data(), x1.data(), &v, inflation);
                      });
}

void swept_edge_boxes(const Edges& edges, const Vertices& x0, const Vertices& x1, double inflation,
                      std::vector<AABB>& boxes) {
    element_boxes<2>(edges, x0, x1, inflation, boxes);
}

void swept_face_boxes(const Faces& faces, const Vertices& x0, const Vertices& x1, double inflation,
                      std::vector<AABB>& boxes) {
    element_boxes<3>(faces, x0, x1, inflation, boxes);
}

std::vector<AABB> swept_vertex_boxes(const Vertices& x0, const Vertices& x1, double inflation) {
    std::vector<AABB> boxes;
    swept_vertex_boxes(x0, x1, inflation, boxes);
    return boxes;
}

std::vector<AABB> swept_edge_boxes(const Edges& edges, const Vertices& x0, const Vertices& x1,
                                   double inflation) {
    std::vector<AABB> boxes;
    swept_edge_boxes(edges, x0, x1, inflation, boxes);
    return boxes;
}

std::vector<AABB> swept_face_boxes(const Faces& faces, const Vertices& x0, const Vertices& x1,
                                   double inflation) {
    std::vector<AABB> boxes;
    swept_face_boxes(faces, x0, x1, inflation, boxes);
    return boxes;
}

}  // namespace concord
