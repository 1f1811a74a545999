// Colours shared with `concord render` (src/concord/export/colour_modes.cpp); docs/viewer.md
// gives the formulas so that pictures from both match.

/** HSL (all in [0, 1]) to RGB in [0, 1]. */
export function hslToRgb(h, s, l) {
  const a = s * Math.min(l, 1 - l);
  const f = (n) => {
    const k = (n + h * 12) % 12;
    return l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
  };
  return [f(0), f(8), f(4)];
}

/** Body i: hues spaced by the golden ratio, so neighbours in body order differ clearly. */
export function bodyColour(i) {
  const hue = (i * 0.618033988749895) % 1;
  return hslToRgb(hue, 0.55, 0.55);
}

/** Ten distinct worker colours (red is left out: partition planes are red). */
const WORKER_COLOURS = [
  [0.12, 0.47, 0.71], [1.0, 0.50, 0.05], [0.17, 0.63, 0.17], [0.58, 0.40, 0.74],
  [0.55, 0.34, 0.29], [0.89, 0.47, 0.76], [0.50, 0.50, 0.50], [0.74, 0.74, 0.13],
  [0.09, 0.75, 0.81], [0.68, 0.78, 0.91],
];
export const NO_WORKER_COLOUR = [0.3, 0.3, 0.3];

export function workerColour(w) {
  if (!Number.isInteger(w) || w < 0) return NO_WORKER_COLOUR;
  return WORKER_COLOURS[w % WORKER_COLOURS.length];
}

/** Fluid particles: water blue at t = 0 to foam white at t = 1 (t a speed fraction, clamped). */
export function fluidColour(t) {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0));
  const water = [0.16, 0.42, 0.80], foam = [0.82, 0.91, 1.0];
  return [0, 1, 2].map((c) => water[c] * (1 - x) + foam[c] * x);
}

/** Five stops of the viridis colour map, interpolated linearly. */
const RAMP = [
  [0.267, 0.005, 0.329], [0.231, 0.322, 0.545], [0.129, 0.569, 0.549],
  [0.369, 0.788, 0.384], [0.992, 0.906, 0.145],
];

/** t in [0, 1] (clamped) to RGB. */
export function rampColour(t) {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (RAMP.length - 1);
  const i = Math.min(RAMP.length - 2, Math.floor(x));
  const f = x - i;
  return [0, 1, 2].map((c) => RAMP[i][c] * (1 - f) + RAMP[i + 1][c] * f);
}

/** CSS gradient of the ramp, for the legend. */
export function rampCss() {
  const stops = RAMP.map((c, i) =>
    `rgb(${c.map((v) => Math.round(v * 255)).join(',')}) ${(100 * i) / (RAMP.length - 1)}%`);
  return `linear-gradient(to right, ${stops.join(', ')})`;
}
