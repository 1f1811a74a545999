// Per-frame statistics under the 3D view: one small SVG line chart per panel, with one polyline
// point per saved frame and a cursor at the frame on screen. Clicking a chart seeks to a frame.

const SVG = 'http://www.w3.org/2000/svg';
const W = 1000, H = 100;  // viewBox units; the chart stretches to its box

const PANELS = [
  { id: 'contacts', title: 'Contacts', series: [
    { key: 'contacts', label: 'contacts', colour: '#4fc3f7' },
    { key: 'candidates', label: 'candidates', colour: '#9575cd' },
  ] },
  { id: 'iterations', title: 'Iterations', series: [
    { key: 'newton_iterations', label: 'Newton', colour: '#81c784' },
    { key: 'admm_iterations', label: 'ADMM', colour: '#ffb74d' },
  ] },
  { id: 'time', title: 'Time per frame (s)', series: [
    { key: 't_frame', label: 'frame', colour: '#e0e0e0' },
    { key: 't_coll', label: 'collision', colour: '#4dd0e1' },
    { key: 't_solve', label: 'solve', colour: '#f06292' },
    { key: 't_sync', label: 'sync', colour: '#ffd54f' },
    { key: 't_parallel', label: 'parallel (modelled)', colour: '#a1887f' },
  ] },
];

function el(name, attrs = {}) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

function formatNumber(v) {
  if (v === 0) return '0';
  const a = Math.abs(v);
  return a >= 1000 || a < 0.01 ? v.toExponential(1) : String(+v.toPrecision(3));
}

export class StatsPlots {
  /** container: the #plots element; stats: one object per frame; onSeek(frameIndex). */
  constructor(container, stats, onSeek) {
    this.cursors = [];
    this.count = stats.length;
    container.replaceChildren();
    for (const panel of PANELS) {
      // A series is drawn when any frame reports it (ADMM and sync only exist in distributed runs).
      const series = panel.series.filter((s) => stats.some((st) => Number.isFinite(st[s.key])));
      if (series.length === 0) continue;
      const values = series.map((s) => stats.map((st) => (Number.isFinite(st[s.key]) ? st[s.key] : 0)));
      const max = Math.max(1e-12, ...values.flat());

      const figure = document.createElement('figure');
      const caption = document.createElement('figcaption');
      caption.append(`${panel.title} — max ${formatNumber(max)}: `);
      series.forEach((s) => {
        const swatch = document.createElement('span');
        swatch.style.color = s.colour;
        swatch.textContent = ` ■ ${s.label}`;
        caption.append(swatch);
      });
      const svg = el('svg', { id: `plot-${panel.id}`, viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: 'none' });
      svg.append(el('line', { class: 'axis', x1: 0, y1: H, x2: W, y2: H, 'vector-effect': 'non-scaling-stroke' }));
      const xOf = (i) => (this.count > 1 ? (i * W) / (this.count - 1) : W / 2);
      series.forEach((s, k) => {
        const points = values[k].map((v, i) => `${xOf(i).toFixed(2)},${(H - (v / max) * (H - 4)).toFixed(2)}`);
        svg.append(el('polyline', {
          points: points.join(' '), stroke: s.colour, 'data-series': s.key, 'data-count': points.length,
        }));
      });
      const cursor = el('line', { class: 'cursor', x1: 0, y1: 0, x2: 0, y2: H, 'vector-effect': 'non-scaling-stroke' });
      svg.append(cursor);
      this.cursors.push({ cursor, xOf });
      svg.addEventListener('click', (event) => {
        const r = svg.getBoundingClientRect();
        const t = (event.clientX - r.left) / Math.max(1, r.width);
        onSeek(Math.round(t * (this.count - 1)));
      });
      figure.append(caption, svg);
      container.append(figure);
    }
  }

  setFrame(f) {
    for (const { cursor, xOf } of this.cursors) {
      const x = xOf(f).toFixed(2);
      cursor.setAttribute('x1', x);
      cursor.setAttribute('x2', x);
    }
  }
}
