// The playground: one state (state.js), one render() that derives everything from it. Every merge
// on screen comes from meshweld's WebAssembly module: weld() for the whole set, a Welder fed one
// point at a time for the step mode, cells() for the cells a point searches.
import { ready, weld, Welder } from 'meshweld';
import { bound, cells, lookups } from 'meshweld/inspect';
import { Cloud } from './cloud.js';
import { kdShape } from './geometry.js';
import { dependsOnRadius, generate, presets, WORLD } from './points.js';
import { countFromSlider, fromURL, METHODS, RADII, sliderFromCount, snapPoint, STORES, toURL, ZOOM_MAX } from './state.js';
import { renderExplanations, setupFigureDrags } from './figures.js';

const $ = (selector) => document.querySelector(selector);
const NAIVE_AUTO = 5000; // naive is quadratic: above this many points it runs on request only
const OCCUPIED_MAX = 2500; // draw the occupied store cells up to this many kept points
const SPEEDS = [2, 8, 40, 400]; // steps per second while playing

await ready;

const state = fromURL(location.search, presets);
let hover = -1; // the point under the pointer
let dragging = -1;
let editVersion = 0;
let naiveAllowed = false;
let playing = false;
let frames = 0;
let mesh = { refresh() {}, setURLState() {} }; // the 3D section, once loaded

const isGrid = (method) => method === 'grid-r' || method === 'grid-2r' || method === 'hex';
const options = () => ({ dim: 2, radius: state.r, method: state.method, store: state.store });
const fmt = (v, digits = 2) => v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const int = (v) => v.toLocaleString('en-US');

// --- points: the preset, then the edits (moved and added points) --------------------------------
let baseCache = { key: '', points: null };
function basePoints() {
  const key = [state.preset, state.seed, state.n, dependsOnRadius.has(state.preset) ? state.r : ''].join('|');
  if (baseCache.key !== key) baseCache = { key, points: generate(state.preset, state.seed, state.n, state.r) };
  return baseCache.points;
}

let pointsCache = { key: '', points: null };
function currentPoints() {
  const base = basePoints();
  const key = `${baseCache.key}|${editVersion}`;
  if (pointsCache.key === key) return pointsCache.points;
  const baseCount = base.length / 2;
  const points = new Float32Array(base.length + 2 * state.added.length);
  points.set(base);
  for (const [i, [x, y]] of state.moves) if (i < baseCount) points.set([x, y], 2 * i);
  state.added.forEach(([x, y], k) => points.set([x, y], base.length + 2 * k));
  pointsCache = { key, points };
  return points;
}

function clearEdits() {
  state.moves.clear();
  state.added = [];
  editVersion++;
}

function moveTo(i, x, y) {
  const [sx, sy] = snapPoint(Math.min(WORLD.width, Math.max(0, x)), Math.min(WORLD.height, Math.max(0, y)));
  const baseCount = basePoints().length / 2;
  if (i < baseCount) state.moves.set(i, [sx, sy]);
  else state.added[i - baseCount] = [sx, sy];
  editVersion++;
}

