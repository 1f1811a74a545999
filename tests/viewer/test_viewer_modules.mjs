// Unit tests of the viewer's data modules (no browser needed), run with `node --test`:
// frames.jsonl parsing, the OBJ reader, the colour formulas, the adaptive resolution steps, the
// levels of detail, the choice of what to draw and the deformation of reduced elastic bodies.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const src = join(dirname(fileURLToPath(import.meta.url)), '../../viewer/src');
const load = (name) => import(pathToFileURL(join(src, name)).href);
const { modalOffset, parseFrames, rowOffset } = await load('frames.js');
const { parseObj } = await load('obj_parser.js');
const { parseModes } = await load('output_loader.js');
const { bodyColour, fluidColour, rampColour, workerColour } = await load('palette.js');
const { fluidPath, parseNpy } = await load('fluid_points.js');
const { AdaptiveResolution } = await load('adaptive_resolution.js');
const { buildLevels, measuredDeviation, pointTriangleDistance, simplifierReady } = await load('mesh_levels.js');
const { BodyScene, largestStretch } = await load('body_scene.js');
// The same three.js module instance that the viewer's modules import as 'three'.
const THREE = await import(pathToFileURL(join(src, '../node_modules/three/build/three.module.js')).href);
await simplifierReady;

const row = (x) => [x, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1];
const line = (k, extra = {}) => JSON.stringify({ frame: k, time: k * 0.1, q: [row(k), row(-k)], stats: { contacts: k, ...extra } });

test('frames: rows are packed in body order, p then A', () => {
  const f = parseFrames([line(0), line(1), '', line(2)].join('\n') + '\n', 2);
  assert.equal(f.error, null);
  assert.equal(f.count, 3);
  assert.deepEqual(Array.from(f.times), [0, 0.1, 0.2]);
  assert.equal(f.q[rowOffset(f, 2, 1)], -2);
  assert.equal(f.q[rowOffset(f, 2, 0) + 3], 1);  // A00
  assert.equal(f.stats[1].contacts, 1);
  assert.equal(f.workers, null);
  assert.equal(f.partitions[0], null);
});

test('frames: a broken line keeps the frames before it and names the line', () => {
  const f = parseFrames([line(0), line(1), '{"frame": 2, "time": oops', line(3)].join('\n'), 2);
  assert.equal(f.count, 2);
  assert.match(f.error, /^frames\.jsonl: line 3: not valid JSON/);
  for (const [text, message] of [
    [line(0) + '\n' + line(0), /line 2: "frame" must be an integer larger than 0/],
    [JSON.stringify({ frame: 0, time: 0, q: [row(0)], stats: {} }), /"q" must have 2 rows/],
    [JSON.stringify({ frame: 0, time: 0, q: [row(0), [1, 2]], stats: {} }), /q\[1\]: expected at least 12 numbers/],
    [JSON.stringify({ frame: 0, time: 0, q: [row(0), row(0)], stats: { owners: [0] } }), /stats\.owners: expected 2 integers/],
    [JSON.stringify({ frame: 0, time: 0, q: [row(0), row(0)], stats: { owners: [0, 0.5] } }), /stats\.owners: expected 2 integers/],
    [JSON.stringify({ frame: 0, time: 0, q: [row(0), row(0)], stats: { planes: [[0], 'x'] } }), /stats\.planes: expected up to 3 arrays/],
    [JSON.stringify({ frame: 0, time: 0, q: [row(0), row(0)], stats: { planes: [[0]], overlap_width: -1 } }), /stats\.overlap_width/],
  ]) {
    assert.match(parseFrames(text, 2).error, message);
  }
});

test('frames: the partial last line of a killed run is skipped without an error', () => {
  const f = parseFrames([line(0), line(1), line(2).slice(0, 40)].join('\n'), 2);
  assert.equal(f.count, 2);
  assert.equal(f.error, null);
  assert.equal(f.partialTail, true);
  // A broken line followed by a newline is still an error.
  const g = parseFrames([line(0), line(1).slice(0, 40), ''].join('\n'), 2);
  assert.match(g.error, /line 2: not valid JSON/);
  assert.equal(parseFrames(line(0) + '\n', 2).partialTail, false);
});

