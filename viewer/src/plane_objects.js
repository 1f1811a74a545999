// The scene's half-space planes (ground, walls) and, for distributed runs, the partition planes
// with their shared overlap slabs.
import * as THREE from 'three';

const Z = new THREE.Vector3(0, 0, 1);

/**
 * An unlit material that writes the colour `hex` as it is (a display, sRGB, value, like the
 * bodies' shader). Same picture as MeshBasicMaterial / LineBasicMaterial, whose shaders convert
 * colours to linear and back per pixel (pow): on a software renderer that doubled the ground
 * plane's cost (7-13 ms per frame at 1280x498 vs 3.3 ms).
 */
export function flatColourMaterial(hex, options = {}) {
  const c = [(hex >> 16) & 255, (hex >> 8) & 255, hex & 255].map((v) => (v / 255).toFixed(6));
  return new THREE.ShaderMaterial({
    ...options,
    // As three.js's own shaders compute it (same rounding, so the grid over the plane stays put).
    vertexShader: 'void main() { vec4 mv = modelViewMatrix * vec4(position, 1.0); gl_Position = projectionMatrix * mv; }',
    fragmentShader: `void main() { gl_FragColor = vec4(${c.join(', ')}, 1.0); }`,
  });
}

/** Places a mesh built in the XY plane (normal +Z) at `point` with normal `normal`. */
function orient(object, point, normal, centre) {
  const n = new THREE.Vector3(...normal).normalize();
  object.quaternion.setFromUnitVectors(Z, n);
  // Centre the finite quad where the scene is: the scene centre projected onto the plane.
  const p = new THREE.Vector3(...point);
  const c = centre.clone().sub(n.clone().multiplyScalar(centre.clone().sub(p).dot(n)));
  object.position.copy(c);
}

/** A finite, gridded square for each scene plane, `size` metres across. */
export function makeScenePlanes(planes, centre, size) {
  const group = new THREE.Group();
  const material = flatColourMaterial(0x8a8f99, { side: THREE.DoubleSide });
  const gridMaterial = flatColourMaterial(0x5c6068);
  for (const plane of planes) {
    const holder = new THREE.Group();
    const quad = new THREE.Mesh(new THREE.PlaneGeometry(size, size), material);
    const grid = new THREE.GridHelper(size, 20, 0x5c6068, 0x5c6068);
    grid.material.dispose();
    grid.material = gridMaterial;
    grid.rotation.x = Math.PI / 2;  // GridHelper lies in XZ; the holder's frame has normal +Z
    grid.position.z = 1e-4 * size;
    holder.add(quad, grid);
    orient(holder, plane.point, plane.normal, centre);
    group.add(holder);
  }
  return group;
}

/**
 * Red partition planes and their shared overlap slabs for a distributed run; update() moves them
 * to a frame's partition. The planes are axis-aligned (normal to x, y or z) and span `box` (the
 * scene bounds) in their other two directions; each slab is the overlap region, the plane
 * grown by overlap/2 to either side.
 */
export class PartitionObjects {
  constructor(box) {
    this.box = box.clone();
    this.group = new THREE.Group();
    this.group.name = 'partition';
    this.pool = [];
    this.planeMaterial = new THREE.MeshBasicMaterial({
      color: 0xe02020, transparent: true, opacity: 0.35, side: THREE.DoubleSide, depthWrite: false,
    });
    this.slabMaterial = new THREE.MeshBasicMaterial({
      color: 0xff6060, transparent: true, opacity: 0.12, side: THREE.DoubleSide, depthWrite: false,
    });
  }

  /** partition: {planes: [{axis, position, overlap}]} or null (nothing drawn). */
  update(partition) {
    const planes = partition ? partition.planes : [];
    while (this.pool.length < planes.length) {
      // Unit quad in XY and unit cube, scaled and turned per plane below.
      const holder = new THREE.Group();
      const quad = new THREE.Mesh(new THREE.PlaneGeometry(1, 1), this.planeMaterial);
      const slab = new THREE.Mesh(new THREE.BoxGeometry(1, 1, 1), this.slabMaterial);
      quad.name = 'partition-plane';
      slab.name = 'overlap-slab';
      holder.add(quad, slab);
      holder.userData = { quad, slab };
      this.pool.push(holder);
      this.group.add(holder);
    }
    const size = this.box.getSize(new THREE.Vector3());
    const centre = this.box.getCenter(new THREE.Vector3());
    this.pool.forEach((holder, i) => {
      holder.visible = i < planes.length;
      if (!holder.visible) return;
      const { axis, position, overlap } = planes[i];
      // The holder's local z is the plane's normal (the axis); x and y are the next two axes.
      const u = (axis + 1) % 3, v = (axis + 2) % 3;
      const basis = [new THREE.Vector3(), new THREE.Vector3(), new THREE.Vector3()];
      basis[0].setComponent(u, 1);
      basis[1].setComponent(v, 1);
      basis[2].setComponent(axis, 1);
      holder.quaternion.setFromRotationMatrix(new THREE.Matrix4().makeBasis(...basis));
      holder.position.copy(centre).setComponent(axis, position);
      const { quad, slab } = holder.userData;
      const su = Math.max(size.getComponent(u), 1e-6), sv = Math.max(size.getComponent(v), 1e-6);
      quad.scale.set(su, sv, 1);
      slab.visible = overlap > 0;
      slab.scale.set(su, sv, Math.max(overlap, 1e-9));
    });
  }

  /** What is drawn now, for scripts and the browser test. */
  describe() {
    const shown = this.pool.filter((h) => h.visible && this.group.visible);
    return {
      planes: shown.map((h) => ({
        normal: [0, 1, 2].find((a) => Math.abs(new THREE.Vector3(0, 0, 1).applyQuaternion(h.quaternion).getComponent(a)) > 0.5),
        position: h.position.toArray(),
        size: [h.userData.quad.scale.x, h.userData.quad.scale.y],
      })),
      slabs: shown.filter((h) => h.userData.slab.visible).map((h) => h.userData.slab.scale.z),
    };
  }
}
