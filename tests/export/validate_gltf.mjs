#!/usr/bin/env node
// Validates .glb files with the Khronos glTF-Validator (npm package gltf-validator, installed in
// viewer/node_modules by scripts/setup.sh) and loads them with three.js's GLTFLoader, as the
// viewer's three.js would. Prints two lines per file and exits 1 when any file has a validator
// error or warning, or does not load with its animation in three.js.
//   node validate_gltf.mjs VIEWER_DIR FILE.glb...
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [viewerDir, ...files] = process.argv.slice(2);
const validator = createRequire(join(viewerDir, 'package.json'))('gltf-validator');
const { GLTFLoader } = await import(
  pathToFileURL(join(viewerDir, 'node_modules/three/examples/jsm/loaders/GLTFLoader.js')).href);

function loadWithThree(bytes) {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return new Promise((resolve, reject) => new GLTFLoader().parse(buffer, '', resolve, reject));
}
let failed = 0;
for (const file of files) {
  const bytes = readFileSync(file);
  const report = await validator.validateBytes(new Uint8Array(bytes), {
    maxIssues: 20,
    // The export has no external resources; an attempt to load one is itself an error.
    externalResourceFunction: (uri) => Promise.reject(new Error(`unexpected external resource ${uri}`)),
  });
  const { numErrors, numWarnings, numInfos, messages } = report.issues;
  const info = report.info || {};
  console.log(`${file}: ${numErrors} errors, ${numWarnings} warnings, ${numInfos} infos; ` +
    `${info.animationCount ?? 0} animation(s), ${info.totalVertexCount ?? 0} vertices`);
  for (const m of messages) {
    if (m.severity <= 1) console.log(`  ${m.severity === 0 ? 'error' : 'warning'} ${m.code} at ${m.pointer}: ${m.message}`);
  }
  if (numErrors > 0 || numWarnings > 0) ++failed;
  try {
    const gltf = await loadWithThree(bytes);
    const clip = gltf.animations[0];
    console.log(`${file}: three.js: ${gltf.scene.children.length} nodes, ` +
      `${gltf.animations.length} clip(s)${clip ? `, ${clip.tracks.length} tracks, ${clip.duration.toFixed(4)} s` : ''}`);
    if (gltf.animations.length !== (info.animationCount ?? 0)) ++failed;
  } catch (e) {
    console.log(`${file}: three.js could not load it: ${e.message || e}`);
    ++failed;
  }
}
process.exit(failed ? 1 : 0);
