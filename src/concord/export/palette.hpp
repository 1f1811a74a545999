// The colours of bodies, workers and scalar ramps; the same formulas as the web viewer
// (viewer/src/palette.js), so that pictures from `concord render` match what the viewer shows.
#pragma once

#include <array>

namespace concord {

using Rgb = std::array<float, 3>;  ///< each in [0, 1]

/// HSL (each in [0, 1]) to RGB.
Rgb hsl_to_rgb(double h, double s, double l);

/// Body i: hue i * 0.618034 (mod 1), saturation 0.55, lightness 0.55.
Rgb body_colour(int i);

/// Worker w: one of ten fixed colours (w mod 10); grey for w < 0 (no worker).
Rgb worker_colour(int w);

/// Fluid particles: water blue at t = 0 to foam white at t = 1 (t is a speed fraction; clamped,
/// NaN counts as 0): blue (0.16, 0.42, 0.80) mixed linearly with (0.82, 0.91, 1.0).
Rgb fluid_colour(double t);

/// Five-stop viridis approximation at t in [0, 1] (clamped; NaN counts as 0).
Rgb ramp_colour(double t);

}  // namespace concord
