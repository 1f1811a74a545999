// Parses frames.jsonl into flat typed arrays: the viewer touches every body of a frame 60 times
// a second, so the per-frame data must not be a tree of small JS objects.

const AFFINE = 12;  // p (3) then A row-major (9)

function isVec3(v) {
  return Array.isArray(v) && v.length === 3 && v.every(Number.isFinite);
}

/**
 * The partition of a distributed run (docs/distributed.md, docs/viewer.md): stats.planes holds
 * the plane positions per axis, [[x planes], [y planes], [z planes]] (each plane normal to its
 * axis), and stats.overlap_width the width of the shared slab around each. Null when the frame
 * has no planes; throws Error for a malformed value.
 */
function parsePartition(s) {
  const p = s.planes;
  if (p === undefined || p === null) return null;
  if (!Array.isArray(p) || p.length > 3 || !p.every((axis) => Array.isArray(axis) && axis.every(Number.isFinite))) {
    throw new Error('stats.planes: expected up to 3 arrays of numbers (plane positions along x, y, z)');
  }
  const overlap = s.overlap_width ?? 0;
  if (!Number.isFinite(overlap) || overlap < 0) {
    throw new Error('stats.overlap_width: expected a non-negative number');
  }
  const planes = [];
  p.forEach((axis, a) => {
    for (const position of axis) planes.push({ axis: a, position, overlap });
  });
  return { planes, overlap };
}

/** stats.owners: per body the owning worker (0-based, -1 for static bodies); null when absent. */
function parseOwners(s, bodyCount) {
  const v = s.owners;
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v) || v.length !== bodyCount || !v.every((w) => Number.isInteger(w) && w >= -1)) {
    throw new Error(`stats.owners: expected ${bodyCount} integers >= -1 (one per body)`);
  }
  return v;
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
 * A last line without its newline that is not valid JSON is the part of a frame a killed run was
 * writing: it is skipped without an error, and `partialTail` is true.
 *
 * `dofs` (optional, per body; bodies.json "dofs") is the number of coordinates of each body's
 * rows: 12 for an affine body, 12 + m for a reduced elastic body (docs/elastic.md), whose row is
 * the 12 affine numbers then its m modal coordinates eta. An elastic body's row must have exactly
 * its dofs numbers; its eta go to `modal` (see modalOffset). Rows of other bodies need at least 12.
 */
