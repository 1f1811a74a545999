// The Concord viewer page: loads an output directory (by default the one `concord view` serves
// under data/; another with ?data=URL/), plays its frames and plots its statistics.
// window.concordViewer exposes the state to scripts and to the browser test (tests/viewer/).
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

import { AdaptiveResolution } from './adaptive_resolution.js';
import { BodyScene } from './body_scene.js';
import { ColourModes } from './colour_modes.js';
import { FluidPoints } from './fluid_points.js';
import { buildLevels, pageMeasureBudget, simplifierReady } from './mesh_levels.js';
import { loadOutput } from './output_loader.js';
import { rampCss, workerColour } from './palette.js';
import { makeScenePlanes, PartitionObjects } from './plane_objects.js';
import { StatsPlots } from './stats_plot.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const dataBase = (() => {
  const d = params.get('data') || 'data/';
  return d.endsWith('/') ? d : d + '/';
})();

const api = {
  state: 'loading',  // 'loading' | 'ready' | 'error'
  error: null,       // the message shown, if any
  frameIndex: 0,
  frameCount: 0,
  bodyCount: 0,
  triangleCount: 0,
  renderedFrames: 0,
  drawnTriangles: 0,  // triangles in the last picture (levels of detail and culling applied)
  lodReady: false,    // whether the levels of detail have been built
  elasticBodies: [],  // indices of the reduced elastic bodies (drawn deformed)
};
window.concordViewer = api;

function showMessage(text, kind = 'error') {
  const m = $('message');
  m.textContent = text;
  m.className = kind;
  m.hidden = false;
  api.error = text;
}

window.addEventListener('error', (e) => showMessage(`viewer error: ${e.message}`));
window.addEventListener('unhandledrejection', (e) => showMessage(`viewer error: ${e.reason?.message || e.reason}`));

/** Unit "up" vector: against gravity when the scene has gravity, else +y. */
function upVector(scene) {
  const g = Array.isArray(scene.gravity) ? new THREE.Vector3(...scene.gravity) : new THREE.Vector3();
  return g.lengthSq() > 0 ? g.negate().normalize() : new THREE.Vector3(0, 1, 0);
}

// While animating, a body may be drawn with a coarser level of its mesh whose distance to the
// full mesh stays under this many pixels of the drawing buffer (?lod=PIXELS; 0 turns it off);
// a still picture is always drawn at full detail.
const lodPixels = params.has('lod') ? Math.max(0, Number(params.get('lod')) || 0) : 1;

