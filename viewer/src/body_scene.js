// The bodies as one three.js mesh: every body's local vertices merged into a single static
// buffer with a per-vertex body index, and a float texture holding each body's affine map
// [A | p] (three texels) and colour (one texel). The vertex shader computes x = p + A X on the
// GPU, so a frame costs one texture upload of 64 bytes per body and one draw call for all
// bodies. (Instanced meshes would share vertex data between identical bodies, but software
// renderers such as SwiftShader run an instanced draw once per instance, which made 1,000
// instances about three times slower than one merged draw.)
//
// The index buffer is refilled on the CPU for each picture (updateDrawList): bodies outside the
// view are left out, so are triangles that face away from the camera, and while frames are
// animated a body may be drawn with a coarser level of its mesh (mesh_levels.js) when that
// level's distance to the original, projected to the screen, is under a given number of pixels.
// Software renderers (SwiftShader) pay per triangle submitted, culled or not, about 0.2 µs for
// the vertex stage and 0.35 µs more for a drawn one, whatever its size; this is where their time
// goes. The affine maps are still applied on the GPU.
//
// Reduced elastic bodies (docs/elastic.md) place a vertex at x = p + A (X + Phi eta). Their
// local deformed positions X + Phi eta are computed here on the CPU whenever the frame shown
// changes (applyFrame) and only their ranges of the position attribute are uploaded; the affine
// map stays on the GPU like every other body's. Such bodies are few and small, so this costs
// little. They are always drawn at full detail (the levels of detail were measured on the rest
// shape), and their bounding sphere and triangle planes for the view and facing tests are
// recomputed from the deformed positions of the frame.
import * as THREE from 'three';
import { modalOffset, rowOffset } from './frames.js';

const BODIES_PER_ROW = 1024;  // texture rows of 4 * 1024 texels: well inside WebGL2 limits
const CULLED = 255;           // level code of a body outside the view

/** Per triangle of `indices`: unit normal (CCW) and its dot product with the first corner (into `planes`). */
function trianglePlanes(p, indices, planes = new Float32Array((indices.length / 3) * 4)) {
  for (let k = 0, t = 0; k < indices.length; k += 3, t += 4) {
    const i = 3 * indices[k], j = 3 * indices[k + 1], l = 3 * indices[k + 2];
    const ex = p[j] - p[i], ey = p[j + 1] - p[i + 1], ez = p[j + 2] - p[i + 2];
    const fx = p[l] - p[i], fy = p[l + 1] - p[i + 1], fz = p[l + 2] - p[i + 2];
    let nx = ey * fz - ez * fy, ny = ez * fx - ex * fz, nz = ex * fy - ey * fx;
    const length = Math.hypot(nx, ny, nz);
    // A degenerate triangle gets N = 0: never culled here (the GPU draws nothing of it).
    if (length > 0) { nx /= length; ny /= length; nz /= length; }
    planes[t] = nx; planes[t + 1] = ny; planes[t + 2] = nz;
    planes[t + 3] = nx * p[i] + ny * p[i + 1] + nz * p[i + 2];
  }
  return planes;
}

/** Sphere around local positions p: centre of their box (`box`, computed if not given), radius to the farthest. */
function boundingSphere(p, box = new THREE.Box3().setFromArray(p), sphere = { centre: new THREE.Vector3(), radius: 0 }) {
  const centre = box.getCenter(sphere.centre);
  let r2 = 0;
  for (let k = 0; k < p.length; k += 3) {
    const dx = p[k] - centre.x, dy = p[k + 1] - centre.y, dz = p[k + 2] - centre.z;
    r2 = Math.max(r2, dx * dx + dy * dy + dz * dz);
  }
  sphere.radius = Math.sqrt(r2);
  return sphere;
}

/**
 * Largest singular value of the 3x3 matrix A (row-major, a[0..8]): the most a body's local
 * distances are stretched in the world. The largest eigenvalue of the symmetric AᵀA in closed
 * form (Smith, "Eigenvalues of a symmetric 3x3 matrix", CACM 1961).
 */
