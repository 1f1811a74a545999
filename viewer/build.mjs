// Builds the static assets that `concord view` serves into dist/: index.html, style.css and
// viewer.js (the page's code with three.js bundled in, so nothing is fetched from a CDN).
//
//   node build.mjs              build
//   node build.mjs --if-changed build only when the sources or the lock file changed since the
//                               last build (scripts/setup.sh uses this to stay idempotent)
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
const src = join(root, 'src');
const dist = join(root, 'dist');
const stampFile = join(dist, '.source-hash');

// The hash covers everything the bundle is made from, so a stale dist/ is always rebuilt.
function sourceHash() {
  const h = createHash('sha256');
  for (const f of ['package-lock.json', 'build.mjs']) h.update(f).update(readFileSync(join(root, f)));
  for (const f of readdirSync(src).sort()) h.update(f).update(readFileSync(join(src, f)));
  return h.digest('hex');
}

const hash = sourceHash();
if (process.argv.includes('--if-changed') && existsSync(stampFile) &&
    readFileSync(stampFile, 'utf8').trim() === hash && existsSync(join(dist, 'viewer.js'))) {
  console.log('viewer: dist/ is up to date');
  process.exit(0);
}

const esbuild = await import('esbuild');
mkdirSync(dist, { recursive: true });
await esbuild.build({
  entryPoints: [join(src, 'main.js')],
  outfile: join(dist, 'viewer.js'),
  bundle: true,
  format: 'esm',
  minify: true,
  sourcemap: true,
  target: ['es2020'],
  logLevel: 'warning',
});
for (const f of ['index.html', 'style.css']) copyFileSync(join(src, f), join(dist, f));
writeFileSync(stampFile, hash + '\n');
console.log('viewer: built dist/ (index.html, style.css, viewer.js)');