export function parseFrames(text, bodyCount, source = 'frames.jsonl', dofs = null) {
  const lines = text.split('\n');
  const capacity = lines.length;
  const q = new Float32Array(capacity * bodyCount * AFFINE);
  // Modal coordinates: per frame, the elastic bodies' eta one after the other.
  const modalStart = new Int32Array(bodyCount);
  const modalCount = new Int32Array(bodyCount);
  let modalPerFrame = 0;
  for (let b = 0; b < bodyCount; ++b) {
    modalStart[b] = modalPerFrame;
    modalCount[b] = dofs && dofs[b] > AFFINE ? dofs[b] - AFFINE : 0;
    modalPerFrame += modalCount[b];
  }
  const modal = new Float32Array(capacity * modalPerFrame);
  const times = new Float64Array(capacity);
  const frameNumbers = new Int32Array(capacity);
  const stats = [];
  const partitions = [];
  let workers = null;       // Int16Array(capacity * bodyCount) once a frame has stats.owners
  const hasOwners = [];     // per frame: whether its own line carried stats.owners
  let bodyContacts = null;  // Float32Array, same layout, for stats.body_contacts
  let count = 0;
  let error = null;
  let partialTail = false;
  let lastFrame = -1;

  for (let n = 0; n < lines.length; ++n) {
    const line = lines[n];
    if (line.trim() === '') continue;
    try {
      let rec;
      try {
        rec = JSON.parse(line);
      } catch (e) {
        if (n === lines.length - 1) {  // no newline after it: a frame being written when killed
          partialTail = true;
          break;
        }
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
        const m = modalCount[b];
        if (m > 0 && (!Array.isArray(row) || row.length !== AFFINE + m)) {
          throw new Error(`q[${b}]: expected ${AFFINE + m} numbers (12 affine, ${m} modal; bodies.json "dofs")`);
        }
        if (!Array.isArray(row) || row.length < AFFINE) {
          throw new Error(`q[${b}]: expected at least ${AFFINE} numbers`);
        }
        for (let k = 0; k < AFFINE + m; ++k) {
          const x = row[k];
          if (!Number.isFinite(x)) throw new Error(`q[${b}][${k}]: not a finite number`);
          if (k < AFFINE) q[base + b * AFFINE + k] = x;
          else modal[count * modalPerFrame + modalStart[b] + k - AFFINE] = x;
        }
      }
      const partition = parsePartition(s);
      const w = parseOwners(s, bodyCount);
      const c = perBody(s, 'body_contacts', bodyCount);
      if (w) {
        workers ??= new Int16Array(capacity * bodyCount).fill(-1);
        for (let b = 0; b < bodyCount; ++b) workers[count * bodyCount + b] = w[b];
      }
      if (c) {
        bodyContacts ??= new Float32Array(capacity * bodyCount);
        for (let b = 0; b < bodyCount; ++b) bodyContacts[count * bodyCount + b] = c[b];
      }
      hasOwners.push(w !== null);
      // Kept out of the per-frame stats objects: they are big and already in typed arrays.
      delete s.owners;
      delete s.planes;
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
  if (workers) fillMissingOwners(workers, hasOwners, count, bodyCount);
  if (partitions.some((x) => x)) {
    const from = nearestWith(partitions.map((x) => x !== null));
    for (let f = 0; f < count; ++f) if (!partitions[f]) partitions[f] = partitions[from[f]];
  }
  return {
    count,
    bodyCount,
    times: times.subarray(0, count),
    frameNumbers: frameNumbers.subarray(0, count),
    q: q.subarray(0, count * bodyCount * AFFINE),
    modal: modal.subarray(0, count * modalPerFrame),
    modalStart,
    modalCount,  // per body: number of modal coordinates (0 for an affine body)
    modalPerFrame,
    stats,
    partitions,
    workers: workers && workers.subarray(0, count * bodyCount),  // from stats.owners
    workerCount: workerCount(stats, workers, count * bodyCount),
    bodyContacts: bodyContacts && bodyContacts.subarray(0, count * bodyCount),
    error,
    partialTail,
  };
}

/**
 * For every frame, the frame whose distributed data stands in for it: itself when has[f], else
 * the nearest later frame that has it (frame 0 of a distributed run holds the initial state with
 * default stats, so it shows frame 1's owners and planes), else the last earlier one.
 */
function nearestWith(has) {
  const from = new Int32Array(has.length);
  let last = -1;
  for (let f = 0; f < has.length; ++f) if (has[f]) last = f;
  let next = -1;
  for (let f = has.length - 1; f >= 0; --f) {
    if (has[f]) next = f;
    from[f] = has[f] ? f : (next >= 0 ? next : last);
  }
  return from;
}

function fillMissingOwners(workers, hasOwners, count, bodyCount) {
  const from = nearestWith(hasOwners);
  for (let f = 0; f < count; ++f) {
    if (from[f] !== f) workers.copyWithin(f * bodyCount, from[f] * bodyCount, (from[f] + 1) * bodyCount);
  }
}

/** Workers of the run: stats.workers, or one more than the largest owner. */
function workerCount(stats, workers, n) {
  let w = 0;
  for (const st of stats) if (Number.isInteger(st.workers)) w = Math.max(w, st.workers);
  if (workers) for (let i = 0; i < n; ++i) w = Math.max(w, workers[i] + 1);
  return w;
}

/** Offset in frames.modal of body b's modal coordinates eta in frame f (frames.modalCount[b] of them). */
export function modalOffset(frames, f, b) {
  return f * frames.modalPerFrame + frames.modalStart[b];
}

/** Offset of body b's 12 numbers in frame f. */
export function rowOffset(frames, f, b) {
  return (f * frames.bodyCount + b) * AFFINE;
}