export function largestStretch(a) {
  // m = AᵀA
  const m00 = a[0] * a[0] + a[3] * a[3] + a[6] * a[6], m11 = a[1] * a[1] + a[4] * a[4] + a[7] * a[7];
  const m22 = a[2] * a[2] + a[5] * a[5] + a[8] * a[8];
  const m01 = a[0] * a[1] + a[3] * a[4] + a[6] * a[7], m02 = a[0] * a[2] + a[3] * a[5] + a[6] * a[8];
  const m12 = a[1] * a[2] + a[4] * a[5] + a[7] * a[8];
  const q = (m00 + m11 + m22) / 3;
  const p1 = m01 * m01 + m02 * m02 + m12 * m12;
  const p2 = (m00 - q) ** 2 + (m11 - q) ** 2 + (m22 - q) ** 2 + 2 * p1;
  if (p2 <= 1e-30 * q * q) return Math.sqrt(Math.max(q, 0));
  const p = Math.sqrt(p2 / 6);
  const b00 = (m00 - q) / p, b11 = (m11 - q) / p, b22 = (m22 - q) / p;
  const b01 = m01 / p, b02 = m02 / p, b12 = m12 / p;
  const r = (b00 * (b11 * b22 - b12 * b12) - b01 * (b01 * b22 - b12 * b02) + b02 * (b01 * b12 - b11 * b02)) / 2;
  const phi = Math.acos(Math.min(1, Math.max(-1, r))) / 3;
  return Math.sqrt(Math.max(q + 2 * p * Math.cos(phi), 0));
}

