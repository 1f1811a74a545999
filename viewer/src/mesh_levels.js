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
 * A page measures until the comparisons of all its meshes together reach this many
 * (samples × triangles; about half a second of JavaScript), then trusts the estimates: a run where
 * every body has its own mesh would otherwise spend seconds here.
 */
const TOTAL_MEASURE_BUDGET = 5e7;
/**
 * Safety factor on the simplifier's estimate when it is not measured: on UV spheres of 60 to
 * 1,000 triangles and a lumpy sphere its estimate was up to 2.2× below the measured distance
 * (tests/viewer/test_viewer_modules.mjs checks the factor on them).
 */
const ESTIMATE_FACTOR = 3;

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

/** Points on the triangles of `indices`: a corner, two edge midpoints and the centroid of each. */
function surfaceSamples(p, indices) {
  const out = new Float64Array(4 * indices.length);
  for (let t = 0, o = 0; t < indices.length; t += 3, o += 12) {
    const a = 3 * indices[t], b = 3 * indices[t + 1], c = 3 * indices[t + 2];
    for (let k = 0; k < 3; ++k) {
      out[o + k] = p[a + k];
      out[o + 3 + k] = 0.5 * (p[a + k] + p[b + k]);
      out[o + 6 + k] = 0.5 * (p[a + k] + p[c + k]);
      out[o + 9 + k] = (p[a + k] + p[b + k] + p[c + k]) / 3;
    }
  }
  return out;
}

/**
 * Largest distance from the samples of surface `from` to surface `to` (both index the same
 * vertices). First each sample gets an upper bound of its distance from the `to` triangles that
 * touch a corner of its own triangle; then the samples are searched in full in decreasing order
 * of that bound, which stops as soon as the bound is no more than the largest distance found
 * (no later sample can exceed it). Typically a few full searches instead of one per sample.
 */
function oneSidedDistance(p, from, to) {
  const s = surfaceSamples(p, from);
  const count = s.length / 3;
  const touching = new Int32Array(p.length / 3).fill(-1);  // vertex -> a `to` triangle using it
  for (let t = 0; t < to.length; t += 3) for (let k = 0; k < 3; ++k) touching[to[t + k]] = t;
  const bound = new Float64Array(count);
  for (let i = 0; i < count; ++i) {
    const tri = 3 * Math.floor(i / 4);  // four samples per `from` triangle
    let best = Infinity;
    for (let k = 0; k < 3; ++k) {
      const t = touching[from[tri + k]];
      if (t >= 0) best = Math.min(best, pointTriangleDistance(s[3 * i], s[3 * i + 1], s[3 * i + 2], p, to[t], to[t + 1], to[t + 2]));
    }
    bound[i] = best;
  }
  const order = Array.from({ length: count }, (_, i) => i).sort((x, y) => bound[y] - bound[x]);
  let worst = 0;
  for (const i of order) {
    if (bound[i] <= worst) break;
    let best = bound[i];
    for (let t = 0; t < to.length && best > worst; t += 3) {
      best = Math.min(best, pointTriangleDistance(s[3 * i], s[3 * i + 1], s[3 * i + 2], p, to[t], to[t + 1], to[t + 2]));
    }
    worst = Math.max(worst, best);
  }
  return worst;
}

/** Samples × triangles of measuredDeviation (four samples per triangle, both ways). */
function comparisonCost(fine, coarse) {
  return (8 * fine.length * coarse.length) / 9;
}

/**
 * Two-sided distance between two triangle sets over the same vertices (a sampled Hausdorff
 * distance: corners, edge midpoints and centroids of each side's triangles), or null when it
 * would take more than MEASURE_BUDGET point-triangle tests.
 */
export function measuredDeviation(positions, fine, coarse, budget = MEASURE_BUDGET) {
  if (comparisonCost(fine, coarse) > Math.min(budget, MEASURE_BUDGET)) return null;
  return Math.max(oneSidedDistance(positions, fine, coarse), oneSidedDistance(positions, coarse, fine));
}

/**
 * The levels of a mesh ({positions: Float32Array, indices: Uint32Array}): level 0 is the mesh
 * itself (error 0), each further one has at most half the triangles of the previous one and
 * `error` bounds the distance between its surface and the original's, in the mesh's units.
 * Stops when the simplifier cannot halve the count any more or below MIN_TRIANGLES.
 * `budget.left` (if given) is the number of samples × triangles that may still be measured; it
 * is decreased by what is measured here.
 */
export function buildLevels(mesh, budget = { left: Infinity }) {
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
    const measured = measuredDeviation(positions, indices, coarse, budget.left);
    if (measured !== null) budget.left -= comparisonCost(indices, coarse);
    const error = measured === null ? relative * scale * ESTIMATE_FACTOR : Math.max(measured, relative * scale);
    levels.push({ indices: coarse, error: Math.max(error, levels[levels.length - 1].error) });
  }
  return levels;
}

/** A measuring budget shared by the buildLevels calls of one page (see TOTAL_MEASURE_BUDGET). */
export function pageMeasureBudget() {
  return { left: TOTAL_MEASURE_BUDGET };
}
