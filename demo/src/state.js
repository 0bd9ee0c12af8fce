// The page state and its URL form. Everything a link must reproduce lives here; the rest of the
// page derives from it.

export const METHODS = ['naive', 'grid-r', 'grid-2r', 'hex', 'kdtree'];
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

export const defaults = () => ({
  method: 'grid-2r', store: 'loose', r: 1, preset: 'procgen', seed: 1, n: 300,
  step: null, moves: new Map(), added: [], tol: 1e-4, zoom: 1, at: [50, 30],
});

export const ZOOM_MAX = 64;

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