export class BodyScene {
  /** `output` as returned by loadOutput. */
  constructor(output) {
    this.frames = output.frames;
    this.bodyCount = output.bodies.length;
    this.triangleCount = 0;
    this.localCentroid = new Float32Array(this.bodyCount * 3);
    this.localBounds = [];  // per distinct mesh: Box3 in local coordinates
    this.bodyMesh = output.bodyMesh;

    const meshCentroids = output.meshes.map((m) => {
      const box = new THREE.Box3().setFromArray(m.positions);
      this.localBounds.push(box);
      const c = [0, 0, 0];
      for (let k = 0; k < m.positions.length; k += 3) {
        c[0] += m.positions[k]; c[1] += m.positions[k + 1]; c[2] += m.positions[k + 2];
      }
      return c.map((x) => (x * 3) / m.positions.length);
    });

    // Bounding sphere of each distinct mesh in its local coordinates (for the view test).
    this.meshSphere = output.meshes.map((m, i) => boundingSphere(m.positions, this.localBounds[i]));

    let vertexCount = 0;
    this.vertexStart = new Uint32Array(this.bodyCount);
    for (let b = 0; b < this.bodyCount; ++b) {
      const m = output.meshes[this.bodyMesh[b]];
      this.vertexStart[b] = vertexCount;
      vertexCount += m.positions.length / 3;
      this.triangleCount += m.indices.length / 3;
      this.localCentroid.set(meshCentroids[this.bodyMesh[b]], 3 * b);
    }
    this.wideIndices = vertexCount > 65535;
    const positions = new Float32Array(vertexCount * 3);
    const bodyIndex = new Float32Array(vertexCount);
    for (let b = 0; b < this.bodyCount; ++b) {
      const m = output.meshes[this.bodyMesh[b]];
      positions.set(m.positions, 3 * this.vertexStart[b]);
      bodyIndex.fill(b, this.vertexStart[b], this.vertexStart[b] + m.positions.length / 3);
    }
    // Reduced elastic bodies: output.modes[b] = {count: m, values} (output_loader.js parseModes).
    this.elastic = [];
    this.elasticOf = new Int32Array(this.bodyCount).fill(-1);  // body -> index in this.elastic
    for (let b = 0; b < this.bodyCount; ++b) {
      const modes = output.modes?.[b];
      if (!modes || modes.count === 0) continue;
      const m = output.meshes[this.bodyMesh[b]];
      const count = m.positions.length / 3;
      if (modes.values.length !== 3 * count * modes.count || this.frames.modalCount?.[b] !== modes.count) {
        throw new Error(`body ${b}: its ${modes.count} modes do not match its mesh or its frame rows`);
      }
      // Vertex mean of each mode's displacement: the deformed centroid is X̄ + (mean Phi) eta.
      const meanMode = new Float64Array(3 * modes.count);
      for (let v = 0; v < count; ++v) {
        for (let i = 0; i < 3 * modes.count; ++i) meanMode[i] += modes.values[3 * v * modes.count + i] / count;
      }
      this.elasticOf[b] = this.elastic.length;
      this.elastic.push({
        body: b, start: this.vertexStart[b], count, modes, meanMode, rest: m.positions, indices: m.indices,
        local: positions.subarray(3 * this.vertexStart[b], 3 * (this.vertexStart[b] + count)),
        scratch: new Float32Array(3 * count),
        sphere: { centre: new THREE.Vector3(), radius: 0 },
        levels: [{ indices: m.indices, error: 0, count: m.indices.length, planes: null }],
      });
    }
    const geometry = new THREE.BufferGeometry();
    this.positionAttribute = new THREE.BufferAttribute(positions, 3);
    if (this.elastic.length > 0) this.positionAttribute.setUsage(THREE.DynamicDrawUsage);
    geometry.setAttribute('position', this.positionAttribute);
    geometry.setAttribute('bodyIndex', new THREE.BufferAttribute(bodyIndex, 1));
    // The index buffer drawn: at most every body at full detail; rebuilt by updateDrawList.
    const IndexArray = this.wideIndices ? Uint32Array : Uint16Array;
    this.drawIndices = new IndexArray(Math.max(3, 3 * this.triangleCount));
    this.indexAttribute = new THREE.BufferAttribute(this.drawIndices, 1).setUsage(THREE.DynamicDrawUsage);
    geometry.setIndex(this.indexAttribute);
    this.geometry = geometry;
    this.drawnLevel = new Uint8Array(this.bodyCount);  // per body: level drawn last, or CULLED
    this.drawnTriangles = 0;
    this.coarse = false;  // whether the last draw list had any body at a coarser level than 0
    this.meshPositions = output.meshes.map((m) => m.positions);
    this.setLevels(output.meshes.map((m) => [{ indices: m.indices, error: 0 }]));
    for (const e of this.elastic) this.updateElasticShape(e);  // the rest shape until applyFrame
    // Until the first updateDrawList: every body at full detail.
    for (let b = 0, n = 0; b < this.bodyCount; ++b) {
      const { indices } = output.meshes[this.bodyMesh[b]];
      for (let k = 0; k < indices.length; ++k) this.drawIndices[n++] = indices[k] + this.vertexStart[b];
    }

    // At least one texel row, so that a run without bodies still makes a valid texture.
    const columns = Math.max(1, Math.min(this.bodyCount, BODIES_PER_ROW));
    const rows = Math.max(1, Math.ceil(this.bodyCount / BODIES_PER_ROW));
    this.texels = new Float32Array(4 * columns * rows * 4);
    this.texture = new THREE.DataTexture(this.texels, 4 * columns, rows, THREE.RGBAFormat, THREE.FloatType);
    this.texture.minFilter = this.texture.magFilter = THREE.NearestFilter;
    this.texture.generateMipmaps = false;

    // A deliberately small shader: the per-vertex and per-pixel work is what a software
    // renderer pays for. Flat shading from screen-space derivatives needs no normals; the light
    // is the one `concord render` uses (ambient 0.35 + 0.65 |n . L|, L fixed to the camera), and
    // colours stay in display (sRGB) values so that both programs show the same colours.
    this.material = new THREE.ShaderMaterial({
      uniforms: { bodyTexture: { value: this.texture } },
      vertexShader: `
attribute float bodyIndex;
uniform highp sampler2D bodyTexture;
varying vec3 vViewPosition;
varying vec3 vColour;
void main() {
  int body = int(bodyIndex + 0.5);
  ivec2 texel = ivec2((body % ${BODIES_PER_ROW}) * 4, body / ${BODIES_PER_ROW});
  vec4 row0 = texelFetch(bodyTexture, texel, 0);
  vec4 row1 = texelFetch(bodyTexture, texel + ivec2(1, 0), 0);
  vec4 row2 = texelFetch(bodyTexture, texel + ivec2(2, 0), 0);
  vColour = texelFetch(bodyTexture, texel + ivec2(3, 0), 0).rgb;
  vec3 world = vec3(dot(row0.xyz, position) + row0.w,
                    dot(row1.xyz, position) + row1.w,
                    dot(row2.xyz, position) + row2.w);
  vec4 view = viewMatrix * vec4(world, 1.0);
  vViewPosition = view.xyz;
  gl_Position = projectionMatrix * view;
}`,
      fragmentShader: `
varying vec3 vViewPosition;
varying vec3 vColour;
void main() {
  vec3 n = normalize(cross(dFdx(vViewPosition), dFdy(vViewPosition)));
  float light = 0.35 + 0.65 * abs(dot(n, normalize(vec3(0.5, 1.0, 0.8))));
  gl_FragColor = vec4(vColour * light, 1.0);
}`,
    });

    this.mesh = new THREE.Mesh(geometry, this.material);
    // Bodies move every frame; updateDrawList culls them one by one instead.
    this.mesh.frustumCulled = false;
    this.group = new THREE.Group();
    this.group.add(this.mesh);
  }