test('frames: the distributed-run fields are read (owners, planes, overlap_width)', () => {
  // As `concord run --workers 2` writes them: frame 0 has default stats, later frames the rest.
  const dist = (owners, planes) => ({
    admm_iterations: 7, t_sync: 0.001, t_parallel: 0.002, workers: 2, owners, planes, overlap_width: 0.2,
    per_worker: [{ bodies: 1 }, { bodies: 1 }], body_contacts: [3, 0],
  });
  const f = parseFrames([line(0), line(1, dist([1, -1], [[0.5], [], [1, 2]])), line(2, dist([0, -1], [[0.25], [], []]))].join('\n'), 2);
  assert.equal(f.error, null);
  assert.equal(f.workerCount, 2);  // stats.workers is the worker count, not per body
  assert.deepEqual(Array.from(f.workers), [1, -1, 1, -1, 0, -1]);  // frame 0 shows frame 1's owners
  assert.deepEqual(Array.from(f.bodyContacts.subarray(2)), [3, 0, 3, 0]);
  assert.deepEqual(f.partitions[1].planes, [
    { axis: 0, position: 0.5, overlap: 0.2 }, { axis: 2, position: 1, overlap: 0.2 }, { axis: 2, position: 2, overlap: 0.2 }]);
  assert.equal(f.partitions[0], f.partitions[1]);  // and frame 1's planes
  assert.deepEqual(f.partitions[2].planes, [{ axis: 0, position: 0.25, overlap: 0.2 }]);
  assert.equal(f.stats[1].admm_iterations, 7);
  assert.equal(f.stats[1].t_parallel, 0.002);
  assert.equal(f.stats[1].owners, undefined);  // moved into the typed array
  // A later frame without the fields keeps the last earlier frame's.
  const g = parseFrames([line(0, dist([1, 0], [[0]])), line(1)].join('\n'), 2);
  assert.deepEqual(Array.from(g.workers), [1, 0, 1, 0]);
  assert.equal(g.partitions[1], g.partitions[0]);
  // A single-machine run has none of it.
  const h = parseFrames([line(0), line(1)].join('\n'), 2);
  assert.equal(h.workers, null);
  assert.equal(h.workerCount, 0);
  assert.deepEqual(h.partitions, [null, null]);
});

test('frames: an elastic body\'s row carries its modal coordinates after the 12 affine numbers', () => {
  // Bodies: affine, elastic with 2 modes, affine with an over-long row (accepted as before), elastic with 1 mode.
  const rows = (k) => [row(k), [...row(2 * k), 0.5 * k, -k], [...row(3 * k), 99], [...row(4 * k), 7 * k]];
  const text = [0, 1, 2].map((k) => JSON.stringify({ frame: k, time: k, q: rows(k), stats: {} })).join('\n');
  const f = parseFrames(text, 4, 'frames.jsonl', [12, 14, 12, 13]);
  assert.equal(f.error, null);
  assert.deepEqual(Array.from(f.modalCount), [0, 2, 0, 1]);
  assert.equal(f.modalPerFrame, 3);
  assert.deepEqual(Array.from(f.modal.subarray(modalOffset(f, 2, 1), modalOffset(f, 2, 1) + 2)), [1, -2]);
  assert.equal(f.modal[modalOffset(f, 2, 3)], 14);
  assert.equal(f.q[rowOffset(f, 2, 3)], 8);  // p.x of body 3: the affine numbers are unchanged
  assert.equal(f.q[rowOffset(f, 2, 3) + 11], 1);
  // Without dofs (an older caller): the extra numbers are ignored, as before.
  assert.equal(parseFrames(text, 4).modalPerFrame, 0);
  // An elastic row must have exactly 12 + m numbers.
  const short = JSON.stringify({ frame: 0, time: 0, q: [row(0), row(0), row(0), [...row(0), 1]], stats: {} });
  assert.match(parseFrames(short, 4, 'frames.jsonl', [12, 14, 12, 13]).error, /q\[1\]: expected 14 numbers/);
});

