// Everything the page shows, derived from the state. Each piece is memoised on the values it
// reads (the last arguments, compared with Object.is): the state is replaced, never mutated, so a
// changed field is a new value and an unchanged one reuses its result. No hand-made cache keys.
import { bound, cells, lookups, weld, Welder } from 'meshweld';
import { kdShape } from './geometry.js';
import { dependsOnRadius, generate, WORLD } from './points.js';
import { boxCellCounts, boxCells, engineScript } from './trace.js';

export const NAIVE_AUTO = 5000; // naive is quadratic: above this many points it runs on request only
const OCCUPIED_MAX = 2500; // draw the occupied store cells up to this many kept points

/** memo(fn): fn's result for the last arguments, recomputed when any argument changes. */
export function memo(fn) {
  let last = null, value;
  return (...args) => {
    if (last && args.length === last.length && args.every((a, k) => Object.is(a, last[k]))) return value;
    value = fn(...args);
    last = args;
    return value;
  };
}

export const isGrid = (method) => method === 'grid-r' || method === 'grid-2r' || method === 'hex';
const measures = (method) => method === 'naive' || method === 'kdtree' || method === 'grid';

// --- points: the preset, then the edits --------------------------------------------------------
const basePoints = memo((preset, seed, n, r) => generate(preset, seed, n, r));
const editedPoints = memo((base, moves, added) => {
  if (!moves.size && !added.length) return base;
  const baseCount = base.length / 2;
  const points = new Float32Array(base.length + 2 * added.length);
  points.set(base);
  for (const [i, [x, y]] of moves) if (i < baseCount) points.set([x, y], 2 * i);
  added.forEach(([x, y], k) => points.set([x, y], base.length + 2 * k));
  return points;
});

export function pointsOf(s) {
  const base = basePoints(s.preset, s.seed, s.n, dependsOnRadius.has(s.preset) ? s.r : 0);
  return { base, points: editedPoints(base, s.moves, s.added) };
}

// --- the weld of the whole set, timed -------------------------------------------------------------
const fullWeld = memo((points, method, store, r, naiveAllowed) => {
  const n = points.length / 2;
  if (method === 'naive' && n > NAIVE_AUTO && !naiveAllowed) return null;
  const options = { dim: 2, radius: r, method, store };
  // repeat small welds until a few milliseconds have passed, report the mean
  const start = performance.now();
  let result = weld(points, options);
  let runs = 1, elapsed = performance.now() - start;
  while (elapsed < 4 && runs < 200) {
    result = weld(points, options);
    runs++;
    elapsed = performance.now() - start;
  }
  return { ...result, ms: elapsed / runs, runs, ...analyse(points, result.remap, result.count, result.positions, n) };
});

// Which points are representatives, the size of each cluster, the largest merge distance.
function analyse(points, remap, count, reps, done) {
  const isRep = new Uint8Array(points.length / 2);
  const sizes = new Uint32Array(count);
  let next = 0, far = 0;
  for (let i = 0; i < done; i++) {
    const m = remap[i];
    sizes[m]++;
    if (m === next) {
      isRep[i] = 1;
      next++;
    } else {
      far = Math.max(far, Math.hypot(points[2 * i] - reps[2 * m], points[2 * i + 1] - reps[2 * m + 1]));
    }
  }
  return { isRep, sizes, far };
}

// Naive's distance checks per point, from its remap: a point that merges into output m compared
// with outputs 0..m (the first within r wins), a kept one with every output before it; an exact
// duplicate is answered by the hash table with none.
export function naiveChecks(points, remap, n) {
  const seen = new Set();
  let checks = 0, next = 0;
  for (let i = 0; i < n; i++) {
    const key = `${points[2 * i]},${points[2 * i + 1]}`;
    const m = remap[i];
    if (!seen.has(key)) checks += m === next ? next : m + 1;
    if (m === next) next++;
    seen.add(key);
  }
  return checks / n;
}

// --- step mode: a Welder fed one point at a time ------------------------------------------------
// The stepper belongs to its inputs (points, method, store, r): it moves forward by feeding points
// and starts over (a new Welder) when asked for an earlier step.
const stepperOf = memo((points, method, store, r) => {
  const s = { welder: null, done: 0, remap: new Uint32Array(points.length / 2), countBefore: 0, reps: null };
  const reset = () => {
    s.welder?.dispose();
    Object.assign(s, { welder: new Welder({ dim: 2, radius: r, method, store }), done: 0, countBefore: 0, reps: null });
  };
  s.at = (k) => {
    if (!s.welder || s.done > k) reset();
    if (s.done < k - 1) {
      s.remap.set(s.welder.add(points.subarray(2 * s.done, 2 * (k - 1))), s.done);
      s.done = k - 1;
    }
    if (s.done === k - 1 && k > 0) {
      s.countBefore = s.welder.count;
      s.remap[k - 1] = s.welder.add(points.subarray(2 * (k - 1), 2 * k))[0];
      s.done = k;
      s.reps = null;
    }
    s.reps ??= s.welder.positions();
    return { remap: s.remap, reps: s.reps, count: s.welder.count, countBefore: s.countBefore };
  };
  return s;
});
const stepAt = memo((stepper, k) => stepper.at(k));