  /**
   * Sets the levels of detail: levels[m] lists distinct mesh m's levels as buildLevels returns
   * them (level 0 the mesh itself), indices local to the mesh. Each level keeps the plane of
   * each of its triangles (unit normal N and N . V0, local coordinates) for the facing test.
   */
  setLevels(levels) {
    this.meshLevels = levels.map((list, m) => list.map((l) => ({
      indices: l.indices, error: l.error, count: l.indices.length,
      planes: trianglePlanes(this.meshPositions[m], l.indices),
    })));
  }

  /**
   * Chooses what to draw for the frame last applied, seen by `camera` into a drawing buffer
   * `bufferHeight` pixels high, and fills the index buffer with it:
   * - bodies whose bounding sphere is outside the view are left out;
   * - each other body gets its coarsest level whose error, projected at the body's nearest
   *   point, stays under `pixels` (0: full detail);
   * - of that level, only the triangles that face the camera: the GPU would cull the others
   *   anyway (the material draws front faces only), but a software renderer pays for each
   *   culled triangle almost as much as for a drawn one. The test is exact for an affine map:
   *   a triangle faces the eye e when the tetrahedron (V0, V1, V2, e) is positively oriented,
   *   and x = p + A X scales that orientation by det A, so in local coordinates it is
   *   N . adj(A) (e - p) - det(A) (N . V0) > 0, without inverting A.
   * Returns the number of triangles to draw.
   */
  updateDrawList(camera, bufferHeight, pixels) {
    const q = this.frames.q, f = this.frameIndex ?? 0;
    const frustum = this.frustum || (this.frustum = new THREE.Frustum());
    const viewProjection = (this.viewProjection || (this.viewProjection = new THREE.Matrix4()))
      .multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
    frustum.setFromProjectionMatrix(viewProjection);
    const eye = camera.getWorldPosition(this.eye || (this.eye = new THREE.Vector3()));
    const forward = camera.getWorldDirection(this.forward || (this.forward = new THREE.Vector3()));
    // Pixels per world unit at depth 1, and where the eye is (a perspective camera; another
    // gets full detail and every triangle).
    const perspective = camera.isPerspectiveCamera === true;
    const perUnit = perspective
      ? (bufferHeight * camera.zoom) / (2 * Math.tan(THREE.MathUtils.degToRad(camera.fov) / 2)) : 0;
    const sphere = this.sphere || (this.sphere = new THREE.Sphere());
    const toCentre = this.toCentre || (this.toCentre = new THREE.Vector3());
    const a = this.matrixA || (this.matrixA = new Float64Array(9));
    const out = this.drawIndices;
    let n = 0, coarse = false;
    for (let b = 0; b < this.bodyCount; ++b) {
      const o = rowOffset(this.frames, f, b);
      for (let k = 0; k < 9; ++k) a[k] = q[o + 3 + k];
      const e = this.elasticOf[b] >= 0 ? this.elastic[this.elasticOf[b]] : null;
      const { centre: c, radius } = e ? e.sphere : this.meshSphere[this.bodyMesh[b]];
      const stretch = largestStretch(a);
      sphere.center.set(q[o] + a[0] * c.x + a[1] * c.y + a[2] * c.z,
                        q[o + 1] + a[3] * c.x + a[4] * c.y + a[5] * c.z,
                        q[o + 2] + a[6] * c.x + a[7] * c.y + a[8] * c.z);
      sphere.radius = stretch * radius;
      if (!frustum.intersectsSphere(sphere)) {
        this.drawnLevel[b] = CULLED;
        continue;
      }
      const levels = e ? e.levels : this.meshLevels[this.bodyMesh[b]];  // an elastic body: full detail only
      let level = 0;
      if (pixels > 0 && perUnit > 0) {
        const nearest = toCentre.subVectors(sphere.center, eye).dot(forward) - sphere.radius;
        if (nearest > camera.near) {
          const limit = (pixels * nearest) / (perUnit * Math.max(stretch, 1e-12));  // allowed local error
          while (level + 1 < levels.length && levels[level + 1].error <= limit) ++level;
        }
      }
      this.drawnLevel[b] = level;
      coarse ||= level > 0;
      const { indices, planes, count } = levels[level];
      const base = this.vertexStart[b];
      if (!perspective) {
        for (let k = 0; k < count; ++k) out[n + k] = indices[k] + base;
        n += count;
        continue;
      }
      // u = adj(A) (e - p), det = det(A): the facing test's terms (see above).
      const wx = eye.x - q[o], wy = eye.y - q[o + 1], wz = eye.z - q[o + 2];
      const c00 = a[4] * a[8] - a[5] * a[7], c01 = a[2] * a[7] - a[1] * a[8], c02 = a[1] * a[5] - a[2] * a[4];
      const c10 = a[5] * a[6] - a[3] * a[8], c11 = a[0] * a[8] - a[2] * a[6], c12 = a[2] * a[3] - a[0] * a[5];
      const c20 = a[3] * a[7] - a[4] * a[6], c21 = a[1] * a[6] - a[0] * a[7], c22 = a[0] * a[4] - a[1] * a[3];
      const ux = c00 * wx + c01 * wy + c02 * wz, uy = c10 * wx + c11 * wy + c12 * wz, uz = c20 * wx + c21 * wy + c22 * wz;
      const det = a[0] * c00 + a[1] * c10 + a[2] * c20;
      // Triangles within about half a degree of edge-on are left to the GPU: it decides on
      // vertices snapped to its sub-pixel grid, and a thin one seen nearly edge-on can come out
      // drawn (the funnel scene's picture had 2 pixels differ with 1e-3 here, none with 1e-2).
      const slack = 1e-2 * (Math.abs(ux) + Math.abs(uy) + Math.abs(uz) +
        Math.abs(det) * (Math.abs(c.x) + Math.abs(c.y) + Math.abs(c.z) + radius));
      for (let t = 0, k = 0; k < count; k += 3, t += 4) {
        if (planes[t] * ux + planes[t + 1] * uy + planes[t + 2] * uz - det * planes[t + 3] < -slack) continue;
        out[n] = indices[k] + base;
        out[n + 1] = indices[k + 1] + base;
        out[n + 2] = indices[k + 2] + base;
        n += 3;
      }
    }
    this.coarse = coarse;
    this.drawnTriangles = n / 3;
    this.indexAttribute.clearUpdateRanges();
    this.indexAttribute.addUpdateRange(0, Math.max(n, 1));
    this.indexAttribute.needsUpdate = true;
    this.geometry.setDrawRange(0, n);
    return this.drawnTriangles;
  }