test('modes: the file concord run writes is checked against the body and its mesh', () => {
  const json = { num_modes: 2, num_vertices: 3, values: Array.from({ length: 18 }, (_, i) => i / 10) };
  const m = parseModes(json, 'meshes/b.modes.json', 2, 3);
  assert.equal(m.count, 2);
  assert.ok(Math.abs(m.values[17] - 1.7) < 1e-6);
  assert.throws(() => parseModes(json, 'b.modes.json', 3, 3), /b\.modes\.json: num_modes 2 does not match the body's 15 coordinates/);
  assert.throws(() => parseModes(json, 'b.modes.json', 2, 4), /num_vertices 3 does not match its mesh's 4 vertices/);
  assert.throws(() => parseModes({ ...json, values: [1] }, 'b.modes.json', 2, 3), /expected 18 values, got 1/);
  assert.throws(() => parseModes({ ...json, values: [...json.values.slice(1), 'x'] }, 'b.modes.json', 2, 3), /value 17 is not a finite/);
  assert.throws(() => parseModes([], 'b.modes.json', 2, 3), /expected \{"num_modes"/);
});

test('obj: polygons become fans, negative and slashed indices work', () => {
  const m = parseObj('# quad\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//1 4//1\nf -4 -3 -2\n', 'q.obj');
  assert.deepEqual(Array.from(m.indices), [0, 1, 2, 0, 2, 3, 0, 1, 2]);
  assert.equal(m.positions.length, 12);
  assert.throws(() => parseObj('v 0 0 0\nf 1 2 3\n', 'a.obj'), /a\.obj: line 2: vertex index 2 outside 1\.\.1/);
  assert.throws(() => parseObj('v 0 0 x\n', 'b.obj'), /b\.obj: line 1: not a finite coordinate/);
  assert.throws(() => parseObj('v 0 0 0\n', 'c.obj'), /c\.obj: no faces/);
});

test('palette: the formulas concord render uses', () => {
  assert.deepEqual(bodyColour(0).map((x) => +x.toFixed(4)), [0.7975, 0.3025, 0.3025]);
  assert.deepEqual(rampColour(0.5), [0.129, 0.569, 0.549]);
  assert.deepEqual(rampColour(Number.NaN), rampColour(0));
  assert.deepEqual(workerColour(11), workerColour(1));
  assert.deepEqual(workerColour(-1), [0.3, 0.3, 0.3]);
  // fluid_colour in src/concord/export/palette.cpp: blue to foam white.
  assert.deepEqual(fluidColour(0), [0.16, 0.42, 0.80]);
  assert.deepEqual(fluidColour(0.5).map((x) => +x.toFixed(6)), [0.49, 0.665, 0.9]);
  assert.deepEqual(fluidColour(Number.NaN), fluidColour(0));
  assert.deepEqual(fluidColour(4), [0.82, 0.91, 1.0]);
});

/** A .npy file as src/concord/io/npy_file.cpp writes it (header padded to 64 bytes). */
function npyBuffer(rows, cols, values, { descr = '<f4', fortran = 'False', version = 1 } = {}) {
  let header = `{'descr': '${descr}', 'fortran_order': ${fortran}, 'shape': (${rows}, ${cols}), }`;
  const prefix = version === 1 ? 10 : 12;
  while ((prefix + header.length + 1) % 64 !== 0) header += ' ';
  header += '\n';
  const out = new Uint8Array(prefix + header.length + 4 * values.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]);
  const view = new DataView(out.buffer);
  if (version === 1) view.setUint16(8, header.length, true); else view.setUint32(8, header.length, true);
  for (let i = 0; i < header.length; ++i) out[prefix + i] = header.charCodeAt(i);
  values.forEach((v, i) => view.setFloat32(prefix + header.length + 4 * i, v, true));
  return out.buffer;
}

test('fluid: .npy files are read as the engine writes them, anything else is a one-line error', () => {
  const values = [1, 2, 3, 0.5, 100, -1, -2, -3, 1.5, 0];
  for (const version of [1, 2]) {
    const m = parseNpy(npyBuffer(2, 5, values, { version }), 'fluid/000000.npy');
    assert.equal(m.rows, 2);
    assert.equal(m.cols, 5);
    assert.deepEqual(Array.from(m.data), values);
  }
  assert.equal(parseNpy(npyBuffer(0, 5, []), 'e.npy').rows, 0);
  assert.throws(() => parseNpy(new Uint8Array([1, 2, 3]).buffer, 'a.npy'), /a\.npy: not a \.npy file/);
  assert.throws(() => parseNpy(npyBuffer(2, 5, values, { descr: '<f8' }), 'b.npy'), /b\.npy: expected little-endian float32/);
  assert.throws(() => parseNpy(npyBuffer(2, 5, values, { fortran: 'True' }), 'c.npy'), /c\.npy: expected C order/);
  assert.throws(() => parseNpy(npyBuffer(3, 5, values), 'd.npy'), /d\.npy: expected 60 data bytes, got 40/);
  const truncated = npyBuffer(2, 5, values).slice(0, 30);
  assert.throws(() => parseNpy(truncated, 'f.npy'), /f\.npy: truncated header/);
  assert.equal(fluidPath(7), 'fluid/000007.npy');
  assert.equal(fluidPath(1234567), 'fluid/1234567.npy');
});

test('adaptive resolution: steps down when slow, back up when fast, full size when still', () => {
  const applied = [];
  const r = new AdaptiveResolution((f) => applied.push(f));
  let t = 0;
  for (let i = 0; i < 10; ++i) r.animated((t += 60));  // 16 fps
  assert.equal(r.fraction, 0.85);
  for (let i = 0; i < 40; ++i) r.animated((t += 60));
  assert.equal(r.fraction, 0.5);  // never below the floor
  for (let i = 0; i < 10; ++i) r.animated((t += 10));  // 100 fps
  assert.equal(r.fraction, 0.6);
  assert.equal(r.still(), true);
  assert.equal(r.fraction, 1);
  assert.equal(r.still(), false);
  r.resume();
  assert.equal(r.fraction, 0.6);  // starts again where it settled
  const fixed = new AdaptiveResolution(() => assert.fail('must not change'), false);
  for (let i = 0; i < 20; ++i) fixed.animated(i * 100);
  assert.equal(fixed.fraction, 1);
});

/** UV sphere of radius r: `seg` segments, `rings` rings (2 seg (rings - 1) triangles), outward CCW. */
function uvSphere(r, seg = 10, rings = 6) {
  const p = [0, r, 0], idx = [];
  for (let i = 1; i < rings; ++i) {
    const phi = (Math.PI * i) / rings;
    for (let s = 0; s < seg; ++s) {
      const th = (2 * Math.PI * s) / seg;
      p.push(r * Math.sin(phi) * Math.cos(th), r * Math.cos(phi), r * Math.sin(phi) * Math.sin(th));
    }
  }
  p.push(0, -r, 0);
  const ring = (i, s) => 1 + (i - 1) * seg + (s % seg);
  const last = p.length / 3 - 1;
  for (let s = 0; s < seg; ++s) idx.push(0, ring(1, s + 1), ring(1, s));
  for (let i = 1; i + 1 < rings; ++i) {
    for (let s = 0; s < seg; ++s) idx.push(ring(i, s), ring(i, s + 1), ring(i + 1, s + 1), ring(i, s), ring(i + 1, s + 1), ring(i + 1, s));
  }
  for (let s = 0; s < seg; ++s) idx.push(last, ring(rings - 1, s), ring(rings - 1, s + 1));
  return { positions: new Float32Array(p), indices: new Uint32Array(idx) };
}

/** Dense two-sided distance (64 points per triangle), independent of mesh_levels' sampling. */
function denseDeviation(positions, a, b) {
  const side = (from, to) => {
    let worst = 0;
    for (let t = 0; t < from.length; t += 3) {
      for (let i = 0; i <= 7; ++i) {
        for (let j = 0; i + j <= 7; ++j) {
          const u = i / 7, v = j / 7, w = 1 - u - v;
          const pt = [0, 1, 2].map((k) => w * positions[3 * from[t] + k] + u * positions[3 * from[t + 1] + k] + v * positions[3 * from[t + 2] + k]);
          let best = Infinity;
          for (let s = 0; s < to.length; s += 3) best = Math.min(best, pointTriangleDistance(...pt, positions, to[s], to[s + 1], to[s + 2]));
          worst = Math.max(worst, best);
        }
      }
    }
    return worst;
  };
  return Math.max(side(a, b), side(b, a));
}

test('levels: point-triangle distance in the face, at an edge and at a corner', () => {
  const p = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]);
  assert.equal(pointTriangleDistance(0.2, 0.2, 3, p, 0, 1, 2), 3);        // above the face
  assert.ok(Math.abs(pointTriangleDistance(0.5, -2, 0, p, 0, 1, 2) - 2) < 1e-12);  // beside edge 0-1
  assert.ok(Math.abs(pointTriangleDistance(2, 0, 0, p, 0, 1, 2) - 1) < 1e-12);   // past corner 1
  assert.ok(Math.abs(pointTriangleDistance(1, 1, 0, p, 0, 1, 2) - Math.SQRT1_2) < 1e-12);  // beside the long edge
});

