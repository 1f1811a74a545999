// The bodies as one three.js mesh: every body's local vertices merged into a single static
// buffer with a per-vertex body index, and a float texture holding each body's affine map
// [A | p] (three texels) and colour (one texel). The vertex shader computes x = p + A X on the
// GPU, so a frame costs one texture upload of 64 bytes per body and one draw call for all
// bodies. (Instanced meshes would share vertex data between identical bodies, but software
// renderers such as SwiftShader run an instanced draw once per instance, which made 1,000
// instances about three times slower than one merged draw.)
//
// The index buffer is rebuilt on the CPU when the set of triangles to draw changes: bodies whose
// bounding sphere is outside the view are left out, and while frames are animated a body may be
// drawn with a coarser level of its mesh (mesh_levels.js) when that level's distance to the
// original, projected to the screen, is under a given number of pixels. Software renderers
// (SwiftShader) pay about 0.5 µs per triangle drawn whatever its size, so this is where their
// time goes; the transforms stay on the GPU.
import * as THREE from 'three';
import { rowOffset } from './frames.js';

const BODIES_PER_ROW = 1024;  // texture rows of 4 * 1024 texels: well inside WebGL2 limits
const CULLED = 255;           // level code of a body outside the view

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
    this.meshSphere = output.meshes.map((m, i) => {
      const centre = this.localBounds[i].getCenter(new THREE.Vector3());
      let r2 = 0;
      for (let k = 0; k < m.positions.length; k += 3) {
        const dx = m.positions[k] - centre.x, dy = m.positions[k + 1] - centre.y, dz = m.positions[k + 2] - centre.z;
        r2 = Math.max(r2, dx * dx + dy * dy + dz * dz);
      }
      return { centre, radius: Math.sqrt(r2) };
    });

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
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(positions, 3));
    geometry.setAttribute('bodyIndex', new THREE.BufferAttribute(bodyIndex, 1));
    // The index buffer drawn: at most every body at full detail; rebuilt by updateDrawList.
    const IndexArray = this.wideIndices ? Uint32Array : Uint16Array;
    this.drawIndices = new IndexArray(Math.max(3, 3 * this.triangleCount));
    this.indexAttribute = new THREE.BufferAttribute(this.drawIndices, 1).setUsage(THREE.DynamicDrawUsage);
    geometry.setIndex(this.indexAttribute);
    this.geometry = geometry;
    this.drawnLevel = new Uint8Array(this.bodyCount);   // per body: level in the index buffer, or CULLED
    this.wantedLevel = new Uint8Array(this.bodyCount);  // scratch of updateDrawList
    this.drawnTriangles = 0;
    this.coarse = false;  // whether the index buffer has any body at a coarser level than 0
    this.setLevels(output.meshes.map((m) => [{ indices: m.indices, error: 0 }]));
    this.rebuildIndices();

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
   * them (level 0 the mesh itself). Each body's levels are stored with its vertex offset added,
   * one after the other, so that a draw list is made of plain copies.
   */
  setLevels(levels) {
    this.meshLevels = levels.map((list) => list.map((l) => ({ count: l.indices.length, error: l.error })));
    let total = 0;
    for (let b = 0; b < this.bodyCount; ++b) for (const l of levels[this.bodyMesh[b]]) total += l.indices.length;
    this.allIndices = new (this.wideIndices ? Uint32Array : Uint16Array)(total);
    this.levelStart = new Uint32Array(this.bodyCount + 1);  // body b's level 0 starts here
    let at = 0;
    for (let b = 0; b < this.bodyCount; ++b) {
      this.levelStart[b] = at;
      const base = this.vertexStart[b];
      for (const l of levels[this.bodyMesh[b]]) {
        for (let k = 0; k < l.indices.length; ++k) this.allIndices[at + k] = l.indices[k] + base;
        at += l.indices.length;
      }
    }
    this.levelStart[this.bodyCount] = at;
    this.stale = true;  // the next updateDrawList rebuilds the index buffer
  }

  /** Number of levels of detail available for body b. */
  levelCount(b) { return this.meshLevels[this.bodyMesh[b]].length; }

  /**
   * Chooses what to draw for the frame last applied, seen by `camera` into a drawing buffer
   * `bufferHeight` pixels high: bodies whose bounding sphere is outside the view are left out;
   * each other body gets its coarsest level whose error, projected at the body's nearest
   * point, stays under `pixels` (0: full detail). Rebuilds the index buffer only when a choice
   * changed. Returns the number of triangles to draw.
   */
  updateDrawList(camera, bufferHeight, pixels) {
    const q = this.frames.q, f = this.frameIndex ?? 0;
    const frustum = this.frustum || (this.frustum = new THREE.Frustum());
    const viewProjection = (this.viewProjection || (this.viewProjection = new THREE.Matrix4()))
      .multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
    frustum.setFromProjectionMatrix(viewProjection);
    const eye = camera.getWorldPosition(this.eye || (this.eye = new THREE.Vector3()));
    const forward = camera.getWorldDirection(this.forward || (this.forward = new THREE.Vector3()));
    // Pixels per world unit at depth 1 (a perspective camera; others get full detail).
    const perUnit = camera.isPerspectiveCamera
      ? bufferHeight / (2 * Math.tan(THREE.MathUtils.degToRad(camera.fov) / 2) / camera.zoom) : 0;
    const sphere = this.sphere || (this.sphere = new THREE.Sphere());
    const toCentre = this.toCentre || (this.toCentre = new THREE.Vector3());
    const a = this.matrixA || (this.matrixA = new Float64Array(9));
    let changed = false;
    for (let b = 0; b < this.bodyCount; ++b) {
      const o = rowOffset(this.frames, f, b);
      for (let k = 0; k < 9; ++k) a[k] = q[o + 3 + k];
      const { centre: c, radius } = this.meshSphere[this.bodyMesh[b]];
      const stretch = largestStretch(a);
      sphere.center.set(q[o] + a[0] * c.x + a[1] * c.y + a[2] * c.z,
                        q[o + 1] + a[3] * c.x + a[4] * c.y + a[5] * c.z,
                        q[o + 2] + a[6] * c.x + a[7] * c.y + a[8] * c.z);
      sphere.radius = stretch * radius;
      let level = 0;
      if (!frustum.intersectsSphere(sphere)) {
        level = CULLED;
      } else if (pixels > 0 && perUnit > 0) {
        const nearest = toCentre.subVectors(sphere.center, eye).dot(forward) - sphere.radius;
        const levels = this.meshLevels[this.bodyMesh[b]];
        if (nearest > camera.near) {
          const limit = (pixels * nearest) / (perUnit * Math.max(stretch, 1e-12));  // allowed local error
          while (level + 1 < levels.length && levels[level + 1].error <= limit) ++level;
        }
      }
      this.wantedLevel[b] = level;
      if (level !== this.drawnLevel[b]) changed = true;
    }
    if (changed || this.stale) this.rebuildIndices();
    return this.drawnTriangles;
  }

  /** Copies each body's wanted level (wantedLevel) into the index buffer and marks it for upload. */
  rebuildIndices() {
    this.stale = false;
    let n = 0;
    let coarse = false;
    for (let b = 0; b < this.bodyCount; ++b) {
      const level = this.wantedLevel[b];
      this.drawnLevel[b] = level;
      if (level === CULLED) continue;
      coarse ||= level > 0;
      const levels = this.meshLevels[this.bodyMesh[b]];
      let start = this.levelStart[b];
      for (let l = 0; l < level; ++l) start += levels[l].count;
      const count = levels[level].count;
      this.drawIndices.set(this.allIndices.subarray(start, start + count), n);
      n += count;
    }
    this.coarse = coarse;
    this.drawnTriangles = n / 3;
    this.indexAttribute.clearUpdateRanges();
    this.indexAttribute.addUpdateRange(0, Math.max(n, 1));
    this.indexAttribute.needsUpdate = true;
    this.geometry.setDrawRange(0, n);
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

  /** World position of body b's vertex centroid in frame f, into out (Vector3). */
  centroid(f, b, out) {
    const q = this.frames.q;
    const o = rowOffset(this.frames, f, b);
    const c = this.localCentroid;
    const x = c[3 * b], y = c[3 * b + 1], z = c[3 * b + 2];
    return out.set(q[o] + q[o + 3] * x + q[o + 4] * y + q[o + 5] * z,
                   q[o + 1] + q[o + 6] * x + q[o + 7] * y + q[o + 8] * z,
                   q[o + 2] + q[o + 9] * x + q[o + 10] * y + q[o + 11] * z);
  }

  /** World box around every body in frame f (the local boxes' corners mapped). */
  bounds(f, box = new THREE.Box3()) {
    const corner = new THREE.Vector3();
    const q = this.frames.q;
    for (let b = 0; b < this.bodyCount; ++b) {
      const lb = this.localBounds[this.bodyMesh[b]];
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