  /** Writes every body's [A | p] rows from frame f into the texture. */
  applyFrame(f) {
    this.frameIndex = f;
    const q = this.frames.q;
    const t = this.texels;
    for (let b = 0; b < this.bodyCount; ++b) {
      const o = rowOffset(this.frames, f, b);
      const d = 16 * b;  // four RGBA texels per body, bodies laid out row by row
      t[d] = q[o + 3]; t[d + 1] = q[o + 4]; t[d + 2] = q[o + 5]; t[d + 3] = q[o];
      t[d + 4] = q[o + 6]; t[d + 5] = q[o + 7]; t[d + 6] = q[o + 8]; t[d + 7] = q[o + 1];
      t[d + 8] = q[o + 9]; t[d + 9] = q[o + 10]; t[d + 10] = q[o + 11]; t[d + 11] = q[o + 2];
    }
    this.texture.needsUpdate = true;
    if (this.elastic.length === 0) return;
    // Elastic bodies: their deformed local positions, uploaded range by range.
    const attribute = this.positionAttribute;
    attribute.clearUpdateRanges();
    for (const e of this.elastic) {
      this.deformedLocal(e, f, e.local);
      this.updateElasticShape(e);
      attribute.addUpdateRange(3 * e.start, 3 * e.count);
    }
    attribute.needsUpdate = true;
  }