test('levels: each level halves the triangles and its error bounds the distance to the mesh', () => {
  const sphere = uvSphere(0.1);  // 100 triangles, as in the viewer benchmark
  const levels = buildLevels(sphere);
  assert.equal(levels[0].indices, sphere.indices);
  assert.equal(levels[0].error, 0);
  assert.ok(levels.length >= 3, `levels: ${levels.length}`);
  for (let l = 1; l < levels.length; ++l) {
    const n = levels[l].indices.length / 3, before = levels[l - 1].indices.length / 3;
    assert.ok(n <= before * 0.75 && n >= 8, `level ${l}: ${n} triangles after ${before}`);
    assert.ok(levels[l].error >= levels[l - 1].error);
    // The bound must hold against a denser measurement (5 % for sampling between the points).
    const dense = denseDeviation(sphere.positions, sphere.indices, levels[l].indices);
    assert.ok(dense <= levels[l].error * 1.05, `level ${l}: dense ${dense} > bound ${levels[l].error}`);
    // and not be wildly pessimistic either (it decides when a level is used).
    assert.ok(levels[l].error <= dense * 2, `level ${l}: bound ${levels[l].error} vs dense ${dense}`);
  }
  // Identical surfaces are 0 apart; the measurement is skipped above its budget.
  assert.ok(measuredDeviation(sphere.positions, sphere.indices, sphere.indices) < 1e-12);
  const big = uvSphere(1, 200, 100);
  assert.equal(measuredDeviation(big.positions, big.indices, big.indices), null);
});

