// The fluid's particles (scenes with `fluids`, docs/fluids.md): each saved frame's
// fluid/NNNNNN.npy, fetched when the frame is shown, drawn as shaded round points of the
// particle radius and coloured by speed like `concord render` (src/concord/export/palette.cpp).
import * as THREE from 'three';

import { fluidColour } from './palette.js';

/**
 * A NumPy .npy file (format 1.0 or 2.0) of a little-endian float32, C-order, 2-d array:
 * {rows, cols, data: Float32Array}. Throws Error naming `name` for anything else.
 */
export function parseNpy(buffer, name) {
  const bytes = new Uint8Array(buffer);
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];  // \x93NUMPY
  if (bytes.length < 10 || magic.some((b, i) => bytes[i] !== b)) throw new Error(`${name}: not a .npy file`);
  const view = new DataView(buffer);
  const major = bytes[6];
  if (major !== 1 && major !== 2) throw new Error(`${name}: .npy format version ${major} is not supported`);
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const start = major === 1 ? 10 : 12;
  if (start + headerLength > bytes.length) throw new Error(`${name}: truncated header`);
  const header = new TextDecoder('latin1').decode(bytes.subarray(start, start + headerLength));
  const descr = /'descr':\s*'([^']*)'/.exec(header);
  const order = /'fortran_order':\s*(True|False)/.exec(header);
  const shape = /'shape':\s*\(\s*(\d+)\s*,\s*(\d+)\s*,?\s*\)/.exec(header);
  if (!descr || descr[1] !== '<f4') throw new Error(`${name}: expected little-endian float32 ('<f4')`);
  if (!order || order[1] !== 'False') throw new Error(`${name}: expected C order`);
  if (!shape) throw new Error(`${name}: expected a 2-d shape`);
  const rows = Number(shape[1]), cols = Number(shape[2]);
  const offset = start + headerLength;
  if (buffer.byteLength - offset !== rows * cols * 4) {
    throw new Error(`${name}: expected ${rows * cols * 4} data bytes, got ${buffer.byteLength - offset}`);
  }
  // Copy: the data offset need not be 4-byte aligned in every file numpy writes.
  const data = new Float32Array(buffer.slice(offset));
  return { rows, cols, data };
}

/** "fluid/NNNNNN.npy": six digits or more, as src/concord/io/run_resume.cpp names them. */
export function fluidPath(frame) {
  return `fluid/${String(frame).padStart(6, '0')}.npy`;
}

const vertexShader = `
  attribute vec3 color;
  uniform float pointScale;  // drawing-buffer pixels per unit of size / depth
  uniform float radius;
  varying vec3 vColour;
  void main() {
    vec4 mv = modelViewMatrix * vec4(position, 1.0);
    gl_Position = projectionMatrix * mv;
    gl_PointSize = max(1.0, 2.0 * radius * pointScale / -mv.z);
    vColour = color;
  }`;

// A sphere's shading on a round point: the viewer's key light, ambient 0.35 (as `concord render`).
const fragmentShader = `
  varying vec3 vColour;
  void main() {
    vec2 d = gl_PointCoord * 2.0 - 1.0;
    float d2 = dot(d, d);
    if (d2 > 1.0) discard;
    vec3 n = vec3(d.x, -d.y, sqrt(1.0 - d2));
    float lit = 0.35 + 0.65 * max(0.0, dot(n, normalize(vec3(0.5, 1.0, 0.8))));
    gl_FragColor = vec4(vColour * lit, 1.0);
  }`;

/**
 * The fluid of a run: `show(frameNumber)` fetches that frame's particles (a few recent frames
 * are cached) and redraws through `onChange`. `enabled` is false for runs without a fluid.
 */
