// A small z-buffered triangle rasterizer for pictures without a GPU: flat-shaded triangles,
// optional alpha blending for overlays, and supersampling for smooth edges.
#pragma once

#include <vector>

#include "concord/export/camera.hpp"
#include "concord/export/image.hpp"
#include "concord/export/palette.hpp"

namespace concord {

class SoftwareRasterizer {
  public:
    /// Renders into a (width * supersample) x (height * supersample) buffer that resolve()
    /// averages down. Throws std::invalid_argument for a size outside 1..16384 or supersample
    /// outside 1..4.
    SoftwareRasterizer(int width, int height, const Camera& camera, int supersample = 2);

    void clear(const Rgb& background);

    /// A world-space triangle in `colour`, lit by a fixed key light relative to the camera plus
    /// ambient light, both sides shaded alike. With opacity < 1 it is blended over what is
    /// already drawn and does not hide what is drawn later: draw such overlays last.
    void draw_triangle(const Vec3& a, const Vec3& b, const Vec3& c, const Rgb& colour,
                       double opacity = 1.0);

    /// A sphere drawn as a shaded disc facing the camera (a point sprite with per-sample depth
    /// on the sphere's front surface, so that spheres and triangles hide each other correctly):
    /// how fluid particles are drawn. Spheres behind the near plane or off screen are skipped.
    void draw_sphere(const Vec3& centre, double radius, const Rgb& colour);

    /// The picture at the requested size.
    Image resolve() const;

    /// Triangles that produced at least one sample (for tests and statistics).
    long triangles_drawn() const { return drawn_; }
    /// Spheres that produced at least one sample.
    long spheres_drawn() const { return drawn_spheres_; }

  private:
    /// Clip-space position (x, y, z, w) of a world point.
    Eigen::Vector4d to_clip(const Vec3& p) const;
    void raster(const Eigen::Vector4d clip[3], const Rgb& shaded, double opacity);

    int width_, height_, ss_, bw_, bh_;
    Eigen::Matrix4d view_;
    Eigen::Matrix4d view_projection_;
    Vec3 right_, up_, forward_;                          ///< the camera's frame (world directions)
    double proj_f_ = 1.0, proj_a_ = 0.0, proj_b_ = 0.0;  ///< projection: focal, z scale, z offset
    Vec3 light_;
    double near_;
    std::vector<float> colour_;  ///< bw * bh * 3, linear 0..1
    std::vector<float> depth_;   ///< bw * bh, NDC z; smaller is nearer
    long drawn_ = 0;
    long drawn_spheres_ = 0;
};

}  // namespace concord