test('levels: without a measurement, 3x the simplifier estimate still bounds the distance', () => {
  const lumpy = uvSphere(1, 16, 9);
  for (let i = 0; i < lumpy.positions.length; i += 3) {
    const k = 1 + 0.1 * Math.sin(12.9898 * i + 78.233 * (i % 7));  // deterministic lumps of +-10 %
    for (let j = 0; j < 3; ++j) lumpy.positions[i + j] *= k;
  }
  const meshes = [['sphere 60', uvSphere(1, 6, 6)], ['sphere 100', uvSphere(0.1)], ['sphere 400', uvSphere(1, 20, 11)],
    ['sphere 1000', uvSphere(1, 25, 21)], ['lumpy sphere', lumpy]];
  for (const [name, mesh] of meshes) {
    const estimated = buildLevels(mesh, { left: 0 });
    assert.ok(estimated.length >= 3, name);
    for (let l = 1; l < estimated.length; ++l) {
      const measured = measuredDeviation(mesh.positions, mesh.indices, estimated[l].indices, Infinity);
      assert.ok(measured <= estimated[l].error, `${name} level ${l}: measured ${measured} > estimate ${estimated[l].error}`);
    }
  }
});

test('levels: largest stretch of A is its largest singular value', () => {
  const close = (a, b) => Math.abs(a - b) < 1e-9 * Math.max(1, Math.abs(b));
  assert.ok(close(largestStretch([1, 0, 0, 0, 1, 0, 0, 0, 1]), 1));
  const c = Math.cos(0.7), s = Math.sin(0.7);
  assert.ok(close(largestStretch([c, -s, 0, s, c, 0, 0, 0, 1]), 1));
  assert.ok(close(largestStretch([0.5, 0, 0, 0, 2, 0, 0, 0, 1]), 2));
  assert.ok(close(largestStretch([1, 1, 0, 0, 1, 0, 0, 0, 1]), (1 + Math.sqrt(5)) / 2));  // shear
  assert.ok(close(largestStretch([0, 0, 0, 0, 0, 0, 0, 0, 0]), 0));
  // A general matrix against power iteration on AᵀA.
  const a = [0.3, -1.2, 0.4, 2.0, 0.1, -0.7, 0.5, 0.9, 1.1];
  let v = [1, 1, 1], lambda = 0;
  for (let it = 0; it < 200; ++it) {
    const av = [0, 1, 2].map((i) => a[3 * i] * v[0] + a[3 * i + 1] * v[1] + a[3 * i + 2] * v[2]);
    const w = [0, 1, 2].map((j) => a[j] * av[0] + a[3 + j] * av[1] + a[6 + j] * av[2]);
    lambda = Math.hypot(...w);
    v = w.map((x) => x / lambda);
  }
  assert.ok(close(largestStretch(a), Math.sqrt(lambda)));
});