export class FluidPoints {
  constructor(base, scene, onChange) {
    const blocks = Array.isArray(scene.fluids) ? scene.fluids : [];
    this.base = base;
    this.radius = blocks.length > 0 && Number(blocks[0].particle_radius) > 0 ? Number(blocks[0].particle_radius) : 0;
    this.enabled = this.radius > 0;
    const g = Array.isArray(scene.gravity) ? new THREE.Vector3(...scene.gravity) : new THREE.Vector3();
    this.gravity = g.length() > 0 ? g.length() : 9.81;
    this.up = g.lengthSq() > 0 ? g.clone().negate().normalize() : new THREE.Vector3(0, 1, 0);
    this.speedScale = null;  // set by init()
    this.firstCount = 0;     // particles in the first frame (init)
    this.firstBounds = new THREE.Box3();  // their box (init)
    this.onChange = onChange;
    this.cache = new Map();  // frame number -> Promise of the parsed file
    this.shownFrame = null;  // the frame whose particles are drawn now
    this.wanted = null;      // the frame asked for last
    this.count = 0;
    this.error = null;
    this.geometry = new THREE.BufferGeometry();
    this.material = new THREE.ShaderMaterial({
      vertexShader, fragmentShader,
      uniforms: { pointScale: { value: 1 }, radius: { value: this.radius } },
    });
    this.points = new THREE.Points(this.geometry, this.material);
    this.points.frustumCulled = false;
    this.points.visible = this.enabled;
  }

  /** Fetches (or takes from the cache) one frame's file. */
  load(frame) {
    if (!this.cache.has(frame)) {
      const name = fluidPath(frame);
      this.cache.set(frame, fetch(this.base + name).then(async (response) => {
        if (!response.ok) throw new Error(`${name}: ${response.status} ${response.statusText || 'error'}`);
        const npy = parseNpy(await response.arrayBuffer(), name);
        if (npy.cols !== 5) throw new Error(`${name}: expected 5 columns (x, y, z, speed, pressure), got ${npy.cols}`);
        return npy;
      }));
      // Keep the last few frames: playing forwards reads each file once.
      if (this.cache.size > 8) this.cache.delete(this.cache.keys().next().value);
    }
    return this.cache.get(frame);
  }

  /**
   * Reads the first saved frame's particles and sets the colour scale from them: the speed of a
   * fall from the top of the water, sqrt(2 |g| h), h the fluid's height along up (as `concord
   * render`). Throws Error with a one-line message when the file is missing or malformed.
   */
  async init(firstFrame) {
    if (!this.enabled) return;
    const npy = await this.load(firstFrame);
    let low = Infinity, high = -Infinity;
    const p = new THREE.Vector3();
    for (let i = 0; i < npy.rows; ++i) {
      const d = npy.data;
      this.firstBounds.expandByPoint(p.set(d[5 * i], d[5 * i + 1], d[5 * i + 2]));
      const h = d[5 * i] * this.up.x + d[5 * i + 1] * this.up.y + d[5 * i + 2] * this.up.z;
      low = Math.min(low, h);
      high = Math.max(high, h);
    }
    this.speedScale = high > low ? Math.sqrt(2 * this.gravity * (high - low)) : 1;
    this.firstCount = npy.rows;
  }

  /** Draws frame `frame`'s particles when they arrive (the last request wins). */
  async show(frame) {
    if (!this.enabled) return;
    this.wanted = frame;
    let npy;
    try {
      npy = await this.load(frame);
    } catch (e) {
      this.cache.delete(frame);
      this.error = e.message || String(e);
      this.onChange(this.error);
      return;
    }
    if (this.wanted !== frame) return;
    this.upload(npy);
    this.shownFrame = frame;
    this.error = null;
    this.onChange(null);
  }

  upload(npy) {
    const n = npy.rows, d = npy.data;
    const positions = new Float32Array(3 * n), colours = new Float32Array(3 * n);
    const scale = this.speedScale || 1;
    for (let i = 0; i < n; ++i) {
      positions.set(d.subarray(5 * i, 5 * i + 3), 3 * i);
      colours.set(fluidColour(d[5 * i + 3] / scale), 3 * i);
    }
    this.geometry.setAttribute('position', new THREE.BufferAttribute(positions, 3));
    this.geometry.setAttribute('color', new THREE.BufferAttribute(colours, 3));
    this.geometry.setDrawRange(0, n);
    this.count = n;
  }

  /** Before each render: the point size for this camera and drawing buffer. */
  prepare(camera, bufferHeight) {
    this.material.uniforms.pointScale.value = 0.5 * bufferHeight * camera.projectionMatrix.elements[5];
  }

  /** World positions and colours drawn now (3 numbers each per particle), for tests. */
  describe() {
    const p = this.geometry.getAttribute('position'), c = this.geometry.getAttribute('color');
    return {
      frame: this.shownFrame, count: this.count, radius: this.radius, speedScale: this.speedScale, error: this.error,
      positions: p ? Array.from(p.array.subarray(0, 3 * this.count)) : [],
      colours: c ? Array.from(c.array.subarray(0, 3 * this.count)) : [],
    };
  }
}
