#!/usr/bin/env node
// Writes a synthetic Concord output directory (docs/cli.md "Output directory") for viewer
// tests and benchmarks: N spheres on a grid that fall and spin above a ground plane. Optional
// distributed-run fields (docs/viewer.md) and a deliberately broken frame line can be added.
//
//   node make_synthetic_output.mjs DIR [--bodies N] [--triangles T] [--frames F]
//        [--distinct-meshes] [--distributed] [--bad-line K]
//
// --triangles is per body (about; a UV sphere is used). --distinct-meshes gives every body its
// own slightly different mesh, the worst case for instancing. --distributed adds, from frame 1
// on (frame 0 of a distributed run has default stats, as `concord run --workers` writes it), the
// distributed-run stats of docs/distributed.md (admm_iterations, t_sync, t_parallel, workers,
// per_worker, planes, overlap_width, owners) and the optional stats.body_contacts.
// --bad-line K writes garbage as line K (1-based) of frames.jsonl.
import { mkdirSync, rmSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const dir = args[0];
if (!dir || dir.startsWith('--')) {
  console.error('usage: make_synthetic_output.mjs DIR [--bodies N] [--triangles T] [--frames F] ' +
    '[--distinct-meshes] [--distributed] [--bad-line K]');
  process.exit(2);
}
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i < 0 ? dflt : Number(args[i + 1]);
};
const bodies = opt('--bodies', 8);
const triangles = opt('--triangles', 100);
const frames = opt('--frames', 20);
const badLine = opt('--bad-line', 0);
const distinct = args.includes('--distinct-meshes');
const distributed = args.includes('--distributed');

// A UV sphere with `seg` segments and `rings` rings has 2 * seg * (rings - 1) triangles.
const rings = Math.max(3, Math.round(Math.sqrt(triangles / 3.3)));
const seg = Math.max(3, Math.round(triangles / (2 * (rings - 1))));
function sphereObj(radius) {
  const v = [], f = [];
  v.push([0, radius, 0]);
  for (let r = 1; r < rings; ++r) {
    const phi = (Math.PI * r) / rings;
    for (let s = 0; s < seg; ++s) {
      const th = (2 * Math.PI * s) / seg;
      v.push([radius * Math.sin(phi) * Math.cos(th), radius * Math.cos(phi), radius * Math.sin(phi) * Math.sin(th)]);
    }
  }
  v.push([0, -radius, 0]);
  const ring = (r, s) => 2 + (r - 1) * seg + (s % seg);  // 1-based OBJ index
  for (let s = 0; s < seg; ++s) f.push([1, ring(1, s + 1), ring(1, s)]);
  for (let r = 1; r + 1 < rings; ++r) {
    for (let s = 0; s < seg; ++s) {
      f.push([ring(r, s), ring(r, s + 1), ring(r + 1, s + 1)]);
      f.push([ring(r, s), ring(r + 1, s + 1), ring(r + 1, s)]);
    }
  }
  const last = v.length;
  for (let s = 0; s < seg; ++s) f.push([last, ring(rings - 1, s), ring(rings - 1, s + 1)]);
  return v.map((p) => `v ${p.map((x) => +x.toFixed(6)).join(' ')}`).join('\n') + '\n' +
    f.map((t) => `f ${t.join(' ')}`).join('\n') + '\n';
}

rmSync(dir, { recursive: true, force: true });
mkdirSync(join(dir, 'meshes'), { recursive: true });
const side = Math.ceil(Math.cbrt(bodies));
const spacing = 0.3;
const names = [];
const shared = sphereObj(0.1);
for (let b = 0; b < bodies; ++b) {
  const name = `ball_${b}`;
  names.push(name);
  writeFileSync(join(dir, 'meshes', `${name}.obj`), distinct ? sphereObj(0.1 * (1 + b * 1e-4)) : shared);
}
const dt = 0.02;
writeFileSync(join(dir, 'scene.json'), JSON.stringify({
  name: 'synthetic', time_step: dt, frames, gravity: [0, -9.81, 0],
  planes: [{ point: [0, 0, 0], normal: [0, 1, 0] }],
  bodies: names.map((name) => ({ name, shape: { sphere: { radius: 0.1 } } })),
}, null, 2));
writeFileSync(join(dir, 'bodies.json'), JSON.stringify(
  names.map((name) => ({ name, mesh: `meshes/${name}.obj`, motion: 'dynamic' })), null, 2));

const fd = openSync(join(dir, 'frames.jsonl'), 'w');
const mid = ((side - 1) * spacing) / 2;
for (let k = 0; k < frames; ++k) {
  const t = k * dt;
  if (k + 1 === badLine) { writeSync(fd, '{"frame": ' + k + ', "time": oops\n'); continue; }
  const q = [];
  const workers = [], contacts = [];
  for (let b = 0; b < bodies; ++b) {
    const i = b % side, j = Math.floor(b / side) % side, l = Math.floor(b / (side * side));
    const y0 = 0.2 + l * spacing;
    const y = Math.max(0.1, y0 + 1.0 - 0.5 * 9.81 * t * t * 0.2);
    const a = t * (1 + (b % 5));  // spin about y
    const c = Math.cos(a), s = Math.sin(a);
    q.push([i * spacing - mid, y, j * spacing - mid, c, 0, s, 0, 1, 0, -s, 0, c]);
    workers.push(i * spacing - mid < 0 ? 0 : 1);
    contacts.push(y <= 0.1 ? 1 + (b % 3) : 0);
  }
  const stats = {
    newton_iterations: 3 + (k % 4), converged: true, contacts: contacts.filter((c) => c > 0).length,
    candidates: 2 * bodies, min_distance: 1e-4, t_coll: 0.001 * (1 + (k % 3)), t_solve: 0.002,
    t_frame: 0.004 + 0.001 * (k % 3),
  };
  if (distributed && k > 0) {
    const perWorker = [0, 1].map((w) => ({
      bodies: workers.filter((x) => x === w).length, shared: 0, owned: workers.filter((x) => x === w).length,
      owned_mass: 1, newton_iterations: 3, contacts: 0, t_compute: 0.001, t_sync: 0.0005, load: 1,
    }));
    Object.assign(stats, {
      admm_iterations: 5 + (k % 7), t_sync: 0.0005, t_parallel: 0.003, workers: 2, per_worker: perWorker,
      planes: [[0.01 * Math.sin(t)], [], []], overlap_width: 0.1, owners: workers, body_contacts: contacts,
    });
  }
  const num = (x) => +x.toFixed(9);
  writeSync(fd, JSON.stringify({ frame: k, time: num(t), q: q.map((r) => r.map(num)), stats }) + '\n');
}
closeSync(fd);
console.log(`synthetic output: ${dir}: ${bodies} bodies x ${2 * seg * (rings - 1)} triangles, ${frames} frames`);
