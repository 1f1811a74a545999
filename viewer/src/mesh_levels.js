// Coarser versions ("levels of detail") of a triangle mesh, each with a bound on how far its
// surface strays from the original's. The viewer draws a coarse level for a body only while
// frames are animated and only when that distance, projected to the screen, stays under a pixel
// (body_scene.js): software renderers such as SwiftShader pay per triangle, pixels or not.
//
// Levels are made by meshoptimizer's quadric-error simplifier (the copy that three.js ships in
// its addons, so nothing else is fetched): it only removes vertices, so a level's indices point
// into the original vertex array and all levels share one vertex buffer.
import { MeshoptSimplifier } from 'three/addons/libs/meshopt_simplifier.module.js';

/** Resolves when the simplifier (WebAssembly) is ready; buildLevels needs it. */
export const simplifierReady = MeshoptSimplifier.ready;

/** Each level has at most this fraction of the triangles of the one before it. */
const REDUCTION = 0.5;
/** No level below this many triangles: beyond it the picture changes faster than it saves. */
const MIN_TRIANGLES = 8;
/** Larger comparisons than this (samples × triangles) trust the simplifier's own estimate. */
const MEASURE_BUDGET = 4e6;
/**
 * Safety factor on the simplifier's estimate when it is not measured: on a 100-triangle UV
 * sphere its estimate was up to 1.35× below the measured distance (tests/viewer).
 */
const ESTIMATE_FACTOR = 1.5;

/** Distance from point (px, py, pz) to triangle (a, b, c) of `p` (Ericson, Real-Time Collision Detection 5.1.5). */
export function pointTriangleDistance(px, py, pz, p, a, b, c) {
  const ax = p[3 * a], ay = p[3 * a + 1], az = p[3 * a + 2];
  const abx = p[3 * b] - ax, aby = p[3 * b + 1] - ay, abz = p[3 * b + 2] - az;
  const acx = p[3 * c] - ax, acy = p[3 * c + 1] - ay, acz = p[3 * c + 2] - az;
  const apx = px - ax, apy = py - ay, apz = pz - az;
  const d1 = abx * apx + aby * apy + abz * apz, d2 = acx * apx + acy * apy + acz * apz;
  let s = 0, t = 0;  // closest point a + s ab + t ac
  const d3 = d1 - (abx * abx + aby * aby + abz * abz), d4 = d2 - (acx * abx + acy * aby + acz * abz);
  const d5 = d1 - (abx * acx + aby * acy + abz * acz), d6 = d2 - (acx * acx + acy * acy + acz * acz);
  const va = d3 * d6 - d5 * d4, vb = d5 * d2 - d1 * d6, vc = d1 * d4 - d3 * d2;
  if (d1 <= 0 && d2 <= 0) { /* vertex a */ } else if (d3 >= 0 && d4 <= d3) { s = 1; } else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    s = d1 / (d1 - d3);
  } else if (d6 >= 0 && d5 <= d6) { t = 1; } else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    t = d2 / (d2 - d6);
  } else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
    t = (d4 - d3) / (d4 - d3 + (d5 - d6));
    s = 1 - t;
  } else {
    const den = 1 / (va + vb + vc);
    s = vb * den;
    t = vc * den;
  }
  const dx = apx - s * abx - t * acx, dy = apy - s * aby - t * acy, dz = apz - s * abz - t * acz;
  return Math.sqrt(dx * dx + dy * dy + dz * dz);
}

/** Points on the triangles of `indices`: their corners, edge midpoints and centroids. */
function surfaceSamples(p, indices) {
  const out = [];
  const at = (i, k) => p[3 * i + k];
  for (let t = 0; t < indices.length; t += 3) {
    const [a, b, c] = [indices[t], indices[t + 1], indices[t + 2]];
    for (const [wa, wb, wc] of [[1, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [1 / 3, 1 / 3, 1 / 3]]) {
      for (let k = 0; k < 3; ++k) out.push(wa * at(a, k) + wb * at(b, k) + wc * at(c, k));
    }
  }
  return out;
}

/** Largest distance from the samples of surface `from` to surface `to`. */
function oneSidedDistance(p, from, to) {
  const s = surfaceSamples(p, from);
  let worst = 0;
  for (let i = 0; i < s.length; i += 3) {
    let best = Infinity;
    for (let t = 0; t < to.length && best > worst; t += 3) {
      best = Math.min(best, pointTriangleDistance(s[i], s[i + 1], s[i + 2], p, to[t], to[t + 1], to[t + 2]));
    }
    worst = Math.max(worst, best);
  }
  return worst;
}

/**
 * Two-sided distance between two triangle sets over the same vertices (a sampled Hausdorff
 * distance: corners, edge midpoints and centroids of each side's triangles), or null when it
 * would take more than MEASURE_BUDGET point-triangle tests.
 */
export function measuredDeviation(positions, fine, coarse) {
  const cost = (4 * fine.length * coarse.length) / 9 + (4 * coarse.length * fine.length) / 9;
  if (cost > MEASURE_BUDGET) return null;
  return Math.max(oneSidedDistance(positions, fine, coarse), oneSidedDistance(positions, coarse, fine));
}

/**
 * The levels of a mesh ({positions: Float32Array, indices: Uint32Array}): level 0 is the mesh
 * itself (error 0), each further one has at most half the triangles of the previous one and
 * `error` bounds the distance between its surface and the original's, in the mesh's units.
 * Stops when the simplifier cannot halve the count any more or below MIN_TRIANGLES.
 */
export function buildLevels(mesh) {
  const { positions, indices } = mesh;
  const levels = [{ indices, error: 0 }];
  const scale = MeshoptSimplifier.getScale(positions, 3);
  for (;;) {
    const previous = levels[levels.length - 1].indices.length / 3;
    const target = Math.floor(previous * REDUCTION);
    if (target < MIN_TRIANGLES) break;
    // Always simplified from the original (not the previous level), so errors do not add up.
    const [coarse, relative] = MeshoptSimplifier.simplify(indices, positions, 3, 3 * target, 1, []);
    if (coarse.length === 0 || coarse.length / 3 > previous * (REDUCTION + 0.25)) break;
    const measured = measuredDeviation(positions, indices, coarse);
    const error = measured === null ? relative * scale * ESTIMATE_FACTOR : Math.max(measured, relative * scale);
    levels.push({ indices: coarse, error: Math.max(error, levels[levels.length - 1].error) });
  }
  return levels;
}

/**
 * buildLevels for every mesh of `meshes`, in slices of about 8 ms between which the page keeps
 * drawing (levels are only needed once frames are animated, so the first picture does not wait).
 */
export async function buildAllLevels(meshes) {
  await simplifierReady;
  const levels = [];
  let slice = performance.now();
  for (const mesh of meshes) {
    levels.push(buildLevels(mesh));
    if (performance.now() - slice > 8) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      slice = performance.now();
    }
  }
  return levels;
}