// --- the weld of the whole set ---------------------------------------------------------------------
let weldCache = { key: '', result: null };
function fullWeld(points) {
  const key = `${pointsCache.key}|${state.method}|${state.store}|${state.r}`;
  if (weldCache.key === key) return weldCache.result;
  const n = points.length / 2;
  if (state.method === 'naive' && n > NAIVE_AUTO && !naiveAllowed) return null;
  // time it: repeat small welds until a few milliseconds have passed, report the mean
  const start = performance.now();
  let result = weld(points, options());
  let runs = 1, elapsed = performance.now() - start;
  while (elapsed < 4 && runs < 200) {
    result = weld(points, options());
    runs++;
    elapsed = performance.now() - start;
  }
  result = { ...result, ms: elapsed / runs, runs, ...analyse(points, result.remap, result.count, result.positions, n) };
  weldCache = { key, result };
  return result;
}

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
function naiveChecks(points, remap, n) {
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

// --- step mode: a Welder fed one point at a time -------------------------------------------------
let stepper = { key: '', welder: null, done: 0, remap: null, countBefore: 0, reps: null };
function stepTo(points, k) {
  const key = `${pointsCache.key}|${state.method}|${state.store}|${state.r}`;
  if (stepper.key !== key || stepper.done > k) {
    stepper.welder?.dispose();
    stepper = { key, welder: new Welder(options()), done: 0, remap: new Uint32Array(points.length / 2), countBefore: 0, reps: null };
  }
  const s = stepper;
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
  if (!s.reps) s.reps = s.welder.positions();
  return s;
}

// --- the cells the module reports ------------------------------------------------------------------
let homeCache = { key: '', homes: new Map() };
function homeCell(m, reps) {
  const key = `${pointsCache.key}|${state.method}|${state.store}|${state.r}`;
  if (homeCache.key !== key) homeCache = { key, homes: new Map() };
  if (!homeCache.homes.has(m)) {
    const { keys } = cells([reps[2 * m], reps[2 * m + 1]], options());
    homeCache.homes.set(m, [keys[0], keys[1]]);
  }
  return homeCache.homes.get(m);
}

// What happened to point i in the loop: m its output, merged when m existed before it.
function describe(points, i, m, merged, reps, countBefore) {
  const x = points[2 * i], y = points[2 * i + 1];
  const f = { index: i, x, y, m, merged, keys: null, size: 0, lookupsMade: 0, rep: null, hitKey: null, storeKey: null, dupOf: -1, countBefore };
  if (merged) {
    f.rep = [reps[2 * m], reps[2 * m + 1]];
    f.distance = Math.hypot(x - f.rep[0], y - f.rep[1]);
  }
  for (let j = 0; j < i; j++)
    if (points[2 * j] === x && points[2 * j + 1] === y) {
      f.dupOf = j;
      return f;
    }
  if (isGrid(state.method)) {
    const c = cells([x, y], options());
    f.keys = c.keys;
    f.size = c.size;
    const searched = c.keys.length / 3;
    if (merged) {
      f.hitKey = homeCell(m, reps);
      let at = 0;
      while (at < searched && (c.keys[3 * at] !== f.hitKey[0] || c.keys[3 * at + 1] !== f.hitKey[1])) at++;
      f.hitOrder = at + 1;
      f.lookupsMade = state.store === 'loose' ? at + 1 : searched;
    } else {
      f.storeKey = [c.keys[0], c.keys[1]];
      f.lookupsMade = searched;
    }
  } else if (state.method === 'naive') {
    f.lookupsMade = merged ? m + 1 : countBefore;
  }
  return f;
}

function sentence(f) {
  const where = `(${fmt(f.x)}, ${fmt(f.y)})`;
  const dist = f.merged ? `${fmt(f.distance / state.r)} r away` : '';
  if (f.dupOf >= 0) {
    return `Point ${f.index} ${where} is an exact copy of point ${f.dupOf}: the table of exact positions answers before any search, so it joins output ${f.m}.`;
  }
  const m = state.method;
  if (isGrid(m)) {
    const searched = f.keys.length / 3;
    if (!f.merged) {
      return `Point ${f.index} ${where}: the ${searched} cells searched hold no kept point within reach, so it is kept as output ${f.m} and stored in cell (${f.storeKey[0]}, ${f.storeKey[1]}) (blue).`;
    }
    if (state.store === 'loose') {
      return `Point ${f.index} ${where}: cell ${f.hitOrder} of the ${searched} in its search order (green) holds output ${f.m}, ${dist}: merged, with no distance check (loose store)${f.hitOrder < searched ? `; it stopped there, ${searched - f.hitOrder} ${searched - f.hitOrder === 1 ? 'cell' : 'cells'} left unsearched` : ''}.`;
    }
    return `Point ${f.index} ${where}: all ${searched} cells searched; the earliest kept point within r is output ${f.m} (in the green cell), ${dist}: merged.`;
  }
  if (m === 'naive') {
    return f.merged
      ? `Point ${f.index} ${where}: compared with outputs 0 to ${f.m}; output ${f.m} is the first within r, ${dist}: merged.`
      : `Point ${f.index} ${where}: compared with all ${f.countBefore} kept points, none within r: kept as output ${f.m}.`;
  }
  return f.merged
    ? `Point ${f.index} ${where}: the tree's range search (shaded leaves) finds output ${f.m}, the earliest kept point within r, ${dist}: merged.`
    : `Point ${f.index} ${where}: the tree's range search finds no kept point within r: kept as output ${f.m}.`;
}

// --- drawing and figures ------------------------------------------------------------------------
const cloud = new Cloud($('#cloud'));
let kdCache = { key: '', shape: null };

function render() {
  frames++;
  const points = currentPoints();
  const n = points.length / 2;
  if (state.step !== null) state.step = Math.min(state.step, n);
  const opts = options();
  const full = fullWeld(points);
  const R = bound(opts);
  const cellSize = isGrid(state.method) ? cells([0, 0], opts).size : 0;

  const view = { points, n, r: state.r, R, method: state.method, store: state.store, cellSize, done: 0, remap: null, reps: null, count: 0, focus: null, kd: null, occupied: null };
  let keptBefore = 0;
  if (!full && state.method === 'naive') {
    view.isRep = new Uint8Array(n);
  } else if (state.step !== null) {
    const k = state.step;
    const s = stepTo(points, k);
    const a = analyse(points, s.remap, s.welder.count, s.reps, k);
    Object.assign(view, { done: k, remap: s.remap, reps: s.reps, count: s.welder.count, sizes: a.sizes, isRep: a.isRep });
    keptBefore = k > 0 ? s.countBefore : 0;
    if (k > 0) view.focus = describe(points, k - 1, s.remap[k - 1], s.remap[k - 1] < s.countBefore, s.reps, s.countBefore);
  } else {
    Object.assign(view, { done: n, remap: full.remap, reps: full.positions, count: full.count, sizes: full.sizes, isRep: full.isRep });
    keptBefore = full.count;
    const i = dragging >= 0 ? dragging : hover;
    if (i >= 0 && i < n) {
      const m = full.remap[i];
      view.focus = describe(points, i, m, !full.isRep[i], full.positions, m);
    }
  }

  if (state.method === 'kdtree') {
    // the tree of the step mode holds the kept points so far; the one-shot weld's, every point
    const source = state.step !== null ? view.reps.subarray(0, 2 * keptBefore) : points;
    const key = state.step !== null ? `${stepper.key}|${state.step}` : pointsCache.key;
    if (kdCache.key !== key) kdCache = { key, shape: kdShape(source, [0, 0, WORLD.width, WORLD.height], { maxDepth: n > 20000 ? 9 : 11 }) };
    view.kd = kdCache.shape;
  }
  if (state.step !== null && view.focus && state.zoom > 1) {
    // stepping while zoomed in: keep the current point in sight
    const [x0, y0, x1, y1] = cloud.visible();
    const { x, y } = view.focus;
    if (x < x0 || x > x1 || y < y0 || y > y1) state.at = cloud.setView(state.zoom, [x, y]);
  }
  if (isGrid(state.method) && view.reps && keptBefore <= OCCUPIED_MAX) {
    view.occupied = Array.from({ length: keptBefore }, (_, m) => homeCell(m, view.reps));
  }
  cloud.draw(view);
  $('#cloud').dataset.frame = String(frames);

  // live figures
  $('#naive-note').hidden = !(state.method === 'naive' && !full);
  $('#out-in').textContent = int(n);
  $('#out-out').textContent = full ? int(full.count) : '–';
  $('#out-time').textContent = full ? `${fmt(full.ms, full.ms < 1 ? 3 : 1)} ms` : '–';
  $('#out-time-note').textContent = full ? (full.runs > 1 ? `mean of ${full.runs} runs` : 'one run') : 'not run';
  $('#out-far').textContent = full ? `${fmt(full.far / state.r)} r` : '–';
  $('#out-bound').textContent = `${fmt(R / state.r)} r`;
  let look = '', lookNote = '';
  if (isGrid(state.method)) {
    look = String(lookups(state.method, 2));
    lookNote = state.store === 'loose' ? 'cells, at most (loose stops at the first filled one)' : 'cells, every one scanned';
  } else if (state.method === 'naive') {
    look = full ? fmt(naiveChecks(points, full.remap, n), 1) : '–';
    lookNote = 'distance checks, on average';
  } else {
    look = '1';
    lookNote = `range search of a tree ~${Math.max(1, Math.ceil(Math.log2(Math.max(2, n))))} levels deep`;
  }
  $('#out-lookups').textContent = look;
  $('#out-lookups-note').textContent = lookNote;
  $('#out-method').textContent = full ? `${full.method}, ${state.method === 'naive' || state.method === 'kdtree' ? 'always precise' : `${state.store} store`}` : state.method;

  // step controls and the sentence under the canvas
  const stepping = state.step !== null;
  $('#step-count').textContent = stepping ? `step ${int(state.step)} of ${int(n)}` : `the whole weld (${int(n)} points)`;
  $('#step-back').disabled = !stepping || state.step === 0;
  $('#step-forward').disabled = stepping && state.step >= n;
  $('#step-play').textContent = playing ? 'pause' : 'play';
  $('#step-play').setAttribute('aria-pressed', String(playing));
  $('#step-all').disabled = !stepping;
  $('#zoom-out').disabled = $('#zoom-reset').disabled = state.zoom <= 1;
  $('#zoom-in').disabled = state.zoom >= ZOOM_MAX;
  let text;
  if (view.focus) text = sentence(view.focus);
  else if (stepping) text = state.step === 0 ? 'Nothing welded yet: press step or play to feed the points to the module one by one.' : '';
  else text = 'Hover a point to see the cells it searched and where it went; drag it to move it, click empty space to add one.';
  $('#step-text').textContent = text;

  syncControls();
  renderExplanations(state, { R, far: full ? full.far : null, count: full ? full.count : null, n });
  scheduleURL();
}

let pending = 0;
function invalidate() {
  if (!pending) pending = requestAnimationFrame(() => {
    pending = 0;
    render();
  });
}

let urlTimer = 0;
function scheduleURL() {
  clearTimeout(urlTimer);
  urlTimer = setTimeout(() => {
    const url = toURL(state);
    if (url !== location.search) history.replaceState(null, '', url + location.hash);
    mesh.setURLState(state);
  }, dragging >= 0 || playing ? 400 : 60);
}

// --- controls ---------------------------------------------------------------------------------------
function buttons(container, values, key, onSet) {
  for (const value of values) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = value === 'kdtree' ? 'kd-tree' : value;
    b.dataset.value = value;
    b.addEventListener('click', () => {
      state[key] = value;
      onSet?.();
      invalidate();
    });
    container.append(b);
  }
}
buttons($('#method'), METHODS, 'method', () => mesh.refresh());
buttons($('#store'), STORES, 'store', () => mesh.refresh());

