#include "concord/export/software_rasterizer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace concord {

SoftwareRasterizer::SoftwareRasterizer(int width, int height, const Camera& camera, int supersample)
    : width_(width), height_(height), ss_(supersample) {
    if (width < 1 || height < 1 || width > 16384 || height > 16384)
        throw std::invalid_argument("SoftwareRasterizer: image size must be 1..16384");
    if (supersample < 1 || supersample > 4)
        throw std::invalid_argument("SoftwareRasterizer: supersample must be 1..4");
    bw_ = width * ss_;
    bh_ = height * ss_;

    const Vec3 forward = (camera.target - camera.eye).normalized();
    Vec3 right = forward.cross(camera.up);
    if (right.norm() < 1e-9) right = forward.unitOrthogonal();  // looking along up
    right.normalize();
    const Vec3 up = right.cross(forward);
    Eigen::Matrix4d view = Eigen::Matrix4d::Identity();
    view.block<1, 3>(0, 0) = right.transpose();
    view.block<1, 3>(1, 0) = up.transpose();
    view.block<1, 3>(2, 0) = -forward.transpose();
    view(0, 3) = -right.dot(camera.eye);
    view(1, 3) = -up.dot(camera.eye);
    view(2, 3) = forward.dot(camera.eye);

    // Near and far planes bracket the target generously; depth precision only matters
    // relative to the scene's size.
    const double distance = (camera.target - camera.eye).norm();
    near_ = distance / 100.0;
    const double far = distance * 100.0;
    const double f = 1.0 / std::tan(camera.fov_deg * M_PI / 360.0);
    const double aspect = static_cast<double>(width) / height;
    Eigen::Matrix4d proj = Eigen::Matrix4d::Zero();
    proj(0, 0) = f / aspect;
    proj(1, 1) = f;
    proj(2, 2) = (far + near_) / (near_ - far);
    proj(2, 3) = 2 * far * near_ / (near_ - far);
    proj(3, 2) = -1;
    view_ = view;
    view_projection_ = proj * view;
    right_ = right;
    up_ = up;
    forward_ = forward;
    proj_f_ = f;
    proj_a_ = proj(2, 2);
    proj_b_ = proj(2, 3);

    // Key light from above-right-behind the camera, as in the viewer.
    light_ = (up * 1.0 + right * 0.5 - forward * 0.8).normalized();
    colour_.assign(static_cast<std::size_t>(bw_) * bh_ * 3, 0.0f);
    depth_.assign(static_cast<std::size_t>(bw_) * bh_, std::numeric_limits<float>::infinity());
}

void SoftwareRasterizer::clear(const Rgb& background) {
    for (std::size_t i = 0; i < depth_.size(); ++i) {
        colour_[3 * i] = background[0];
        colour_[3 * i + 1] = background[1];
        colour_[3 * i + 2] = background[2];
    }
    std::fill(depth_.begin(), depth_.end(), std::numeric_limits<float>::infinity());
}

Eigen::Vector4d SoftwareRasterizer::to_clip(const Vec3& p) const {
    return view_projection_ * Eigen::Vector4d(p.x(), p.y(), p.z(), 1.0);
}

void SoftwareRasterizer::draw_triangle(const Vec3& a, const Vec3& b, const Vec3& c,
                                       const Rgb& colour, double opacity) {
    const Vec3 n = (b - a).cross(c - a);
    const double len = n.norm();
    if (!(len > 0) || !std::isfinite(len)) return;  // degenerate or non-finite
    const double lambert = std::abs(n.dot(light_)) / len;
    const double intensity = 0.35 + 0.65 * lambert;
    const Rgb shaded = {static_cast<float>(colour[0] * intensity),
                        static_cast<float>(colour[1] * intensity),
                        static_cast<float>(colour[2] * intensity)};

    // Clip against the near plane (w > near in this projection, i.e. z_clip > -w): the only
    // plane that matters, since the others are handled by the screen bounding box.
    Eigen::Vector4d in[3] = {to_clip(a), to_clip(b), to_clip(c)};
    Eigen::Vector4d poly[4];
    int count = 0;
    auto inside = [](const Eigen::Vector4d& v) { return v.z() + v.w() > 0; };
    for (int i = 0; i < 3; ++i) {
        const Eigen::Vector4d& p = in[i];
        const Eigen::Vector4d& q = in[(i + 1) % 3];
        const bool pin = inside(p), qin = inside(q);
        if (pin) poly[count++] = p;
        if (pin != qin) {
            const double t = (p.z() + p.w()) / ((p.z() + p.w()) - (q.z() + q.w()));
            poly[count++] = p + t * (q - p);
        }
    }
    if (count < 3) return;
    Eigen::Vector4d tri[3] = {poly[0], poly[1], poly[2]};
    raster(tri, shaded, opacity);
    if (count == 4) {
        Eigen::Vector4d tri2[3] = {poly[0], poly[2], poly[3]};
        raster(tri2, shaded, opacity);
    }
}

