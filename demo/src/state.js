// The page state and its URL form. One object holds all of it, what a link reproduces and what
// the pointer is doing (hover, drag, play); it is never mutated: update() in main.js replaces it,
// derive.js computes everything else from it, and the render only reads.

export const METHODS = ['naive', 'grid-r', 'grid-2r', 'hex', 'kdtree', 'grid'];
export const STORES = ['loose', 'precise'];

// r takes "round" values (multiples of 1/32): exact in float32, so a row of points r apart is
// exactly r apart when the module measures it.
export const RADII = [
  ...Array.from({ length: 15 }, (_, k) => (k + 1) / 32), // 1/32 .. 15/32
  ...Array.from({ length: 28 }, (_, k) => 0.5 + k / 8), // 0.5 .. 3.875
  ...Array.from({ length: 33 }, (_, k) => 4 + k / 4), // 4 .. 12
];

export const COUNT_MIN = 5, COUNT_MAX = 100000;
export const TOLERANCES = [1e-6, 1e-5, 1e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2];

export const RACE_MAX = [1e4, 1e5, 1e6]; // the largest point count of the timing sweep
export const BCC_BOX = 6; // the dragged 3D point stays within [-6, 6]^3 (units of r)

export const defaults = () => ({
  // in the URL
  method: 'grid-2r', store: 'loose', r: 1, preset: 'procgen', seed: 1, n: 300,
  step: null, moves: new Map(), added: [], tol: 1e-4, zoom: 1, at: [50, 30],
  engine: null, // the step of the engine view (null: the whole trace)
  bcc: [1.3, 0.9, 2.1], // the 3D point of the BCC view, in units of r
  raceMax: 1e6,
  // the pointer and the clock (not in the URL)
  hover: -1, dragging: -1, playing: null, speed: 1, naiveAllowed: false, engineHover: -1,
  race: null, // the race's measurements so far (race.js)
});

export const ZOOM_MAX = 64;

/** The visible part of the 100 x 60 field at a zoom and centre, and the centre kept inside. */
export function viewBox(zoom, [cx, cy], world) {
  const w = world.width / zoom, h = world.height / zoom;
  const x = Math.min(world.width - w, Math.max(0, cx - w / 2)), y = Math.min(world.height - h, Math.max(0, cy - h / 2));
  return { box: [x, y, x + w, y + h], at: [x + w / 2, y + h / 2] };
}

const nearest = (list, v) => list.reduce((a, b) => (Math.abs(b - v) < Math.abs(a - v) ? b : a));
const snap = (v) => Math.round(v * 16) / 16; // edited positions: multiples of 1/16, exact in the URL

export function snapPoint(x, y) {
  return [snap(x), snap(y)];
}

export function fromURL(search, presets) {
  const q = new URLSearchParams(search);
  const s = defaults();
  if (METHODS.includes(q.get('method'))) s.method = q.get('method');
  if (STORES.includes(q.get('store'))) s.store = q.get('store');
  if (q.has('r') && Number(q.get('r')) > 0) s.r = nearest(RADII, Number(q.get('r')));
  if (q.get('preset') in presets) s.preset = q.get('preset');
  const seed = Number(q.get('seed'));
  if (q.has('seed') && Number.isInteger(seed) && seed >= 0) s.seed = seed;
  const n = Number(q.get('n'));
  if (q.has('n') && Number.isInteger(n)) s.n = Math.min(COUNT_MAX, Math.max(COUNT_MIN, n));
  const step = Number(q.get('step'));
  if (q.has('step') && Number.isInteger(step) && step >= 0) s.step = step;
  if (q.has('tol') && Number(q.get('tol')) > 0) s.tol = nearest(TOLERANCES, Number(q.get('tol')));
  const zoom = Number(q.get('zoom'));
  if (q.has('zoom') && zoom >= 1) s.zoom = Math.min(ZOOM_MAX, zoom);
  const at = (q.get('at') ?? '').split('_').map(Number);
  if (at.length === 2 && at.every(Number.isFinite)) s.at = at;
  for (const item of (q.get('move') ?? '').split('~').filter(Boolean)) {
    const [i, x, y] = item.split('_').map(Number);
    if (Number.isInteger(i) && i >= 0 && Number.isFinite(x) && Number.isFinite(y)) s.moves.set(i, snapPoint(x, y));
  }
  const engine = Number(q.get('engine'));
  if (q.has('engine') && Number.isInteger(engine) && engine >= 0) s.engine = engine;
  const bcc = (q.get('bcc') ?? '').split('_').map(Number);
  if (bcc.length === 3 && bcc.every(Number.isFinite)) s.bcc = bcc.map((v) => Math.min(BCC_BOX, Math.max(-BCC_BOX, v)));
  if (RACE_MAX.includes(Number(q.get('race')))) s.raceMax = Number(q.get('race'));
  for (const item of (q.get('add') ?? '').split('~').filter(Boolean)) {
    const [x, y] = item.split('_').map(Number);
    if (Number.isFinite(x) && Number.isFinite(y)) s.added.push(snapPoint(x, y));
  }
  return s;
}

export function toURL(s) {
  const q = new URLSearchParams({ method: s.method, store: s.store, r: String(s.r), preset: s.preset, seed: String(s.seed), n: String(s.n) });
  if (s.step !== null) q.set('step', String(s.step));
  if (s.tol !== defaults().tol) q.set('tol', String(s.tol));
  if (s.zoom !== 1) {
    q.set('zoom', String(+s.zoom.toFixed(3)));
    q.set('at', s.at.map((v) => +v.toFixed(2)).join('_'));
  }
  if (s.moves.size) q.set('move', [...s.moves].map(([i, [x, y]]) => `${i}_${x}_${y}`).join('~'));
  if (s.added.length) q.set('add', s.added.map(([x, y]) => `${x}_${y}`).join('~'));
  if (s.engine !== null) q.set('engine', String(s.engine));
  const d = defaults();
  if (s.bcc.some((v, k) => v !== d.bcc[k])) q.set('bcc', s.bcc.map((v) => +v.toFixed(2)).join('_'));
  if (s.raceMax !== d.raceMax) q.set('race', String(s.raceMax));
  return `?${q}`;
}

/** The count slider is logarithmic: position 0..1000 <-> COUNT_MIN..COUNT_MAX (2 significant digits). */
export function countFromSlider(t) {
  const v = COUNT_MIN * (COUNT_MAX / COUNT_MIN) ** (t / 1000);
  const digits = 10 ** Math.max(0, Math.floor(Math.log10(v)) - 1);
  return Math.min(COUNT_MAX, Math.max(COUNT_MIN, Math.round(v / digits) * digits));
}

export function sliderFromCount(n) {
  return Math.round((1000 * Math.log(n / COUNT_MIN)) / Math.log(COUNT_MAX / COUNT_MIN));
}
