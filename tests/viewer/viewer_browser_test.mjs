#!/usr/bin/env node
// Browser test of the web viewer: headless Debian chromium driven by playwright-core.
//   node viewer_browser_test.mjs VIEWER_DIR URL_OF_A_SYNTHETIC_DISTRIBUTED_RUN URL_OF_A_BROKEN_RUN
//        [URL_OF_A_REAL_DISTRIBUTED_RUN [URL_OF_A_RUN_WITH_ELASTIC_BODIES
//        [URL_OF_A_RUN_WITH_A_FLUID URL_OF_THE_SAME_RUN_WITH_FLUID_FILE_2_REMOVED]]]]
// The first URL serves a small synthetic run with the distributed-run stats (docs/viewer.md),
// the second a single-machine run whose frames.jsonl has an unreadable line, the optional third
// a run of `concord run --workers 2`. Checks: the page loads without console errors; Play
// advances the frame counter; the canvas is not blank; the stats plot has one point per frame;
// colouring by worker uses the run's owners (frame 0 those of frame 1, static bodies grey); the
// partition planes and overlap slabs of the frame on screen are drawn; the real run colours by
// its per-body contact counts (stats.body_contacts); a single-machine run
// offers neither; an unreadable frame and a missing output directory give readable messages,
// not a blank page; a run with reduced elastic bodies (the fifth URL, docs/elastic.md) draws them
// at x = p + A (X + Phi eta) as computed here from its files, and their shape on screen changes
// with the frame; a run with a fluid (the sixth URL, docs/fluids.md) draws each frame's particles
// where its fluid/NNNNNN.npy puts them, coloured by speed, and a missing fluid file is a readable
// warning while the bodies stay viewable (the seventh). Prints "N passed, M failed" and exits 1 on any failure.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [viewerDir, goodUrl, brokenUrl, distributedUrl, elasticUrl, fluidUrl, fluidGapUrl] = process.argv.slice(2);
const { chromium } = createRequire(join(viewerDir, 'package.json'))('playwright-core');
const { fluidColour, rampColour, workerColour } = await import(pathToFileURL(join(viewerDir, 'src', 'palette.js')).href);
const { parseObj } = await import(pathToFileURL(join(viewerDir, 'src', 'obj_parser.js')).href);

let passed = 0, failed = 0;
function check(name, ok, detail = '') {
  if (ok) { ++passed; console.log(`ok   ${name}${detail ? `: ${detail}` : ''}`); }
  else { ++failed; console.log(`FAIL ${name}${detail ? `: ${detail}` : ''}`); }
}

const profile = mkdtempSync(join(tmpdir(), 'concord-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1000, height: 700 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    // WebGL on the CPU (SwiftShader): chromium asks for this flag to use it on purpose.
    '--enable-unsafe-swiftshader'],
});

async function openViewer(url) {
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(url);
  await page.waitForFunction(() => window.concordViewer && window.concordViewer.state !== 'loading',
    null, { timeout: 20000 });
  return { page, problems };
}

/** Share of canvas pixels that differ from the corner (background) pixel, and colour count. */
async function canvasContent(page) {
  const png = await page.locator('#canvas').screenshot();
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    let differ = 0;
    const colours = new Set();
    for (let i = 0; i < d.length; i += 4) {
      if (Math.abs(d[i] - d[0]) + Math.abs(d[i + 1] - d[1]) + Math.abs(d[i + 2] - d[2]) > 24) ++differ;
      colours.add((d[i] >> 3) << 10 | (d[i + 1] >> 3) << 5 | (d[i + 2] >> 3));
    }
    return { share: differ / (d.length / 4), colours: colours.size };
  }, png.toString('base64'));
}

const near = (a, b) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]) < 1e-6);