void SoftwareRasterizer::raster(const Eigen::Vector4d clip[3], const Rgb& shaded, double opacity) {
    double sx[3], sy[3], sz[3];
    for (int i = 0; i < 3; ++i) {
        const double w = clip[i].w();
        if (!(w > 0)) return;
        sx[i] = (clip[i].x() / w * 0.5 + 0.5) * bw_;
        sy[i] = (0.5 - clip[i].y() / w * 0.5) * bh_;  // image rows go down
        sz[i] = clip[i].z() / w;
    }
    double area = (sx[1] - sx[0]) * (sy[2] - sy[0]) - (sx[2] - sx[0]) * (sy[1] - sy[0]);
    if (std::abs(area) < 1e-12) return;
    const int x0 = std::max(0, static_cast<int>(std::floor(std::min({sx[0], sx[1], sx[2]}))));
    const int x1 = std::min(bw_ - 1, static_cast<int>(std::ceil(std::max({sx[0], sx[1], sx[2]}))));
    const int y0 = std::max(0, static_cast<int>(std::floor(std::min({sy[0], sy[1], sy[2]}))));
    const int y1 = std::min(bh_ - 1, static_cast<int>(std::ceil(std::max({sy[0], sy[1], sy[2]}))));
    if (x0 > x1 || y0 > y1) return;
    const double inv_area = 1.0 / area;
    const bool blend = opacity < 1.0;
    const float alpha = static_cast<float>(std::clamp(opacity, 0.0, 1.0));
    bool any = false;
    for (int y = y0; y <= y1; ++y) {
        const double py = y + 0.5;
        for (int x = x0; x <= x1; ++x) {
            const double px = x + 0.5;
            // Barycentric weights from edge functions; the sign of the area accepts both
            // windings, since bodies are drawn without back-face culling.
            const double w0 =
                ((sx[1] - px) * (sy[2] - py) - (sx[2] - px) * (sy[1] - py)) * inv_area;
            const double w1 =
                ((sx[2] - px) * (sy[0] - py) - (sx[0] - px) * (sy[2] - py)) * inv_area;
            const double w2 = 1.0 - w0 - w1;
            if (w0 < 0 || w1 < 0 || w2 < 0) continue;
            const double z = w0 * sz[0] + w1 * sz[1] + w2 * sz[2];
            if (z < -1.0 || z > 1.0) continue;
            const std::size_t i = static_cast<std::size_t>(y) * bw_ + x;
            if (static_cast<float>(z) >= depth_[i]) continue;
            any = true;
            float* c = &colour_[3 * i];
            if (blend) {
                for (int k = 0; k < 3; ++k) c[k] = c[k] * (1 - alpha) + shaded[k] * alpha;
            } else {
                depth_[i] = static_cast<float>(z);
                c[0] = shaded[0];
                c[1] = shaded[1];
                c[2] = shaded[2];
            }
        }
    }
    drawn_ += any;
}

void SoftwareRasterizer::draw_sphere(const Vec3& centre, double radius, const Rgb& colour) {
    if (!(radius > 0) || !centre.allFinite()) return;
    const Eigen::Vector4d v = view_ * Eigen::Vector4d(centre.x(), centre.y(), centre.z(), 1.0);
    const double depth = -v.z();  // distance along the view direction
    if (!(depth - radius > near_)) return;
    // Screen centre and radius in buffer samples (the projection of the centre; a sphere's
    // outline is a little wider off-axis, which does not matter at particle sizes).
    const double cx =
        (proj_f_ * v.x() / (static_cast<double>(bw_) / bh_) / depth * 0.5 + 0.5) * bw_;
    const double cy = (0.5 - proj_f_ * v.y() / depth * 0.5) * bh_;
    const double rs = proj_f_ * radius / depth * 0.5 * bh_;
    const int x0 = std::max(0, static_cast<int>(std::floor(cx - rs)));
    const int x1 = std::min(bw_ - 1, static_cast<int>(std::ceil(cx + rs)));
    const int y0 = std::max(0, static_cast<int>(std::floor(cy - rs)));
    const int y1 = std::min(bh_ - 1, static_cast<int>(std::ceil(cy + rs)));
    if (x0 > x1 || y0 > y1) return;
    const double inv_rs = 1.0 / std::max(rs, 1e-9);
    bool any = false;
    for (int y = y0; y <= y1; ++y) {
        const double dy = (y + 0.5 - cy) * inv_rs;
        for (int x = x0; x <= x1; ++x) {
            const double dx = (x + 0.5 - cx) * inv_rs;
            const double d2 = dx * dx + dy * dy;
            if (d2 > 1.0) continue;
            const double nz = std::sqrt(1.0 - d2);
            // The front surface point, nz * radius nearer than the centre.
            const double zv = -(depth - nz * radius);
            const float z = static_cast<float>((proj_a_ * zv + proj_b_) / -zv);
            const std::size_t i = static_cast<std::size_t>(y) * bw_ + x;
            if (z >= depth_[i]) continue;
            const Vec3 n = right_ * dx - up_ * dy - forward_ * nz;
            const double intensity = 0.35 + 0.65 * std::max(0.0, n.dot(light_));
            depth_[i] = z;
            float* c = &colour_[3 * i];
            for (int k = 0; k < 3; ++k) c[k] = static_cast<float>(colour[k] * intensity);
            any = true;
        }
    }
    drawn_spheres_ += any;
}

Image SoftwareRasterizer::resolve() const {
    Image image(width_, height_);
    const float norm = 1.0f / static_cast<float>(ss_ * ss_);
    for (int y = 0; y < height_; ++y) {
        for (int x = 0; x < width_; ++x) {
            float sum[3] = {0, 0, 0};
            for (int j = 0; j < ss_; ++j)
                for (int i = 0; i < ss_; ++i) {
                    const float* c =
                        &colour_[3 * (static_cast<std::size_t>(y * ss_ + j) * bw_ + x * ss_ + i)];
                    sum[0] += c[0];
                    sum[1] += c[1];
                    sum[2] += c[2];
                }
            std::uint8_t* out = image.pixel(x, y);
            for (int k = 0; k < 3; ++k)
                out[k] = static_cast<std::uint8_t>(
                    std::lround(std::clamp(sum[k] * norm, 0.0f, 1.0f) * 255.0f));
        }
    }
    return image;
}

}  // namespace concord