async function start() {
  // The levels of detail of each distinct mesh are built as it arrives, between the fetches.
  const levelsAvailable = lodPixels > 0 && await simplifierReady.then(() => true, (e) => {
    console.warn(`levels of detail not available (${e.message || e}); drawing full detail`);
    return false;
  });
  const meshLevels = [], budget = pageMeasureBudget();
  const output = await loadOutput(dataBase, (what) => { $('frame-label').textContent = `loading: ${what}`; },
    (mesh, index) => {
      if (!levelsAvailable) return;
      try {
        meshLevels[index] = buildLevels(mesh, budget);
      } catch (e) {  // an optimisation only: this mesh is drawn at full detail
        console.warn(`no levels of detail for mesh ${index} (${e.message || e})`);
        meshLevels[index] = [{ indices: mesh.indices, error: 0 }];
      }
    });
  const { frames } = output;
  if (frames.error) showMessage(frames.count > 0
    ? `${frames.error} — showing the ${frames.count} frame(s) before it`
    : frames.error, frames.count > 0 ? 'warning' : 'error');
  if (frames.count === 0) {
    api.state = 'error';
    $('frame-label').textContent = 'no frames';
    return;
  }

  const canvas = $('canvas');
  // An opaque canvas without stencil spares the compositor a blend and the renderer a buffer.
  const renderer = new THREE.WebGLRenderer({
    canvas, antialias: params.get('aa') === '1', alpha: false, stencil: false,
  });
  // ?scale=F renders at F times the device pixel ratio; ?adaptive=0 keeps it fixed while playing.
  const fullRatio = Math.min(window.devicePixelRatio || 1, 2) * Number(params.get('scale') || 1);
  renderer.setPixelRatio(fullRatio);
  const world = new THREE.Scene();
  world.background = new THREE.Color(0x1e2126);

  const bodies = new BodyScene(output);
  if (levelsAvailable) {
    bodies.setLevels(meshLevels);
    api.lodReady = true;
  }
  world.add(bodies.group);
  const fluid = new FluidPoints(dataBase, output.scene, (error) => {
    if (error) showMessage(error, 'warning');
    dirty = true;
  });
  if (fluid.enabled) {
    $('frame-label').textContent = 'loading: the fluid';
    await fluid.init(frames.frameNumbers[0]);
    world.add(fluid.points);
  }
  api.bodyCount = bodies.bodyCount;
  api.triangleCount = bodies.triangleCount;
  api.elasticBodies = bodies.elastic.map((e) => e.body);
  api.frameCount = frames.count;

  const box = bodies.bounds(0);
  bodies.bounds(frames.count - 1, box);
  if (fluid.enabled) box.union(fluid.firstBounds);
  const centre = box.getCenter(new THREE.Vector3());
  const radius = Math.max(1e-3, box.getSize(new THREE.Vector3()).length() / 2);
  const up = upVector(output.scene);

  const planes = makeScenePlanes(Array.isArray(output.scene.planes) ? output.scene.planes : [], centre, 6 * radius);
  world.add(planes);
  // Partition planes span the bodies' box (a little grown, so that their edges show).
  const partition = new PartitionObjects(box.clone().expandByScalar(0.02 * radius));
  world.add(partition.group);

  const camera = new THREE.PerspectiveCamera(40, 1, radius / 100, radius * 100);
  camera.up.copy(up);
  // Look from the front and 53 degrees above, into open containers: "front" is any direction
  // perpendicular to up. concord render uses the same view (camera.cpp).
  const side = new THREE.Vector3(0, 0, 1);
  if (Math.abs(side.dot(up)) > 0.9) side.set(1, 0, 0);
  side.sub(up.clone().multiplyScalar(side.dot(up))).normalize();
  const distance = radius / Math.sin(THREE.MathUtils.degToRad(20)) * 1.05;
  camera.position.copy(centre).add(side.multiplyScalar(distance * 0.6)).add(up.clone().multiplyScalar(distance * 0.8));
  const controls = new OrbitControls(camera, canvas);
  controls.target.copy(centre);
  controls.update();

  const colours = new ColourModes(bodies, frames);
  let colourMode = 'body';
  const plots = new StatsPlots($('plots'), frames.stats, (f) => seek(f));
  const hasPartition = frames.partitions.some((p) => p);
  $('show-partition').disabled = !hasPartition;
  $('show-partition').parentElement.title = hasPartition ? '' : 'not a distributed run';

  let dirty = true;
  let playing = false;
  let interacting = false;  // the camera is being dragged
  const bufferSize = new THREE.Vector2();
  let playTime = frames.times[0];
  const span = frames.times[frames.count - 1] - frames.times[0];
  // Runs whose frames all carry one time stamp play at 30 frames per second instead.
  const timeOf = (f) => (span > 0 ? frames.times[f] : f / 30);

  function updateLegend() {
    const note = colours.availability(colourMode);
    const legend = $('legend');
    legend.replaceChildren();
    if (note) { legend.textContent = note; return; }
    if (colourMode === 'worker') {
      const css = (c) => `rgb(${c.map((v) => Math.round(v * 255)).join(',')})`;
      for (let w = -1; w < Math.min(frames.workerCount, 10); ++w) {
        const swatch = document.createElement('span');
        swatch.className = 'swatch';
        swatch.style.background = css(workerColour(w));
        legend.append(swatch, w < 0 ? 'static' : `worker ${w}`);
      }
      if (frames.workerCount > 10) legend.append(`(${frames.workerCount} workers; colours repeat every 10)`);
      return;
    }
    const range = colours.range(colourMode);
    if (!range) return;
    const ramp = document.createElement('span');
    ramp.className = 'ramp';
    ramp.style.background = rampCss();
    legend.append(`${range[0]}`, ramp, `${+range[1].toPrecision(3)} ${range[2]}`);
  }

  function showFrame(f) {
    api.frameIndex = f;
    bodies.applyFrame(f);
    fluid.show(frames.frameNumbers[f]);
    if (colours.isDynamic(colourMode)) bodies.setColours(colours.colours(colourMode, f));
    partition.update($('show-partition').checked ? frames.partitions[f] : null);
    $('slider').value = String(f);
    $('frame-label').textContent =
      `frame ${frames.frameNumbers[f]} (${f + 1} / ${frames.count})  t = ${frames.times[f].toFixed(4)} s`;
    plots.setFrame(f);
    dirty = true;
  }

  function seek(f) {
    f = Math.max(0, Math.min(frames.count - 1, f | 0));
    playTime = timeOf(f);
    showFrame(f);
  }

  function setPlaying(on) {
    playing = on;
    if (on) resolution.resume();
    if (on && api.frameIndex === frames.count - 1) seek(0);
    $('play').textContent = on ? 'Pause' : 'Play';
  }

  function setColourMode(mode) {
    colourMode = mode;
    $('colour-mode').value = mode;
    bodies.setColours(colours.colours(mode, api.frameIndex));
    updateLegend();
    dirty = true;
  }

  $('slider').max = String(frames.count - 1);
  $('slider').disabled = false;
  $('play').disabled = false;
  $('slider').addEventListener('input', () => { setPlaying(false); seek(Number($('slider').value)); });
  $('play').addEventListener('click', () => setPlaying(!playing));
  $('colour-mode').addEventListener('change', () => setColourMode($('colour-mode').value));
  $('show-planes').addEventListener('change', () => { planes.visible = $('show-planes').checked; dirty = true; });
  $('show-partition').addEventListener('change', () => showFrame(api.frameIndex));
  controls.addEventListener('change', () => { dirty = true; });
  controls.addEventListener('start', () => { interacting = true; });
  controls.addEventListener('end', () => { interacting = false; dirty = true; });
  window.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === ' ') { e.preventDefault(); setPlaying(!playing); }
    if (e.key === 'ArrowRight') { setPlaying(false); seek(api.frameIndex + 1); }
    if (e.key === 'ArrowLeft') { setPlaying(false); seek(api.frameIndex - 1); }
  });
  $('title').textContent = `${output.scene.name || 'scene'} · ${bodies.bodyCount} bodies · ` +
    `${bodies.triangleCount} triangles · ${fluid.enabled ? `${fluid.firstCount} fluid particles · ` : ''}${frames.count} frames`;

  const view = $('view');
  const resize = () => {
    const w = Math.max(1, view.clientWidth), h = Math.max(1, view.clientHeight);
    renderer.setSize(w, h, false);
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
    dirty = true;
  };
  new ResizeObserver(resize).observe(view);
  resize();
  const resolution = new AdaptiveResolution((fraction) => {
    renderer.setPixelRatio(fullRatio * fraction);
    resize();
  }, params.get('adaptive') !== '0');

  let last = performance.now();
  function tick(now) {
    requestAnimationFrame(tick);
    const elapsed = Math.min(0.25, (now - last) / 1000);  // a hidden tab must not jump far ahead
    last = now;
    if (playing) {
      playTime += elapsed * Number($('speed').value);
      let f = api.frameIndex;
      while (f + 1 < frames.count && timeOf(f + 1) <= playTime) ++f;
      if (f === frames.count - 1 && playTime > timeOf(f)) {
        if ($('loop').checked) { f = 0; playTime = timeOf(0); } else setPlaying(false);
      }
      if (f !== api.frameIndex) showFrame(f);
    }
    if (!playing && resolution.still()) dirty = true;
    const moving = playing || interacting;
    if (!moving && bodies.coarse) dirty = true;  // back to full detail
    if (dirty || playing) {
      camera.updateMatrixWorld();
      renderer.getDrawingBufferSize(bufferSize);
      api.drawnTriangles = bodies.updateDrawList(camera, bufferSize.y, moving ? lodPixels : 0);
      fluid.prepare(camera, bufferSize.y);
      renderer.render(world, camera);
      ++api.renderedFrames;
      dirty = false;
      if (playing) resolution.animated(now);
      api.renderScale = resolution.fraction;
    }
  }

  setColourMode('body');
  showFrame(0);
  Object.assign(api, {
    play: () => setPlaying(true),
    pause: () => setPlaying(false),
    seek,
    setColourMode,
    colourMode: () => colourMode,
    /** RGB per body as drawn in the current frame (flat array, 3 per body). */
    bodyColours: () => Array.from(colours.colours(colourMode, api.frameIndex)),
    /** Owning worker per body in the current frame (null for a single-machine run). */
    owners: () => (frames.workers
      ? Array.from(frames.workers.subarray(api.frameIndex * bodies.bodyCount, (api.frameIndex + 1) * bodies.bodyCount))
      : null),
    /** World positions of body b's vertices as sent to the GPU now (3 per vertex). */
    drawnVertices: (b) => bodies.drawnVertices(b),
    /**
     * Uploads the whole position attribute once more and redraws (a frame change uploads only
     * the elastic bodies' ranges): the browser test compares the two pictures.
     */
    uploadAllPositions: () => {
      bodies.positionAttribute.clearUpdateRanges();
      bodies.positionAttribute.needsUpdate = true;
      dirty = true;
    },
    /** The fluid's particles drawn now (see FluidPoints.describe); null for a run without one. */
    fluid: () => (fluid.enabled ? fluid.describe() : null),
    /** The partition planes and overlap slabs drawn now (see PartitionObjects.describe). */
    partition: () => partition.describe(),
    /** Renders continuously for `ms` while playing and returns the frames drawn per second. */
    measureFps: (ms = 3000) => new Promise((resolve) => {
      const wasPlaying = playing;
      setPlaying(true);
      const n0 = api.renderedFrames, t0 = performance.now();
      setTimeout(() => {
        const fps = ((api.renderedFrames - n0) * 1000) / (performance.now() - t0);
        setPlaying(wasPlaying);
        resolve(fps);
      }, ms);
    }),
  });
  api.state = 'ready';
  requestAnimationFrame(tick);
}

start().catch((e) => {
  api.state = 'error';
  $('frame-label').textContent = 'could not load the output directory';
  showMessage(e.message || String(e));
});
