// Unit tests of the viewer's data modules (no browser needed), run with `node --test`:
// frames.jsonl parsing, the OBJ reader, the colour formulas and the adaptive resolution steps.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const src = join(dirname(fileURLToPath(import.meta.url)), '../../viewer/src');
const load = (name) => import(pathToFileURL(join(src, name)).href);
const { parseFrames, rowOffset } = await load('frames.js');
const { parseObj } = await load('obj_parser.js');
const { bodyColour, rampColour, workerColour } = await load('palette.js');
const { AdaptiveResolution } = await load('adaptive_resolution.js');

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