// The store cell of each output, from the module's cells(); filled as outputs are asked for.
const homeCells = memo((reps, method, r) => {
  const homes = new Map();
  return (m) => {
    if (!homes.has(m)) {
      const { keys } = cells([reps[2 * m], reps[2 * m + 1]], { dim: 2, radius: r, method });
      homes.set(m, [keys[0], keys[1]]);
    }
    return homes.get(m);
  };
});

// --- grid: its data-sized cells -------------------------------------------------------------------
// The trace of grid's spatial engine (null without meshweld/inspect): shared by the playground,
// which draws its cells, and the engine view, which plays it step by step.
export const traceOf = memo((traceWeld, points, r) => (traceWeld ? engineScript(traceWeld, points, r) : null));

/**
 * The page's reading of how grid sizes its cells (c/cells_data.c): from a sample of 256 points, the
 * median gap between consecutive points or the spacing of a uniform cloud in the sample's box,
 * whichever is smaller, times √5 − 1 ≈ 1.236 (lattices do not line up with cell walls), and never
 * below 2r. Drawn and explained here; the module's own size comes from the trace.
 */
export const spacingRule = memo((points, r) => {
  const n = points.length / 2;
  const step = Math.max(1, Math.floor(n / 256));
  const gaps = [], sample = [];
  let lo = [Infinity, Infinity], hi = [-Infinity, -Infinity];
  for (let i = 0, taken = 0; i < n && taken < 257; i += step, taken++) {
    const x = points[2 * i], y = points[2 * i + 1];
    sample.push(i);
    lo = [Math.min(lo[0], x), Math.min(lo[1], y)];
    hi = [Math.max(hi[0], x), Math.max(hi[1], y)];
    if (i + 1 < n) {
      const g = Math.max(Math.abs(x - points[2 * i + 2]), Math.abs(y - points[2 * i + 3]));
      if (g > 0) gaps.push(g);
    }
  }
  gaps.sort((a, b) => a - b);
  let area = 1, axes = 0;
  for (let k = 0; k < 2; k++) if (hi[k] > lo[k]) (area *= hi[k] - lo[k]), axes++;
  const spread = axes ? (area / n) ** (1 / axes) : 0;
  const median = gaps.length ? gaps[gaps.length >> 1] : spread;
  const base = gaps.length ? (spread > 0 && spread < median ? spread : median) : spread;
  const floor = 2 * r * (1 + 2 ** -16);
  return { sample, gaps, median, spread, chosen: base === spread ? 'spread' : 'median', factor: 1.2360679774997896, floor, size: Math.max(base * 1.2360679774997896, floor) };
});

export const gridCells = memo((points, r, script) => {
  const size = script ? script.trace.cellSize : spacingRule(points, r).size;
  return { size, from: script ? 'module' : 'page', touched: boxCellCounts(points, r, size) };
});

// --- what happened to one point -----------------------------------------------------------------
function describe(s, points, i, m, merged, reps, countBefore, home, grid) {
  const x = points[2 * i], y = points[2 * i + 1];
  const f = { index: i, x, y, m, merged, keys: null, size: 0, lookupsMade: 0, rep: null, hitKey: null, storeKey: null, dupOf: -1, countBefore, box: null };
  if (merged) {
    f.rep = [reps[2 * m], reps[2 * m + 1]];
    f.distance = Math.hypot(x - f.rep[0], y - f.rep[1]);
  }
  for (let j = 0; j < i; j++)
    if (points[2 * j] === x && points[2 * j + 1] === y) {
      f.dupOf = j;
      return f;
    }
  if (isGrid(s.method)) {
    const c = cells([x, y], { dim: 2, radius: s.r, method: s.method });
    f.keys = c.keys;
    f.size = c.size;
    const searched = c.keys.length / 3;
    if (merged) {
      f.hitKey = home(m);
      let at = 0;
      while (at < searched && (c.keys[3 * at] !== f.hitKey[0] || c.keys[3 * at + 1] !== f.hitKey[1])) at++;
      f.hitOrder = at + 1;
      f.lookupsMade = s.store === 'loose' ? at + 1 : searched;
    } else {
      f.storeKey = [c.keys[0], c.keys[1]];
      f.lookupsMade = searched;
    }
  } else if (s.method === 'grid') {
    f.size = grid.size;
    f.box = boxCells(x, y, s.r, grid.size);
    f.lookupsMade = f.box.length;
    f.storeKey = [Math.floor(x / grid.size), Math.floor(y / grid.size)];
  } else if (s.method === 'naive') {
    f.lookupsMade = merged ? m + 1 : countBefore;
  }
  return f;
}