/**
 * Triangles (as "i,j,k" keys) of a body's world-space mesh: those facing `eye`, and those seen
 * within `band` (sine of the angle between the triangle's plane and the direction to the eye)
 * of edge-on, which the page may leave to the GPU.
 */
function facingTriangles(positions, indices, row, eye, base, band = 0.05) {
  const world = (i) => [0, 1, 2].map((r) => row[r] + row[3 + 3 * r] * positions[3 * i] +
    row[4 + 3 * r] * positions[3 * i + 1] + row[5 + 3 * r] * positions[3 * i + 2]);
  const front = [], edgeOn = [];
  for (let k = 0; k < indices.length; k += 3) {
    const [v0, v1, v2] = [0, 1, 2].map((j) => world(indices[k + j]));
    const e = [0, 1, 2].map((r) => v1[r] - v0[r]), f = [0, 1, 2].map((r) => v2[r] - v0[r]);
    const n = [e[1] * f[2] - e[2] * f[1], e[2] * f[0] - e[0] * f[2], e[0] * f[1] - e[1] * f[0]];
    const toEye = [0, 1, 2].map((r) => eye[r] - v0[r]);
    const side = n[0] * toEye[0] + n[1] * toEye[1] + n[2] * toEye[2];
    const key = [indices[k] + base, indices[k + 1] + base, indices[k + 2] + base].join();
    if (side > 0) front.push(key);
    else if (-side <= band * Math.hypot(...n) * Math.hypot(...toEye)) edgeOn.push(key);
  }
  return { front, edgeOn };
}

/** Checks that `drawn` has every front triangle, and otherwise only nearly edge-on ones. */
// The first `count` triangles of the scene's draw list, each as "i,j,k".
function drawnKeys(scene, count) {
  const keys = [];
  for (let k = 0; k < 3 * count; k += 3) keys.push(Array.from(scene.drawIndices.subarray(k, k + 3)).join());
  return keys;
}

function assertFacing(drawn, bodies) {
  const front = bodies.flatMap((b) => b.front), edgeOn = new Set(bodies.flatMap((b) => b.edgeOn));
  const set = new Set(drawn);
  assert.equal(set.size, drawn.length, 'no triangle twice');
  for (const key of front) assert.ok(set.has(key), `front-facing triangle ${key} missing`);
  const frontSet = new Set(front);
  for (const key of drawn) assert.ok(frontSet.has(key) || edgeOn.has(key), `back-facing triangle ${key} drawn`);
  assert.ok(drawn.length <= front.length * 1.1, `${drawn.length} drawn for ${front.length} facing`);
}

