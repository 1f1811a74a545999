#!/usr/bin/env node
// Frame rate of the web viewer in software-rendered headless chromium (docs/benchmarks.md,
// "Viewer"): writes a synthetic output directory, serves it with `concord view`, plays it and
// counts the frames drawn.
//
//   node tests/viewer/bench_viewer_fps.mjs --concord build/apps/concord/concord
//        [--bodies 1000] [--triangles 100] [--frames 100] [--width 1280] [--height 720]
//        [--seconds 5] [--distinct-meshes]
//
// Reports two rates: with the resolution held at full size (?adaptive=0) and as shipped, where
// the drawing buffer may drop to half resolution while playing (adaptive_resolution.js). Also
// the CPU time chromium spends per drawn frame, which does not depend on how busy the machine
// is, and the load average, which says how busy it was.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const source = resolve(here, '../..');
const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i < 0 ? dflt : args[i + 1]; };
const concord = resolve(opt('--concord', join(source, 'build/apps/concord/concord')));
const bodies = Number(opt('--bodies', 1000)), triangles = Number(opt('--triangles', 100));
const frames = Number(opt('--frames', 100)), seconds = Number(opt('--seconds', 5));
const width = Number(opt('--width', 1280)), height = Number(opt('--height', 720));

const work = mkdtempSync(join(tmpdir(), 'concord-viewer-bench-'));
const out = join(work, 'out');
const made = spawnSync('node', [join(here, 'make_synthetic_output.mjs'), out, '--bodies', bodies,
  '--triangles', triangles, '--frames', frames, ...(args.includes('--distinct-meshes') ? ['--distinct-meshes'] : [])],
{ encoding: 'utf8' });
if (made.status !== 0) throw new Error(made.stderr);
console.log(made.stdout.trim());

const server = spawn(concord, ['view', out, '--max-seconds', '600'], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((ok, fail) => {
  let text = '';
  server.stdout.on('data', (d) => {
    text += d;
    const m = text.match(/http:\/\/127\.0\.0\.1:\d+\//);
    if (m) ok(m[0]);
  });
  server.on('exit', (code) => fail(new Error(`concord view exited with ${code}`)));
});

const { chromium } = createRequire(join(source, 'viewer/package.json'))('playwright-core');
const profile = join(work, 'profile');
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, viewport: { width, height },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--enable-unsafe-swiftshader'],
});

/** CPU seconds used so far by this chromium's processes (they all name the profile folder). */
function chromiumCpuSeconds() {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(profile)) continue;
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / 100;  // utime + stime, USER_HZ = 100
    } catch { /* the process ended meanwhile */ }
  }
  return total;
}

try {
  for (const [label, query] of [['full resolution', '?adaptive=0'], ['adaptive resolution', '']]) {
    const page = await context.newPage();
    const t0 = Date.now();
    await page.goto(url + query);
    await page.waitForFunction(() => window.concordViewer && window.concordViewer.state !== 'loading', null, { timeout: 120000 });
    const loadMs = Date.now() - t0;
    await page.evaluate(() => window.concordViewer.measureFps(1500));  // warm up, settle the resolution
    const cpu0 = chromiumCpuSeconds(), n0 = await page.evaluate(() => window.concordViewer.renderedFrames);
    const result = await page.evaluate(async (ms) => {
      const v = window.concordViewer;
      let lowest = 1, drawn = 0, samples = 0;
      const timer = setInterval(() => {
        lowest = Math.min(lowest, v.renderScale);
        drawn += v.drawnTriangles;
        ++samples;
      }, 100);
      const fps = await v.measureFps(ms);
      clearInterval(timer);
      const c = document.getElementById('canvas');
      return { fps, lowest, canvas: `${c.width}x${c.height}`, bodies: v.bodyCount, triangles: v.triangleCount,
        drawn: Math.round(drawn / Math.max(1, samples)) };
    }, seconds * 1000);
    const drawn = (await page.evaluate(() => window.concordViewer.renderedFrames)) - n0;
    const cpuMs = ((chromiumCpuSeconds() - cpu0) * 1000) / Math.max(1, drawn);
    console.log(`${label}: ${result.fps.toFixed(1)} fps, ${cpuMs.toFixed(1)} ms CPU per frame, canvas ${result.canvas}` +
      ` (lowest scale ${result.lowest}), ${result.bodies} bodies, ${result.triangles} triangles` +
      ` (${result.drawn} drawn on average), loaded in ${loadMs} ms`);
    await page.close();
  }
  console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(' ')} on ${spawnSync('nproc').stdout.toString().trim()} cores`);
} finally {
  await context.close();
  server.kill();
  rmSync(work, { recursive: true, force: true });
}
