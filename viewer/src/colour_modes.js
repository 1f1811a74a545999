// Per-body colours for a frame in each colouring mode (formulas in docs/viewer.md, shared with
// `concord render`).
import * as THREE from 'three';
import { bodyColour, rampColour, workerColour } from './palette.js';

export class ColourModes {
  constructor(bodyScene, frames) {
    this.scene = bodyScene;
    this.frames = frames;
    this.n = bodyScene.bodyCount;
    this.buffer = new Float32Array(this.n * 3);
    this.bodyColours = new Float32Array(this.n * 3);
    for (let b = 0; b < this.n; ++b) this.bodyColours.set(bodyColour(b), 3 * b);
    this.speeds = null;
    this.maxSpeed = 0;
    this.maxContacts = 0;
    if (frames.bodyContacts) for (const c of frames.bodyContacts) this.maxContacts = Math.max(this.maxContacts, c);
  }

  /** Whether the run carries the data a mode needs; otherwise the note says what is missing. */
  availability(mode) {
    if (mode === 'worker' && !this.frames.workers) {
      return 'not a distributed run (no stats.owners): showing body colours';
    }
    if (mode === 'contacts' && !this.frames.bodyContacts) {
      return 'no per-body contact counts in this run (stats.body_contacts): showing body colours';
    }
    if (mode === 'speed' && this.frames.count < 2) return 'speed needs two frames: showing body colours';
    return null;
  }

  /** Centroid speed of every body in every frame: backward differences, frame 0 forward. */
  computeSpeeds() {
    const { count, times } = this.frames;
    this.speeds = new Float32Array(count * this.n);
    const a = new THREE.Vector3(), b = new THREE.Vector3();
    for (let f = 1; f < count; ++f) {
      const dt = times[f] - times[f - 1];
      for (let i = 0; i < this.n; ++i) {
        this.scene.centroid(f, i, a);
        this.scene.centroid(f - 1, i, b);
        const v = dt > 0 ? a.distanceTo(b) / dt : 0;
        this.speeds[f * this.n + i] = v;
        this.maxSpeed = Math.max(this.maxSpeed, v);
      }
    }
    if (count > 1) this.speeds.copyWithin(0, this.n, 2 * this.n);
  }

  /** RGB per body for frame f; returns a Float32Array of n * 3 (reused between calls). */
  colours(mode, f) {
    if (this.availability(mode)) mode = 'body';
    if (mode === 'body') return this.bodyColours;
    const out = this.buffer;
    for (let i = 0; i < this.n; ++i) {
      let c;
      if (mode === 'worker') c = workerColour(this.frames.workers[f * this.n + i]);
      else if (mode === 'contacts') {
        c = rampColour(this.maxContacts > 0 ? this.frames.bodyContacts[f * this.n + i] / this.maxContacts : 0);
      } else {
        if (!this.speeds) this.computeSpeeds();
        c = rampColour(this.maxSpeed > 0 ? this.speeds[f * this.n + i] / this.maxSpeed : 0);
      }
      out[3 * i] = c[0]; out[3 * i + 1] = c[1]; out[3 * i + 2] = c[2];
    }
    return out;
  }

  /** Whether colours change from frame to frame in this mode. */
  isDynamic(mode) {
    return !this.availability(mode) && mode !== 'body';
  }

  /** Legend range [min, max, unit] for ramp modes, or null. */
  range(mode) {
    if (this.availability(mode)) return null;
    if (mode === 'speed') {
      if (!this.speeds) this.computeSpeeds();
      return [0, this.maxSpeed, 'm/s'];
    }
    if (mode === 'contacts') return [0, this.maxContacts, 'contacts'];
    return null;
  }
}
