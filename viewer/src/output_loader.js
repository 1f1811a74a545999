// Fetches an output directory (docs/cli.md "Output directory") over HTTP: scene.json,
// bodies.json, meshes/*.obj, the mode files meshes/*.modes.json of reduced elastic bodies
// (docs/elastic.md) and frames.jsonl. `base` is the directory's URL, ending in '/'.
import { parseFrames } from './frames.js';
import { parseObj } from './obj_parser.js';

async function fetchText(url, name) {
  let response;
  try {
    response = await fetch(url);
  } catch (e) {
    throw new Error(`${name}: cannot fetch (${e.message}); is \`concord view\` still running?`);
  }
  if (!response.ok) throw new Error(`${name}: ${response.status} ${response.statusText || 'error'}`);
  return response.text();
}

async function fetchJson(url, name) {
  const text = await fetchText(url, name);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${name}: not valid JSON (${e.message})`);
  }
}

function validateBodies(bodies) {
  if (!Array.isArray(bodies)) throw new Error('bodies.json: expected an array');
  bodies.forEach((b, i) => {
    if (!b || typeof b.name !== 'string' || typeof b.mesh !== 'string') {
      throw new Error(`bodies.json: body ${i}: expected {"name", "mesh", "motion"}`);
    }
    if (b.dofs !== undefined && (!Number.isInteger(b.dofs) || b.dofs < 12)) {
      throw new Error(`bodies.json: body ${i}: "dofs" must be an integer >= 12`);
    }
    if (b.modes !== undefined && typeof b.modes !== 'string') {
      throw new Error(`bodies.json: body ${i}: "modes" must be a file name`);
    }
    if ((b.dofs ?? 12) > 12 && b.modes === undefined) {
      throw new Error(`bodies.json: body ${i}: a body with ${b.dofs} coordinates needs a "modes" file`);
    }
  });
  return bodies;
}

/**
 * A mode file as `concord run` writes it (src/concord/io/output_writer.cpp): {"num_modes": m,
 * "num_vertices": n, "values": [...]}, value (3 v + i) m + k being component i of mode k at vertex
 * v. Returns {count: m, values: Float32Array} after checking it against the body's m = dofs - 12
 * and its mesh's vertex count.
 */
export function parseModes(json, name, modeCount, vertexCount) {
  if (!json || typeof json !== 'object' || !Array.isArray(json.values)) {
    throw new Error(`${name}: expected {"num_modes", "num_vertices", "values"}`);
  }
  if (json.num_modes !== modeCount) {
    throw new Error(`${name}: num_modes ${json.num_modes} does not match the body's ${modeCount + 12} coordinates`);
  }
  if (json.num_vertices !== vertexCount) {
    throw new Error(`${name}: num_vertices ${json.num_vertices} does not match its mesh's ${vertexCount} vertices`);
  }
  if (json.values.length !== 3 * vertexCount * modeCount) {
    throw new Error(`${name}: expected ${3 * vertexCount * modeCount} values, got ${json.values.length}`);
  }
  const values = new Float32Array(json.values.length);
  for (let i = 0; i < values.length; ++i) {
    const x = json.values[i];
    if (!Number.isFinite(x)) throw new Error(`${name}: value ${i} is not a finite number`);
    values[i] = x;
  }
  return { count: modeCount, values };
}

/** FNV-1a over the text: bodies whose OBJ files are identical share one GPU geometry. */
function textHash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; ++i) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return `${(h >>> 0).toString(16)}:${text.length}`;
}

/** Runs `task(i)` for i in [0, n) with at most `limit` in flight. */
async function forEachLimited(n, limit, task) {
  let next = 0;
  const worker = async () => {
    while (next < n) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, n) }, worker));
}

/**
 * Loads everything. Returns { scene, bodies, meshes, bodyMesh, modes, frames }: `meshes` holds the
 * distinct meshes ({positions, indices}), bodyMesh[b] is the index of body b's mesh in it, and
 * modes[b] is body b's modes ({count, values}, see parseModes) or null for an affine body.
 * Throws Error with a one-line message for a missing or malformed scene.json, bodies.json or
 * mesh; a malformed frame line is reported in frames.error instead (earlier frames stay usable).
 * onMesh(mesh, index) is called for each distinct mesh as soon as it is read, so that work on it
 * overlaps with the fetches of the others.
 */
export async function loadOutput(base, onProgress = () => {}, onMesh = () => {}) {
  onProgress('reading scene.json and bodies.json');
  const [scene, bodiesJson] = await Promise.all([
    fetchJson(base + 'scene.json', 'scene.json'),
    fetchJson(base + 'bodies.json', 'bodies.json'),
  ]);
  const bodies = validateBodies(bodiesJson);

  const meshes = [];
  const bodyMesh = new Int32Array(bodies.length);
  const byPath = new Map();  // mesh path -> Promise of mesh index
  const byHash = new Map();  // text hash -> [{text, index}]
  let loaded = 0;
  const loadPath = async (path) => {
    const text = await fetchText(base + path.split('/').map(encodeURIComponent).join('/'), path);
    const hash = textHash(text);
    const same = (byHash.get(hash) || []).find((m) => m.text === text);
    if (same) return same.index;
    const index = meshes.length;
    const mesh = parseObj(text, path);
    meshes.push(mesh);
    onMesh(mesh, index);
    if (!byHash.has(hash)) byHash.set(hash, []);
    byHash.get(hash).push({ text, index });
    return index;
  };
  await forEachLimited(bodies.length, 8, async (b) => {
    const path = bodies[b].mesh;
    if (!byPath.has(path)) byPath.set(path, loadPath(path));
    bodyMesh[b] = await byPath.get(path);
    if (++loaded % 50 === 0) onProgress(`meshes ${loaded} / ${bodies.length}`);
  });

  const modes = await Promise.all(bodies.map(async (b, i) => {
    if ((b.dofs ?? 12) <= 12) return null;
    const json = await fetchJson(base + b.modes.split('/').map(encodeURIComponent).join('/'), b.modes);
    return parseModes(json, b.modes, b.dofs - 12, meshes[bodyMesh[i]].positions.length / 3);
  }));

  onProgress('reading frames.jsonl');
  const framesText = await fetchText(base + 'frames.jsonl', 'frames.jsonl');
  const frames = parseFrames(framesText, bodies.length, 'frames.jsonl', bodies.map((b) => b.dofs ?? 12));
  if (frames.count === 0 && !frames.error) frames.error = 'frames.jsonl: no frames';
  return { scene, bodies, meshes, bodyMesh, modes, frames };
}