/** A run of `concord run --workers 2`: its own frames.jsonl says what the page must show. */
async function checkDistributedRun(url) {
  const text = await (await fetch(new URL('data/frames.jsonl', url))).text();
  const lines = text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  const { page, problems } = await openViewer(url);
  const state = await page.evaluate(() => ({ ...window.concordViewer }));
  check('distributed run: loads', state.state === 'ready' && state.frameCount === lines.length,
    `${state.bodyCount} bodies, ${state.frameCount} frames`);
  check('distributed run: no console errors', problems.length === 0, problems.join(' | '));
  check('distributed run: no message shown', await page.locator('#message').isHidden());
  check('distributed run: ADMM iterations plotted',
    (await page.locator('#plot-iterations polyline[data-series="admm_iterations"]').count()) === 1);

  await page.selectOption('#colour-mode', 'worker');
  const legend = await page.locator('#legend').textContent();
  check('distributed run: colour by worker selectable', /worker 0/.test(legend) && /worker 1/.test(legend), `legend "${legend}"`);
  // Every body in the colour of its owner; frame 0 (default stats) shows frame 1's owners.
  for (const f of [0, lines.length - 1]) {
    await page.evaluate((k) => window.concordViewer.seek(k), f);
    const owners = lines[Math.max(1, f)].stats.owners;
    const got = await page.evaluate(() => ({ owners: window.concordViewer.owners(), colours: window.concordViewer.bodyColours() }));
    const want = owners.flatMap((w) => workerColour(w));
    check(`distributed run: frame ${f} coloured by its owners`, JSON.stringify(got.owners) === JSON.stringify(owners) &&
      near(got.colours, want) && owners.every((w) => w >= -1 && w < 2),
    `owners ${JSON.stringify(got.owners)}`);

    const s = lines[Math.max(1, f)].stats;
    const planes = s.planes.flatMap((axis, a) => axis.map((p) => [a, p]));
    const drawn = await page.evaluate(() => window.concordViewer.partition());
    check(`distributed run: frame ${f} partition planes drawn`, planes.length > 0 &&
      drawn.planes.length === planes.length &&
      drawn.planes.every((d, i) => d.normal === planes[i][0] && Math.abs(d.position[planes[i][0]] - planes[i][1]) < 1e-6 &&
        d.size.every((x) => x > 0)) &&
      drawn.slabs.length === planes.length && drawn.slabs.every((w) => Math.abs(w - s.overlap_width) < 1e-9),
    JSON.stringify(drawn));
  }
  // Colour by contact count from the run's own stats.body_contacts (written by `concord run`):
  // each body on the ramp at its count over the run's largest.
  await page.selectOption('#colour-mode', 'contacts');
  const contactsLegend = await page.locator('#legend').textContent();
  const top = Math.max(...lines.flatMap((l) => l.stats.body_contacts));
  const last = lines.length - 1;
  await page.evaluate((k) => window.concordViewer.seek(k), last);
  const counts = lines[last].stats.body_contacts;
  const shown = await page.evaluate(() => window.concordViewer.bodyColours());
  check('distributed run: colour by contact count from stats.body_contacts',
    !/no per-body contact counts/.test(contactsLegend) && top > 0 && counts.length === state.bodyCount &&
      new Set(counts).size > 1 && near(shown, counts.flatMap((c) => rampColour(c / top))),
    `legend "${contactsLegend}", counts ${JSON.stringify(counts)}`);
  const content = await canvasContent(page);
  check('distributed run: canvas is not blank', content.share > 0.02, `${(100 * content.share).toFixed(1)}% non-background`);
  await page.uncheck('#show-partition');
  check('distributed run: partition toggle hides the planes',
    (await page.evaluate(() => window.concordViewer.partition())).planes.length === 0);
  check('distributed run: still no console errors', problems.length === 0, problems.join(' | '));
  await page.close();
}


/**
 * A run with reduced elastic bodies (`concord run scenes/elastic-cantilever.json`): the vertices
 * the page sends to the GPU are x = p + A (X + Phi eta), computed here from the run's own OBJ,
 * mode and frame files; the deformation is visible in the picture; uploading only the elastic
 * bodies' part of the vertex buffer on a frame change draws what a full upload draws.
 */