const kdOf = memo((source, n) => kdShape(source, [0, 0, WORLD.width, WORLD.height], { maxDepth: n > 20000 ? 9 : 11 }));

// --- the whole view ----------------------------------------------------------------------------------
/**
 * The playground's view of a state: what cloud.js draws and the figures beside it print. The
 * same object comes back as long as the fields it reads are the same (so a change elsewhere on the
 * page does not redraw the playground).
 */
export function derive(s, traceWeld) {
  return deriveView(pointsOf(s).points, s.method, s.store, s.r, s.naiveAllowed, s.step, s.dragging >= 0 ? s.dragging : s.hover, traceWeld);
}

const deriveView = memo((points, method, store, r, naiveAllowed, stepAsked, focusIndex, traceWeld) => {
  const s = { method, store, r, naiveAllowed, step: stepAsked };
  const n = points.length / 2;
  const opts = { dim: 2, radius: s.r, method: s.method, store: s.store };
  const full = fullWeld(points, s.method, s.store, s.r, s.naiveAllowed);
  const R = bound(opts);
  const script = s.method === 'grid' ? traceOf(traceWeld, points, s.r) : null;
  const grid = s.method === 'grid' ? gridCells(points, s.r, script) : null;
  const cellSize = isGrid(s.method) ? cells([0, 0], opts).size : grid ? grid.size : 0;
  const step = s.step === null ? null : Math.min(s.step, n);
  const view = { points, n, r: s.r, R, method: s.method, store: s.store, cellSize, grid, full, step, done: 0, remap: null, reps: null, count: 0, focus: null, kd: null, occupied: null };
  let keptBefore = 0, home = null;
  if (!full && s.method === 'naive') {
    view.isRep = new Uint8Array(n);
  } else if (step !== null) {
    const at = stepAt(stepperOf(points, s.method, s.store, s.r), step);
    const a = analyse(points, at.remap, at.count, at.reps, step);
    Object.assign(view, { done: step, remap: at.remap, reps: at.reps, count: at.count, sizes: a.sizes, isRep: a.isRep });
    keptBefore = step > 0 ? at.countBefore : 0;
    if (isGrid(s.method)) home = homeCells(at.reps, s.method, s.r);
    if (step > 0) view.focus = describe(s, points, step - 1, at.remap[step - 1], at.remap[step - 1] < at.countBefore, at.reps, at.countBefore, home, grid);
  } else {
    Object.assign(view, { done: n, remap: full.remap, reps: full.positions, count: full.count, sizes: full.sizes, isRep: full.isRep });
    keptBefore = full.count;
    if (isGrid(s.method)) home = homeCells(full.positions, s.method, s.r);
    const i = focusIndex;
    if (i >= 0 && i < n) {
      const m = full.remap[i];
      view.focus = describe(s, points, i, m, !full.isRep[i], full.positions, m, home, grid);
    }
  }
  if (s.method === 'kdtree') {
    // the tree of the step mode holds the kept points so far; the one-shot weld's, every point
    view.kd = step !== null ? kdOf(view.reps.subarray(0, 2 * keptBefore), n) : kdOf(points, n);
  }
  if (home && view.reps && keptBefore <= OCCUPIED_MAX) view.occupied = Array.from({ length: keptBefore }, (_, m) => home(m));

  // the figures beside the canvas
  let look = '', lookNote = '';
  if (isGrid(s.method)) {
    look = String(lookups(s.method, 2));
    lookNote = s.store === 'loose' ? 'cells, at most (loose stops at the first filled one)' : 'cells, every one scanned';
  } else if (s.method === 'grid') {
    look = grid.touched.mean.toFixed(2);
    lookNote = `cells on average: those each point's r-box touches (cells of side ${grid.size.toPrecision(3)}, ${grid.from === 'module' ? 'from the module' : "this page's reading of the rule"})`;
  } else if (s.method === 'naive') {
    look = full ? naiveChecks(points, full.remap, n).toFixed(1) : '–';
    lookNote = 'distance checks, on average';
  } else {
    look = '1';
    lookNote = `range search of a tree ~${Math.max(1, Math.ceil(Math.log2(Math.max(2, n))))} levels deep`;
  }
  view.look = look;
  view.lookNote = lookNote;
  view.measures = measures(s.method);
  return view;
});
