#!/usr/bin/env node
// Browser test of the web viewer: headless Debian chromium driven by playwright-core.
//   node viewer_browser_test.mjs VIEWER_DIR URL_OF_A_DISTRIBUTED_RUN URL_OF_A_BROKEN_RUN
// The first URL serves a small run with the optional distributed fields (docs/viewer.md), the
// second one whose frames.jsonl has an unreadable line. Checks: the page loads without console
// errors; Play advances the frame counter; the canvas is not blank; the stats plot has one point
// per frame; colouring by worker uses the run's worker ids; the partition overlay is offered; an
// unreadable frame and a missing output directory give readable messages, not a blank page.
// Prints "N passed, M failed" and exits 1 on any failure.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [viewerDir, goodUrl, brokenUrl] = process.argv.slice(2);
const { chromium } = createRequire(join(viewerDir, 'package.json'))('playwright-core');

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
  await page.waitForFunction((f) => window.concordViewer.frameIndex > f, before, { timeout: 10000 });
  const labelAfter = await page.locator('#frame-label').textContent();
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
  check('colour by worker uses the run\'s worker ids', !/no worker ids/.test(legend), `legend "${legend}"`);
  await page.selectOption('#colour-mode', 'speed');
  check('colour by speed shows a scale', /m\/s/.test(await page.locator('#legend').textContent()));
  check('partition overlay is offered', await page.locator('#show-partition').isEnabled());

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
  await broken.page.close();

  // --- no output directory at that address ---------------------------------------------------
  const missing = await openViewer(new URL('?data=no-such-dir/', goodUrl).href);
  const m = await missing.page.evaluate(() => ({ ...window.concordViewer }));
  const text = await missing.page.locator('#message').textContent();
  check('missing output gives a readable message', m.state === 'error' && /scene\.json|bodies\.json/.test(text) &&
    (await missing.page.locator('#message').isVisible()), `"${text}"`);
  await missing.page.close();
} catch (e) {
  check('browser session', false, e.message.split('\n')[0]);
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