test('draw list: bodies outside the view and back faces are left out, far bodies drawn coarser only when asked', () => {
  const sphere = uvSphere(0.1);
  const vertices = sphere.positions.length / 3;
  const q = (x, y, z, k = 1) => [x, y, z, k, 0, 0, 0, k, 0, 0, 0, k];
  // Body 0 near the camera, 1 far away, 2 behind it, 3 far but stretched 10x, 4 sheared and
  // turned, 5 mirrored (det A < 0: its winding flips on screen too).
  const rows = [q(0, 0, -1), q(0, 0, -60), q(0, 0, 5), q(0, 0, -60, 10),
    [0.3, 0.2, -2, 0.8, 0.6, 0.3, -0.6, 0.8, 0, 0.1, 0, 1.5], [-0.3, 0, -1.5, -1, 0, 0, 0, 1, 0, 0, 0, 1]];
  const lines = [JSON.stringify({ frame: 0, time: 0, q: rows, stats: {} })];
  const output = { frames: parseFrames(lines.join('\n'), 6), bodies: rows.map(() => ({})), meshes: [sphere], bodyMesh: new Int32Array(6) };
  const scene = new BodyScene(output);
  scene.applyFrame(0);
  const camera = new THREE.PerspectiveCamera(40, 1, 0.01, 1000);  // at the origin, looking down -z
  camera.updateMatrixWorld();
  // Full detail: exactly the triangles facing the camera, of the bodies in view.
  const full = scene.updateDrawList(camera, 500, 0);
  assert.equal(scene.coarse, false);
  assert.deepEqual(Array.from(scene.drawnLevel), [0, 0, 255, 0, 0, 0]);
  const expected = [0, 1, 3, 4, 5].map((b) => facingTriangles(sphere.positions, sphere.indices, rows[b], [0, 0, 0], b * vertices));
  const facing = expected.reduce((n, b) => n + b.front.length, 0);
  assert.ok(facing > 5 * 30 && facing < 5 * 70, `${facing} facing triangles`);
  assertFacing(drawnKeys(scene, full), expected);

  scene.setLevels([buildLevels(sphere)]);
  const levels = scene.meshLevels[0];
  assert.equal(scene.updateDrawList(camera, 500, 0), full);  // no tolerance: full detail
  const drawn = scene.updateDrawList(camera, 500, 1);
  assert.equal(scene.coarse, true);
  const [near, far, , stretched] = scene.drawnLevel;
  assert.equal(near, 0);
  assert.ok(far > 0);
  assert.ok(stretched < far, 'a stretched body counts its stretch');
  // The level chosen for the far body: its error, projected at the body's nearest point, is
  // under a pixel, and the next level's would not be.
  const perUnit = 500 / (2 * Math.tan(THREE.MathUtils.degToRad(20)));
  const nearest = 60 - 0.1;
  assert.ok((levels[far].error * perUnit) / nearest <= 1);
  if (far + 1 < levels.length) assert.ok((levels[far + 1].error * perUnit) / nearest > 1);
  // Each body's chosen level, facing triangles only.
  const coarseExpected = [0, 1, 3, 4, 5].map((b) =>
    facingTriangles(sphere.positions, levels[scene.drawnLevel[b]].indices, rows[b], [0, 0, 0], b * vertices));
  assertFacing(drawnKeys(scene, drawn), coarseExpected);
  // Back to full detail.
  assert.equal(scene.updateDrawList(camera, 500, 0), full);
  assert.equal(scene.coarse, false);
});