  /** Elastic body e's local deformed positions X + Phi eta in frame f, into out (3 per vertex). */
  deformedLocal(e, f, out) {
    const { rest, count } = e;
    const m = e.modes.count, phi = e.modes.values;
    const eta = this.frames.modal, o = modalOffset(this.frames, f, e.body);
    for (let r = 0, j = 0; r < 3 * count; ++r) {
      let x = rest[r];
      for (let k = 0; k < m; ++k, ++j) x += phi[j] * eta[o + k];
      out[r] = x;
    }
    return out;
  }

  /** Bounding sphere and triangle planes of elastic body e from its current local positions. */
  updateElasticShape(e) {
    boundingSphere(e.local, undefined, e.sphere);
    e.levels[0].planes = trianglePlanes(e.local, e.indices, e.levels[0].planes ?? undefined);
  }

  /** colours: Float32Array of bodyCount * 3 RGB values in [0, 1]. */
  setColours(colours) {
    const t = this.texels;
    for (let b = 0; b < this.bodyCount; ++b) {
      t[16 * b + 12] = colours[3 * b];
      t[16 * b + 13] = colours[3 * b + 1];
      t[16 * b + 14] = colours[3 * b + 2];
      t[16 * b + 15] = 1;
    }
    this.texture.needsUpdate = true;
  }

  /**
   * World positions of body b's vertices as they are sent to the GPU now (position attribute
   * mapped by the texture's [A | p]): 3 numbers per vertex. For scripts and tests.
   */
  drawnVertices(b) {
    const p = this.positionAttribute.array, t = this.texels, d = 16 * b;
    const end = b + 1 < this.bodyCount ? this.vertexStart[b + 1] : p.length / 3;
    const out = [];
    for (let v = this.vertexStart[b]; v < end; ++v) {
      const x = p[3 * v], y = p[3 * v + 1], z = p[3 * v + 2];
      out.push(t[d] * x + t[d + 1] * y + t[d + 2] * z + t[d + 3],
               t[d + 4] * x + t[d + 5] * y + t[d + 6] * z + t[d + 7],
               t[d + 8] * x + t[d + 9] * y + t[d + 10] * z + t[d + 11]);
    }
    return out;
  }

  /** World position of body b's vertex centroid in frame f, into out (Vector3). */
  centroid(f, b, out) {
    const q = this.frames.q;
    const o = rowOffset(this.frames, f, b);
    const c = this.localCentroid;
    let x = c[3 * b], y = c[3 * b + 1], z = c[3 * b + 2];
    if (this.elasticOf[b] >= 0) {  // plus the mean displacement of the vertices, (mean Phi) eta
      const { modes: { count: m }, meanMode } = this.elastic[this.elasticOf[b]];
      const eta = this.frames.modal, e0 = modalOffset(this.frames, f, b);
      for (let k = 0; k < m; ++k) {
        x += meanMode[k] * eta[e0 + k]; y += meanMode[m + k] * eta[e0 + k]; z += meanMode[2 * m + k] * eta[e0 + k];
      }
    }
    return out.set(q[o] + q[o + 3] * x + q[o + 4] * y + q[o + 5] * z,
                   q[o + 1] + q[o + 6] * x + q[o + 7] * y + q[o + 8] * z,
                   q[o + 2] + q[o + 9] * x + q[o + 10] * y + q[o + 11] * z);
  }

  /** World box around every body in frame f (the local boxes' corners mapped; elastic bodies deformed). */
  bounds(f, box = new THREE.Box3()) {
    const corner = new THREE.Vector3();
    const deformedBox = new THREE.Box3();
    const q = this.frames.q;
    for (let b = 0; b < this.bodyCount; ++b) {
      const e = this.elasticOf[b] >= 0 ? this.elastic[this.elasticOf[b]] : null;
      const lb = e ? deformedBox.setFromArray(this.deformedLocal(e, f, e.scratch)) : this.localBounds[this.bodyMesh[b]];
      const o = rowOffset(this.frames, f, b);
      for (let k = 0; k < 8; ++k) {
        const x = k & 1 ? lb.max.x : lb.min.x, y = k & 2 ? lb.max.y : lb.min.y, z = k & 4 ? lb.max.z : lb.min.z;
        corner.set(q[o] + q[o + 3] * x + q[o + 4] * y + q[o + 5] * z,
                   q[o + 1] + q[o + 6] * x + q[o + 7] * y + q[o + 8] * z,
                   q[o + 2] + q[o + 9] * x + q[o + 10] * y + q[o + 11] * z);
        box.expandByPoint(corner);
      }
    }
    return box;
  }
}
