// Parses frames.jsonl into flat typed arrays: the viewer touches every body of a frame 60 times
// a second, so the per-frame data must not be a tree of small JS objects.

const AFFINE = 12;  // p (3) then A row-major (9); extra coordinates of reduced bodies are not drawn

function isVec3(v) {
  return Array.isArray(v) && v.length === 3 && v.every(Number.isFinite);
}

/**
 * The optional partition of a distributed run (docs/viewer.md): null when absent; throws Error
 * for a malformed one.
 */
function parsePartition(p) {
  if (p === undefined || p === null) return null;
  if (typeof p !== 'object' || !Array.isArray(p.planes)) {
    throw new Error('stats.partition: expected an object with a "planes" array');
  }
  const planes = p.planes.map((plane, i) => {
    if (!plane || !isVec3(plane.point) || !isVec3(plane.normal)) {
      throw new Error(`stats.partition.planes[${i}]: expected {"point": [x,y,z], "normal": [x,y,z]}`);
    }
    const overlap = plane.overlap ?? p.overlap ?? 0;
    if (!Number.isFinite(overlap) || overlap < 0) {
      throw new Error(`stats.partition.planes[${i}].overlap: expected a non-negative number`);
    }
    return { point: plane.point, normal: plane.normal, overlap };
  });
  return { planes };
}

/** An optional per-body array in stats: null when absent, throws when it has the wrong shape. */
function perBody(stats, key, bodyCount) {
  const v = stats[key];
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v) || v.length !== bodyCount || !v.every(Number.isFinite)) {
    throw new Error(`stats.${key}: expected ${bodyCount} numbers (one per body)`);
  }
  return v;
}

/**
 * Reads every line of frames.jsonl. A line that cannot be read ends the parse: the frames before
 * it are kept and `error` says "frames.jsonl: line N: ..." so the page can show what went wrong.
 */
export function parseFrames(text, bodyCount, source = 'frames.jsonl') {
  const lines = text.split('\n');
  const capacity = lines.length;
  const q = new Float32Array(capacity * bodyCount * AFFINE);
  const times = new Float64Array(capacity);
  const frameNumbers = new Int32Array(capacity);
  const stats = [];
  const partitions = [];
  let workers = null;       // Int16Array(capacity * bodyCount) once a frame has stats.workers
  let bodyContacts = null;  // Float32Array, same layout, for stats.body_contacts
  let count = 0;
  let error = null;
  let lastFrame = -1;

  for (let n = 0; n < lines.length; ++n) {
    const line = lines[n];
    if (line.trim() === '') continue;
    try {
      let rec;
      try {
        rec = JSON.parse(line);
      } catch (e) {
        throw new Error(`not valid JSON (${e.message})`);
      }
      if (!rec || typeof rec !== 'object' || Array.isArray(rec)) throw new Error('expected a JSON object');
      if (!Number.isInteger(rec.frame) || rec.frame <= lastFrame) {
        throw new Error(`"frame" must be an integer larger than ${lastFrame}`);
      }
      if (!Number.isFinite(rec.time)) throw new Error('"time" must be a number');
      if (!Array.isArray(rec.q) || rec.q.length !== bodyCount) {
        throw new Error(`"q" must have ${bodyCount} rows (one per body)`);
      }
      const s = rec.stats && typeof rec.stats === 'object' ? rec.stats : {};
      const base = count * bodyCount * AFFINE;
      for (let b = 0; b < bodyCount; ++b) {
        const row = rec.q[b];
        if (!Array.isArray(row) || row.length < AFFINE) {
          throw new Error(`q[${b}]: expected at least ${AFFINE} numbers`);
        }
        for (let k = 0; k < AFFINE; ++k) {
          const x = row[k];
          if (!Number.isFinite(x)) throw new Error(`q[${b}][${k}]: not a finite number`);
          q[base + b * AFFINE + k] = x;
        }
      }
      const partition = parsePartition(s.partition);
      const w = perBody(s, 'workers', bodyCount);
      const c = perBody(s, 'body_contacts', bodyCount);
      if (w) {
        workers ??= new Int16Array(capacity * bodyCount).fill(-1);
        for (let b = 0; b < bodyCount; ++b) workers[count * bodyCount + b] = w[b];
      }
      if (c) {
        bodyContacts ??= new Float32Array(capacity * bodyCount);
        for (let b = 0; b < bodyCount; ++b) bodyContacts[count * bodyCount + b] = c[b];
      }
      delete s.partition;
      delete s.workers;
      delete s.body_contacts;
      times[count] = rec.time;
      frameNumbers[count] = rec.frame;
      stats.push(s);
      partitions.push(partition);
      lastFrame = rec.frame;
      ++count;
    } catch (e) {
      error = `${source}: line ${n + 1}: ${e.message}`;
      break;
    }
  }
  return {
    count,
    bodyCount,
    times: times.subarray(0, count),
    frameNumbers: frameNumbers.subarray(0, count),
    q: q.subarray(0, count * bodyCount * AFFINE),
    stats,
    partitions,
    workers: workers && workers.subarray(0, count * bodyCount),
    bodyContacts: bodyContacts && bodyContacts.subarray(0, count * bodyCount),
    error,
  };
}

/** Offset of body b's 12 numbers in frame f. */
export function rowOffset(frames, f, b) {
  return (f * frames.bodyCount + b) * AFFINE;
}