async function checkElasticRun(url) {
  const get = async (path) => (await fetch(new URL(`data/${path}`, url))).text();
  const bodies = JSON.parse(await get('bodies.json'));
  const lines = (await get('frames.jsonl')).split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  const elastic = bodies.map((b, i) => ((b.dofs ?? 12) > 12 ? i : -1)).filter((i) => i >= 0);
  const { page, problems } = await openViewer(url);
  const state = await page.evaluate(() => ({ ...window.concordViewer }));
  check('elastic run: loads', state.state === 'ready' && state.frameCount === lines.length,
    `${state.bodyCount} bodies, ${state.frameCount} frames`);
  check('elastic run: no console errors', problems.length === 0, problems.join(' | '));
  check('elastic run: elastic bodies found', elastic.length > 0 && JSON.stringify(state.elasticBodies) === JSON.stringify(elastic),
    JSON.stringify(state.elasticBodies));
  const last = lines.length - 1;
  for (const b of elastic) {
    const mesh = parseObj(await get(bodies[b].mesh), bodies[b].mesh);
    const { num_modes: m, values } = JSON.parse(await get(bodies[b].modes));
    // World vertices of frame f: the affine part alone, and with the modes.
    const world = (f, withModes) => {
      const q = lines[f].q[b];
      const out = [];
      for (let v = 0; v < mesh.positions.length / 3; ++v) {
        const X = [0, 1, 2].map((i) => mesh.positions[3 * v + i] +
          (withModes ? values.slice((3 * v + i) * m, (3 * v + i + 1) * m).reduce((s, phi, k) => s + phi * q[12 + k], 0) : 0));
        for (let r = 0; r < 3; ++r) out.push(q[r] + q[3 + 3 * r] * X[0] + q[4 + 3 * r] * X[1] + q[5 + 3 * r] * X[2]);
      }
      return out;
    };
    const furthest = (a, c) => a.reduce((d, x, i) => Math.max(d, Math.abs(x - c[i])), 0);
    for (const f of [0, last, 0]) {
      await page.evaluate((k) => window.concordViewer.seek(k), f);
      const drawn = await page.evaluate((k) => window.concordViewer.drawnVertices(k), b);
      // Single-precision floats in the page: 1e-4 m is ~ 100 ulps on coordinates of order 1.
      const error = furthest(drawn, world(f, true));
      check(`elastic run: body ${b} frame ${f} drawn at p + A (X + Phi eta)`, drawn.length === mesh.positions.length && error < 1e-4,
        `largest error ${error.toExponential(2)} m, deformation ${furthest(world(f, true), world(f, false)).toExponential(2)} m`);
    }
    const deformation = furthest(world(last, true), world(last, false));
    check(`elastic run: body ${b} deforms visibly by frame ${last}`, deformation > 0.01, `${deformation.toFixed(4)} m`);
  }
  // The picture: frame 0, the last frame (only the elastic ranges uploaded), the last frame again
  // after a full upload (same pixels), frame 0 again (same pixels as before).
  const shot = async (f, full = false) => {
    // The count of pictures drawn before the change, read in the same task (no picture between).
    const n = await page.evaluate(([k, all]) => {
      const before = window.concordViewer.renderedFrames;
      window.concordViewer.seek(k);
      if (all) window.concordViewer.uploadAllPositions();
      return before;
    }, [f, full]);
    await page.waitForFunction((k) => window.concordViewer.renderedFrames > k, n, { timeout: 10000 });
    return page.locator('#canvas').screenshot();
  };
  const first = await shot(0), moved = await shot(last), reloaded = await shot(last, true), back = await shot(0);
  check('elastic run: the picture changes between frames', !first.equals(moved));
  check('elastic run: uploading only the elastic ranges draws what a full upload draws', moved.equals(reloaded));
  check('elastic run: back at frame 0 the picture is frame 0\'s', first.equals(back));
  const content = await canvasContent(page);
  check('elastic run: canvas is not blank', content.share > 0.02, `${(100 * content.share).toFixed(1)}% non-background`);
  check('elastic run: still no console errors', problems.length === 0, problems.join(' | '));
  await page.close();
}

/**
 * A run with a fluid (`concord run scenes/dam-break.json`): the particles drawn in a frame are
 * those of its fluid/NNNNNN.npy, read here with the same parser, coloured by speed over
 * sqrt(2 |g| h) (h the water's height in frame 0); the picture follows the frames. `gapUrl`
 * serves the same run without fluid/000002.npy.
 */
