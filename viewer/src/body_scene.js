// The bodies as one three.js mesh: every body's local vertices merged into a single static
// buffer with a per-vertex body index, and a float texture holding each body's affine map
// [A | p] (three texels) and colour (one texel). The vertex shader computes x = p + A X on the
// GPU, so a frame costs one texture upload of 64 bytes per body and one draw call for all
// bodies. (Instanced meshes would share vertex data between identical bodies, but software
// renderers such as SwiftShader run an instanced draw once per instance, which made 1,000
// instances about three times slower than one merged draw.)
import * as THREE from 'three';
import { rowOffset } from './frames.js';

const BODIES_PER_ROW = 1024;  // texture rows of 4 * 1024 texels: well inside WebGL2 limits

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

    let vertexCount = 0, indexCount = 0;
    for (let b = 0; b < this.bodyCount; ++b) {
      const m = output.meshes[this.bodyMesh[b]];
      vertexCount += m.positions.length / 3;
      indexCount += m.indices.length;
      this.localCentroid.set(meshCentroids[this.bodyMesh[b]], 3 * b);
    }
    this.triangleCount = indexCount / 3;
    const positions = new Float32Array(vertexCount * 3);
    const bodyIndex = new Float32Array(vertexCount);
    const indices = vertexCount > 65535 ? new Uint32Array(indexCount) : new Uint16Array(indexCount);
    let v = 0, i = 0;
    for (let b = 0; b < this.bodyCount; ++b) {
      const m = output.meshes[this.bodyMesh[b]];
      positions.set(m.positions, 3 * v);
      bodyIndex.fill(b, v, v + m.positions.length / 3);
      for (let k = 0; k < m.indices.length; ++k) indices[i + k] = m.indices[k] + v;
      v += m.positions.length / 3;
      i += m.indices.length;
    }
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(positions, 3));
    geometry.setAttribute('bodyIndex', new THREE.BufferAttribute(bodyIndex, 1));
    geometry.setIndex(new THREE.BufferAttribute(indices, 1));

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
    // Bodies move every frame; a bounding sphere of the local vertices would cull them wrongly.
    this.mesh.frustumCulled = false;
    this.group = new THREE.Group();
    this.group.add(this.mesh);
  }

  /** Writes every body's [A | p] rows from frame f into the texture. */
  applyFrame(f) {
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
