// A small OBJ reader for the meshes of an output directory: vertices ("v") and faces ("f");
// polygons become fans (v0, vi, vi+1) exactly as Concord's own reader splits them, and normals,
// texture coordinates, groups and materials are ignored.

/** Parses OBJ text; throws Error("NAME: line N: ...") for a malformed vertex or face. */
export function parseObj(text, name) {
  const positions = [];
  const indices = [];
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; ++n) {
    const line = lines[n].trim();
    if (line.length < 2) continue;
    const fail = (what) => { throw new Error(`${name}: line ${n + 1}: ${what}`); };
    if (line.startsWith('v ') || line.startsWith('v\t')) {
      const parts = line.split(/\s+/);
      if (parts.length < 4) fail('a vertex needs 3 coordinates');
      for (let k = 1; k <= 3; ++k) {
        const x = Number(parts[k]);
        if (!Number.isFinite(x)) fail(`not a finite coordinate: "${parts[k]}"`);
        positions.push(x);
      }
    } else if (line.startsWith('f ') || line.startsWith('f\t')) {
      const parts = line.split(/\s+/).slice(1);
      if (parts.length < 3) fail('a face needs at least 3 vertices');
      const vertexCount = positions.length / 3;
      const corner = parts.map((p) => {
        let i = parseInt(p, 10);  // "7/3/2" -> 7
        if (!Number.isInteger(i) || i === 0) fail(`not a vertex index: "${p}"`);
        i = i > 0 ? i - 1 : vertexCount + i;  // negative indices count back from the last vertex
        if (i < 0 || i >= vertexCount) fail(`vertex index ${p} outside 1..${vertexCount}`);
        return i;
      });
      for (let k = 1; k + 1 < corner.length; ++k) indices.push(corner[0], corner[k], corner[k + 1]);
    }
  }
  if (indices.length === 0) throw new Error(`${name}: no faces`);
  return { positions: new Float32Array(positions), indices: new Uint32Array(indices) };
}