async function checkFluidRun(url, gapUrl) {
  const { parseNpy } = await import(pathToFileURL(join(viewerDir, 'src', 'fluid_points.js')).href);
  const get = async (path) => fetch(new URL(`data/${path}`, url));
  const scene = await (await get('scene.json')).json();
  const lines = (await (await get('frames.jsonl')).text()).split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  const npy = async (frame) => parseNpy(await (await get(`fluid/${String(frame).padStart(6, '0')}.npy`)).arrayBuffer(), 'npy');
  const first = await npy(lines[0].frame);
  const heights = Array.from({ length: first.rows }, (_, i) => first.data[5 * i + 1]);  // gravity is -y
  const g = Math.hypot(...scene.gravity);
  const scale = Math.sqrt(2 * g * (Math.max(...heights) - Math.min(...heights)));
  const { page, problems } = await openViewer(url);
  const state = await page.evaluate(() => ({ ...window.concordViewer }));
  check('fluid run: loads', state.state === 'ready' && state.frameCount === lines.length, `${state.frameCount} frames`);
  check('fluid run: the title counts the particles', (await page.locator('#title').textContent()).includes(`${first.rows} fluid particles`));
  const last = lines.length - 1;
  const shots = [];
  for (const f of [0, last]) {
    const frame = lines[f].frame;
    await page.evaluate((k) => window.concordViewer.seek(k), f);
    await page.waitForFunction((k) => window.concordViewer.fluid().frame === k, frame, { timeout: 10000 });
    // One more picture once the particles are in (uploadAllPositions asks for a redraw).
    const n = await page.evaluate(() => {
      const before = window.concordViewer.renderedFrames;
      window.concordViewer.uploadAllPositions();
      return before;
    });
    await page.waitForFunction((m) => window.concordViewer.renderedFrames > m, n, { timeout: 10000 });
    const drawn = await page.evaluate(() => window.concordViewer.fluid());
    const file = await npy(frame);
    let error = 0, colourError = 0;
    for (let i = 0; i < file.rows; ++i) {
      for (let k = 0; k < 3; ++k) error = Math.max(error, Math.abs(drawn.positions[3 * i + k] - file.data[5 * i + k]));
      const c = fluidColour(file.data[5 * i + 3] / scale);
      for (let k = 0; k < 3; ++k) colourError = Math.max(colourError, Math.abs(drawn.colours[3 * i + k] - c[k]));
    }
    check(`fluid run: frame ${frame} draws its ${file.rows} particles where the file puts them`,
      drawn.count === file.rows && drawn.positions.length === 3 * file.rows && error === 0, `largest error ${error}`);
    check(`fluid run: frame ${frame} colours by speed over sqrt(2 g h) = ${scale.toFixed(3)} m/s`,
      Math.abs(drawn.speedScale - scale) < 1e-5 && colourError < 1e-5, `largest colour error ${colourError.toExponential(2)}`);
    shots.push(await page.locator('#canvas').screenshot());
  }
  check('fluid run: the picture changes between frames', !shots[0].equals(shots[1]));
  const content = await canvasContent(page);
  check('fluid run: canvas is not blank', content.share > 0.02, `${(100 * content.share).toFixed(1)}% non-background`);
  check('fluid run: no console errors', problems.length === 0, problems.join(' | '));
  await page.close();

  if (!gapUrl) return;
  const gap = await openViewer(gapUrl);
  await gap.page.evaluate(() => window.concordViewer.seek(2));
  await gap.page.waitForFunction(() => window.concordViewer.fluid().error !== null, null, { timeout: 10000 });
  const message = await gap.page.locator('#message').textContent();
  check('fluid run without fluid/000002.npy: a readable warning, the page stays usable',
    /fluid\/000002\.npy: 404/.test(message) && (await gap.page.evaluate(() => window.concordViewer.state)) === 'ready',
    `"${message}"`);
  await gap.page.evaluate(() => window.concordViewer.seek(1));
  await gap.page.waitForFunction(() => window.concordViewer.fluid().frame === 1, null, { timeout: 10000 });
  check('fluid run without fluid/000002.npy: other frames still draw their particles',
    (await gap.page.evaluate(() => window.concordViewer.fluid().count)) === first.rows);
  await gap.page.close();
}