test('elastic bodies: drawn at X + Phi eta, only their range uploaded, culled and faced by their deformed shape', () => {
  const sphere = uvSphere(0.1);
  const n = sphere.positions.length / 3;
  // Body 1's two modes (vertex-major, value (3 v + i) 2 + k): mode 0 moves every vertex by
  // (0, 0, 1); mode 1 mirrors the sphere in x (-2 x) plus small deterministic bumps, which turns
  // every triangle's winding: seen along z, the rest shape's facing test would pick the wrong half.
  const values = new Float32Array(3 * n * 2);
  for (let v = 0; v < n; ++v) {
    for (let i = 0; i < 3; ++i) {
      values[(3 * v + i) * 2] = i === 2 ? 1 : 0;
      values[(3 * v + i) * 2 + 1] = (i === 0 ? -2 * sphere.positions[3 * v] : 0) + 0.01 * Math.sin(7.1 * v + 3.3 * i);
    }
  }
  const at = (x, y, z) => [x, y, z, 1, 0, 0, 0, 1, 0, 0, 0, 1];
  // Bodies 0 and 2 rigid (2 far away), body 1 elastic between them in the merged buffer.
  const frame = (k, elastic, eta) => JSON.stringify({ frame: k, time: k, q: [at(-0.3, 0, -1), [...elastic, ...eta], at(0.3, 0, -60)], stats: {} });
  const text = [frame(0, at(0, 0, -1), [0, 0]), frame(1, at(0, 0, -1), [0.05, 1]), frame(2, at(0, 0, -1), [8, 0]),
    frame(3, at(0, 0, -60), [0, 0])].join('\n');
  const frames = parseFrames(text, 3, 'frames.jsonl', [12, 14, 12]);
  assert.equal(frames.error, null);
  const modes = [null, { count: 2, values }, null];
  const scene = new BodyScene({ frames, bodies: [{}, {}, {}], meshes: [sphere], bodyMesh: new Int32Array(3), modes });
  const positions = scene.geometry.getAttribute('position');
  const expected = (eta) => sphere.positions.map((x, r) => x + values[2 * r] * eta[0] + values[2 * r + 1] * eta[1]);
  const local = (b) => positions.array.subarray(3 * b * n, 3 * (b + 1) * n);
  const close = (a, b, tol = 1e-6) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]) <= tol);

  const version = positions.version;
  scene.applyFrame(1);
  assert.ok(close(local(1), expected([0.05, 1])), 'body 1 at X + Phi eta');
  assert.deepEqual(Array.from(local(0)), Array.from(sphere.positions), 'rigid bodies untouched');
  assert.deepEqual(Array.from(local(2)), Array.from(sphere.positions));
  assert.deepEqual(positions.updateRanges, [{ start: 3 * n, count: 3 * n }], 'only the elastic range uploaded');
  assert.ok(positions.version > version, 'marked for upload');
  // World vertices as the GPU gets them: p + A (X + Phi eta).
  assert.ok(close(scene.drawnVertices(1), Array.from(expected([0.05, 1])).map((x, r) => x + (r % 3 === 2 ? -1 : 0)), 1e-5));
  // The centroid and the bounds follow the deformation.
  const world = Array.from(expected([0.05, 1])).map((x, r) => x + (r % 3 === 2 ? -1 : 0));
  const mean = [0, 1, 2].map((i) => world.filter((_, r) => r % 3 === i).reduce((a, b) => a + b, 0) / n);
  assert.ok(close(scene.centroid(1, 1, new THREE.Vector3()).toArray(), mean, 1e-5));
  const box = scene.bounds(1);
  for (let r = 0; r < world.length; r += 3) assert.ok(box.containsPoint(new THREE.Vector3(world[r], world[r + 1], world[r + 2])));

  // Facing: the mirrored body's front triangles are those of its deformed shape.
  const camera = new THREE.PerspectiveCamera(40, 1, 0.01, 1000);  // at the origin, looking down -z
  camera.updateMatrixWorld();
  const deformed = new Float32Array(expected([0.05, 1]));
  const facing = [facingTriangles(sphere.positions, sphere.indices, at(-0.3, 0, -1), [0, 0, 0], 0),
    facingTriangles(deformed, sphere.indices, at(0, 0, -1), [0, 0, 0], n),
    facingTriangles(sphere.positions, sphere.indices, at(0.3, 0, -60), [0, 0, 0], 2 * n)];
  const rest = facingTriangles(sphere.positions, sphere.indices, at(0, 0, -1), [0, 0, 0], n);
  assert.ok(facing[1].front.filter((k) => rest.front.includes(k)).length < facing[1].front.length / 4,
    'the deformation changes which triangles face the camera');
  assertFacing(drawnKeys(scene, scene.updateDrawList(camera, 500, 0)), facing);

  // Levels of detail: a far elastic body stays at full detail, a rigid one as far does not.
  scene.setLevels([buildLevels(sphere)]);
  scene.applyFrame(3);
  assert.ok(close(local(1), sphere.positions), 'eta = 0: back to the rest shape');
  scene.updateDrawList(camera, 500, 1);
  assert.equal(scene.drawnLevel[1], 0);
  assert.ok(scene.drawnLevel[2] > 0);
  // View test: mode 0 moves the body 8 along local z, behind the camera; the rest shape would be in view.
  scene.applyFrame(2);
  scene.updateDrawList(camera, 500, 0);
  assert.deepEqual(Array.from(scene.drawnLevel), [0, 255, 0]);
  assert.ok(scene.bounds(2).max.z > 6.9);
});

test('elastic bodies: a scene without them uploads no positions per frame', () => {
  const sphere = uvSphere(0.1);
  const frames = parseFrames(JSON.stringify({ frame: 0, time: 0, q: [row(0)], stats: {} }), 1);
  const scene = new BodyScene({ frames, bodies: [{}], meshes: [sphere], bodyMesh: new Int32Array(1) });
  const version = scene.positionAttribute.version;
  scene.applyFrame(0);
  assert.equal(scene.positionAttribute.version, version);
  assert.equal(scene.elastic.length, 0);
});
