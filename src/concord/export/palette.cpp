#include "concord/export/palette.hpp"

#include <algorithm>
#include <cmath>

namespace concord {

Rgb hsl_to_rgb(double h, double s, double l) {
    const double a = s * std::min(l, 1 - l);
    auto f = [&](double n) {
        const double k = std::fmod(n + h * 12, 12.0);
        return static_cast<float>(l - a * std::max(-1.0, std::min({k - 3, 9 - k, 1.0})));
    };
    return {f(0), f(8), f(4)};
}

Rgb body_colour(int i) {
    const double hue = std::fmod(i * 0.618033988749895, 1.0);
    return hsl_to_rgb(hue, 0.55, 0.55);
}

Rgb worker_colour(int w) {
    static constexpr std::array<Rgb, 10> kWorkers{{
        {0.12f, 0.47f, 0.71f},
        {1.0f, 0.50f, 0.05f},
        {0.17f, 0.63f, 0.17f},
        {0.58f, 0.40f, 0.74f},
        {0.55f, 0.34f, 0.29f},
        {0.89f, 0.47f, 0.76f},
        {0.50f, 0.50f, 0.50f},
        {0.74f, 0.74f, 0.13f},
        {0.09f, 0.75f, 0.81f},
        {0.68f, 0.78f, 0.91f},
    }};
    if (w < 0) return {0.3f, 0.3f, 0.3f};
    return kWorkers[static_cast<std::size_t>(w) % kWorkers.size()];
}

Rgb fluid_colour(double t) {
    static constexpr Rgb kWater = {0.16f, 0.42f, 0.80f}, kFoam = {0.82f, 0.91f, 1.0f};
    if (!(t > 0)) t = 0;  // also NaN
    t = std::min(1.0, t);
    Rgb c;
    for (int k = 0; k < 3; ++k) c[k] = static_cast<float>(kWater[k] * (1 - t) + kFoam[k] * t);
    return c;
}

Rgb ramp_colour(double t) {
    static constexpr std::array<Rgb, 5> kRamp{{
        {0.267f, 0.005f, 0.329f},
        {0.231f, 0.322f, 0.545f},
        {0.129f, 0.569f, 0.549f},
        {0.369f, 0.788f, 0.384f},
        {0.992f, 0.906f, 0.145f},
    }};
    if (!(t > 0)) t = 0;  // also NaN
    const double x = std::min(1.0, t) * (kRamp.size() - 1);
    const std::size_t i = std::min<std::size_t>(kRamp.size() - 2, static_cast<std::size_t>(x));
    const double f = x - static_cast<double>(i);
    Rgb c;
    for (int k = 0; k < 3; ++k)
        c[k] = static_cast<float>(kRamp[i][k] * (1 - f) + kRamp[i + 1][k] * f);
    return c;
}

}  // namespace concord
