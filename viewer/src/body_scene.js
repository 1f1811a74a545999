// The bodies as three.js objects: one InstancedMesh per distinct mesh, so that a frame costs one
// draw call per mesh shape and one upload of 16 floats per body, whatever the body count. Each
// instance matrix is the body's affine map [A p; 0 1], so the GPU computes x = p + A X.
import * as THREE from 'three';
import { rowOffset } from './frames.js';

export class BodyScene {
  /** `output` as returned by loadOutput. */
  constructor(output) {
    this.frames = output.frames;
    this.bodyCount = output.bodies.length;
    this.group = new THREE.Group();
    this.triangleCount = 0;
    this.instances = [];  // per mesh: {mesh: InstancedMesh, bodies: Int32Array}
    this.bodySlot = new Int32Array(this.bodyCount * 2);  // body -> (mesh index, instance index)
    this.localCentroid = new Float32Array(this.bodyCount * 3);
    this.localBounds = [];  // per distinct mesh: Box3 in local coordinates

    const members = output.meshes.map(() => []);
    for (let b = 0; b < this.bodyCount; ++b) members[output.bodyMesh[b]].push(b);

    this.material = new THREE.MeshLambertMaterial({ color: 0xffffff, flatShading: true });
    output.meshes.forEach((m, i) => {
      const geometry = new THREE.BufferGeometry();
      geometry.setAttribute('position', new THREE.BufferAttribute(m.positions, 3));
      geometry.setIndex(new THREE.BufferAttribute(m.indices, 1));
      geometry.computeBoundingBox();
      this.localBounds.push(geometry.boundingBox.clone());
      const centroid = new THREE.Vector3();
      for (let k = 0; k < m.positions.length; k += 3) {
        centroid.x += m.positions[k]; centroid.y += m.positions[k + 1]; centroid.z += m.positions[k + 2];
      }
      centroid.multiplyScalar(3 / m.positions.length);

      const bodies = Int32Array.from(members[i]);
      const mesh = new THREE.InstancedMesh(geometry, this.material, bodies.length);
      mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
      mesh.setColorAt(0, new THREE.Color(1, 1, 1));  // allocates instanceColor
      mesh.instanceColor.setUsage(THREE.DynamicDrawUsage);
      // Bodies move every frame; the bounding sphere computed once would cull them wrongly.
      mesh.frustumCulled = false;
      bodies.forEach((b, j) => {
        this.bodySlot[2 * b] = i;
        this.bodySlot[2 * b + 1] = j;
        this.localCentroid.set([centroid.x, centroid.y, centroid.z], 3 * b);
      });
      this.triangleCount += (m.indices.length / 3) * bodies.length;
      this.instances.push({ mesh, bodies });
      this.group.add(mesh);
    });
  }

  /** Sets every instance matrix from frame f. */
  applyFrame(f) {
    const q = this.frames.q;
    for (const { mesh, bodies } of this.instances) {
      const m = mesh.instanceMatrix.array;
      for (let j = 0; j < bodies.length; ++j) {
        const o = rowOffset(this.frames, f, bodies[j]);
        const d = 16 * j;
        // three.js matrices are column-major; q holds p then A row by row.
        m[d] = q[o + 3]; m[d + 1] = q[o + 6]; m[d + 2] = q[o + 9]; m[d + 3] = 0;
        m[d + 4] = q[o + 4]; m[d + 5] = q[o + 7]; m[d + 6] = q[o + 10]; m[d + 7] = 0;
        m[d + 8] = q[o + 5]; m[d + 9] = q[o + 8]; m[d + 10] = q[o + 11]; m[d + 11] = 0;
        m[d + 12] = q[o]; m[d + 13] = q[o + 1]; m[d + 14] = q[o + 2]; m[d + 15] = 1;
      }
      mesh.instanceMatrix.needsUpdate = true;
    }
  }

  /** colours: Float32Array of bodyCount * 3 RGB values in [0, 1]. */
  setColours(colours) {
    for (const { mesh, bodies } of this.instances) {
      const c = mesh.instanceColor.array;
      for (let j = 0; j < bodies.length; ++j) {
        const b = bodies[j];
        c[3 * j] = colours[3 * b]; c[3 * j + 1] = colours[3 * b + 1]; c[3 * j + 2] = colours[3 * b + 2];
      }
      mesh.instanceColor.needsUpdate = true;
    }
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
      const lb = this.localBounds[this.bodySlot[2 * b]];
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