const radius = $('#radius');
radius.max = String(RADII.length - 1);
radius.addEventListener('input', () => {
  state.r = RADII[Number(radius.value)];
  invalidate();
});

const preset = $('#preset');
for (const [value, label] of Object.entries(presets)) preset.append(new Option(label, value));
preset.addEventListener('change', () => {
  state.preset = preset.value;
  clearEdits();
  invalidate();
});

const seed = $('#seed');
seed.addEventListener('change', () => {
  state.seed = Math.max(0, Math.floor(Number(seed.value) || 0));
  clearEdits();
  invalidate();
});
$('#reseed').addEventListener('click', () => {
  state.seed = (state.seed % 9999) + 1;
  clearEdits();
  invalidate();
});

const count = $('#count');
count.addEventListener('input', () => {
  state.n = countFromSlider(Number(count.value));
  clearEdits();
  invalidate();
});

$('#naive-run').addEventListener('click', () => {
  naiveAllowed = true;
  invalidate();
});

function syncControls() {
  for (const b of $('#method').children) b.setAttribute('aria-pressed', String(b.dataset.value === state.method));
  for (const b of $('#store').children) b.setAttribute('aria-pressed', String(b.dataset.value === state.store));
  const measures = state.method === 'naive' || state.method === 'kdtree';
  $('#store').classList.toggle('inert', measures);
  $('#store').title = measures ? 'naive and the kd-tree always measure the distance: the store does not apply' : '';
  radius.value = String(RADII.indexOf(state.r));
  $('#radius-out').textContent = String(state.r);
  preset.value = state.preset;
  if (document.activeElement !== seed) seed.value = String(state.seed);
  count.value = String(sliderFromCount(state.n));
  $('#count-out').textContent = int(state.n);
}

