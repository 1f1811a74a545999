// The scene's half-space planes (ground, walls) and, for distributed runs, the partition planes
// with their shared overlap slabs.
import * as THREE from 'three';

const Z = new THREE.Vector3(0, 0, 1);

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
  const material = new THREE.MeshBasicMaterial({ color: 0x8a8f99, side: THREE.DoubleSide });  // unlit: cheap
  for (const plane of planes) {
    const holder = new THREE.Group();
    const quad = new THREE.Mesh(new THREE.PlaneGeometry(size, size), material);
    const grid = new THREE.GridHelper(size, 20, 0x5c6068, 0x5c6068);
    grid.rotation.x = Math.PI / 2;  // GridHelper lies in XZ; the holder's frame has normal +Z
    grid.position.z = 1e-4 * size;
    holder.add(quad, grid);
    orient(holder, plane.point, plane.normal, centre);
    group.add(holder);
  }
  return group;
}

/** Red partition planes and their overlap slabs; update() moves them to a frame's partition. */
export class PartitionObjects {
  constructor(size) {
    this.size = size;
    this.group = new THREE.Group();
    this.pool = [];
    this.planeMaterial = new THREE.MeshBasicMaterial({
      color: 0xe02020, transparent: true, opacity: 0.35, side: THREE.DoubleSide, depthWrite: false,
    });
    this.slabMaterial = new THREE.MeshBasicMaterial({
      color: 0xff6060, transparent: true, opacity: 0.12, side: THREE.DoubleSide, depthWrite: false,
    });
  }

  /** partition: {planes: [{point, normal, overlap}]} or null. */
  update(partition, centre) {
    const planes = partition ? partition.planes : [];
    while (this.pool.length < planes.length) {
      const holder = new THREE.Group();
      const quad = new THREE.Mesh(new THREE.PlaneGeometry(this.size, this.size), this.planeMaterial);
      const slab = new THREE.Mesh(new THREE.BoxGeometry(this.size, this.size, 1), this.slabMaterial);
      holder.add(quad, slab);
      holder.userData.slab = slab;
      this.pool.push(holder);
      this.group.add(holder);
    }
    this.pool.forEach((holder, i) => {
      holder.visible = i < planes.length;
      if (!holder.visible) return;
      const p = planes[i];
      orient(holder, p.point, p.normal, centre);
      const slab = holder.userData.slab;
      slab.visible = p.overlap > 0;
      slab.scale.z = Math.max(p.overlap, 1e-9);
    });
  }
}