try {
  // --- a good run ---------------------------------------------------------------------------
  const { page, problems } = await openViewer(goodUrl);
  const state = await page.evaluate(() => ({ ...window.concordViewer }));
  check('loads', state.state === 'ready', `${state.bodyCount} bodies, ${state.frameCount} frames`);
  check('no console errors', problems.length === 0, problems.join(' | '));
  check('no message shown', await page.locator('#message').isHidden());

  const before = await page.evaluate(() => window.concordViewer.frameIndex);
  const labelBefore = await page.locator('#frame-label').textContent();
  await page.click('#play');
  // Index and label are read in one evaluation: playback may loop back to frame 0 between two
  // round trips on a busy machine.
  const labelAfter = await (await page.waitForFunction((f) => window.concordViewer.frameIndex > f
    && document.getElementById('frame-label').textContent, before, { timeout: 10000 })).jsonValue();
  check('play advances the frame counter', labelAfter !== labelBefore, `"${labelBefore}" -> "${labelAfter}"`);
  await page.click('#play');  // pause

  const content = await canvasContent(page);
  check('canvas is not blank', content.share > 0.02 && content.colours > 8,
    `${(100 * content.share).toFixed(1)}% non-background pixels, ${content.colours} colours`);

  const plot = await page.evaluate(() => {
    const line = document.querySelector('#plot-contacts polyline[data-series="contacts"]');
    return line && { count: Number(line.dataset.count), points: line.getAttribute('points').trim().split(/\s+/).length };
  });
  check('stats plot has one point per frame', plot && plot.count === state.frameCount && plot.points === state.frameCount,
    JSON.stringify(plot));
  const admm = await page.locator('#plot-iterations polyline[data-series="admm_iterations"]').count();
  check('ADMM iterations are plotted for a distributed run', admm === 1);

  await page.selectOption('#colour-mode', 'worker');
  const legend = await page.locator('#legend').textContent();
  check('colour by worker uses the run\'s owners', /worker 1/.test(legend) && !/not a distributed run/.test(legend),
    `legend "${legend}"`);
  await page.selectOption('#colour-mode', 'speed');
  check('colour by speed shows a scale', /m\/s/.test(await page.locator('#legend').textContent()));
  check('partition overlay is offered', await page.locator('#show-partition').isEnabled());
  const drawn = await page.evaluate(() => window.concordViewer.partition());
  check('partition plane and overlap slab drawn', drawn.planes.length === 1 && drawn.planes[0].normal === 0 &&
    drawn.slabs.length === 1 && Math.abs(drawn.slabs[0] - 0.1) < 1e-9, JSON.stringify(drawn));
  const timeSeries = await page.locator('#plot-time polyline').evaluateAll((ls) => ls.map((l) => l.dataset.series));
  check('time plot splits off sync and parallel time', timeSeries.includes('t_sync') && timeSeries.includes('t_parallel'),
    timeSeries.join(','));

  await page.evaluate(() => window.concordViewer.seek(3));
  check('seek moves the slider', (await page.locator('#slider').inputValue()) === '3');
  check('still no console errors', problems.length === 0, problems.join(' | '));
  await page.close();

  // --- an unreadable frame line: the frames before it, and a readable message -----------------
  const broken = await openViewer(brokenUrl);
  const b = await broken.page.evaluate(() => ({ ...window.concordViewer }));
  const message = await broken.page.locator('#message').textContent();
  check('unreadable frame is reported', b.state === 'ready' && /frames\.jsonl: line 6:/.test(message) &&
    (await broken.page.locator('#message').isVisible()), `"${message}"`);
  check('frames before it stay viewable', b.frameCount === 5, `${b.frameCount} frames`);
  // A single-machine run: no worker colours, no partition, no ADMM plot (as before distribution).
  check('single-machine run: partition toggle disabled', await broken.page.locator('#show-partition').isDisabled());
  check('single-machine run: no partition drawn',
    (await broken.page.evaluate(() => window.concordViewer.partition())).planes.length === 0);
  check('single-machine run: no ADMM or sync series',
    (await broken.page.locator('polyline[data-series="admm_iterations"], polyline[data-series="t_sync"]').count()) === 0);
  await broken.page.selectOption('#colour-mode', 'worker');
  const singleLegend = await broken.page.locator('#legend').textContent();
  const singleColours = await broken.page.evaluate(() => window.concordViewer.bodyColours());
  const bodyMode = await broken.page.evaluate(() => { window.concordViewer.setColourMode('body'); return window.concordViewer.bodyColours(); });
  check('single-machine run: worker colouring says why and keeps body colours',
    /not a distributed run/.test(singleLegend) && JSON.stringify(singleColours) === JSON.stringify(bodyMode), `legend "${singleLegend}"`);
  await broken.page.close();

  // --- no output directory at that address ---------------------------------------------------
  const missing = await openViewer(new URL('?data=no-such-dir/', goodUrl).href);
  const m = await missing.page.evaluate(() => ({ ...window.concordViewer }));
  const text = await missing.page.locator('#message').textContent();
  check('missing output gives a readable message', m.state === 'error' && /scene\.json|bodies\.json/.test(text) &&
    (await missing.page.locator('#message').isVisible()), `"${text}"`);
  await missing.page.close();

  if (distributedUrl) await checkDistributedRun(distributedUrl);
  if (elasticUrl) await checkElasticRun(elasticUrl);
  if (fluidUrl) await checkFluidRun(fluidUrl, fluidGapUrl);
} catch (e) {
  check('browser session', false, e.message.split('\n')[0]);
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