// step mode
const total = () => currentPoints().length / 2;
$('#step-forward').addEventListener('click', () => {
  state.step = state.step === null ? 1 : Math.min(total(), state.step + 1);
  invalidate();
});
$('#step-back').addEventListener('click', () => {
  if (state.step !== null) state.step = Math.max(0, state.step - 1);
  invalidate();
});
$('#step-start').addEventListener('click', () => {
  state.step = 0;
  invalidate();
});
$('#step-all').addEventListener('click', () => {
  state.step = null;
  playing = false;
  invalidate();
});
$('#step-play').addEventListener('click', () => {
  playing = !playing;
  if (playing && (state.step === null || state.step >= total())) state.step = 0;
  if (playing) play();
  invalidate();
});
const speed = $('#speed');
let last = 0, carry = 0;
function play() {
  last = performance.now();
  carry = 0;
  const tick = (now) => {
    if (!playing) return;
    carry += ((now - last) / 1000) * SPEEDS[Number(speed.value)];
    last = now;
    const steps = Math.floor(carry);
    if (steps > 0) {
      carry -= steps;
      state.step = Math.min(total(), (state.step ?? 0) + steps);
      if (state.step >= total()) playing = false;
      invalidate();
    }
    if (playing) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}

// pointer: pick or add a point, drag it; the state changes, render() redraws
const canvas = $('#cloud');
canvas.addEventListener('pointerdown', (event) => {
  if (event.button !== 0) return;
  const [x, y] = cloud.toWorld(event);
  const points = currentPoints();
  const i = cloud.pick(points, x, y);
  if (i >= 0) {
    dragging = i;
  } else {
    state.added.push(snapPoint(x, y));
    editVersion++;
    dragging = points.length / 2;
  }
  canvas.setPointerCapture(event.pointerId);
  invalidate();
});
canvas.addEventListener('pointermove', (event) => {
  const [x, y] = cloud.toWorld(event);
  if (dragging >= 0) {
    moveTo(dragging, x, y);
    invalidate();
  } else if (event.pointerType === 'mouse') {
    const i = cloud.pick(currentPoints(), x, y);
    if (i !== hover) {
      hover = i;
      invalidate();
    }
  }
});
const release = (event) => {
  if (dragging < 0) return;
  dragging = -1;
  if (canvas.hasPointerCapture(event.pointerId)) canvas.releasePointerCapture(event.pointerId);
  invalidate();
};
canvas.addEventListener('pointerup', release);
canvas.addEventListener('pointercancel', release);
canvas.addEventListener('pointerleave', () => {
  if (dragging < 0 && hover >= 0) {
    hover = -1;
    invalidate();
  }
});
canvas.addEventListener('keydown', (event) => {
  if (event.key === 'ArrowRight') $('#step-forward').click();
  else if (event.key === 'ArrowLeft') $('#step-back').click();
  else return;
  event.preventDefault();
});
window.addEventListener('resize', invalidate);
// a file dropped outside the 3D section must not navigate away from the page
window.addEventListener('dragover', (event) => event.preventDefault());
window.addEventListener('drop', (event) => event.preventDefault());

// zoom: the wheel zooms about the pointer, the buttons about the centre
function zoomBy(factor, [x, y] = state.at) {
  const zoom = Math.min(ZOOM_MAX, Math.max(1, state.zoom * factor));
  // keep world point (x, y) where it is on screen
  const k = state.zoom / zoom;
  state.at = cloud.setView(zoom, [x + (state.at[0] - x) * k, y + (state.at[1] - y) * k]);
  state.zoom = zoom;
  invalidate();
}
canvas.addEventListener('wheel', (event) => {
  event.preventDefault();
  zoomBy(event.deltaY < 0 ? 1.25 : 0.8, cloud.toWorld(event));
}, { passive: false });
$('#zoom-in').addEventListener('click', () => zoomBy(2));
$('#zoom-out').addEventListener('click', () => zoomBy(0.5));
$('#zoom-reset').addEventListener('click', () => zoomBy(1 / state.zoom));
state.at = cloud.setView(state.zoom, state.at);

setupFigureDrags(() => state);

// the 3D section (and three.js with it) loads after the playground is up
render();
document.documentElement.dataset.ready = 'true';
import('./mesh.js').then(({ setupMesh }) => {
  mesh = setupMesh($('#mesh'), { state, options: () => ({ method: state.method, store: state.store }), onChange: () => scheduleURL() });
  document.documentElement.dataset.meshReady = 'true';
});
