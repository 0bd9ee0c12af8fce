// The playground: one state (state.js), replaced by update(), never mutated; one derivation of it
// (derive.js); one render() that reads both and draws. Every merge on screen comes from meshweld's
// WebAssembly module: weld() for the whole set, a Welder fed one point at a time for the step
// mode, cells() for the cells a point searches, the engine's trace for grid (trace.js).
import { ready } from 'meshweld';
import { Cloud } from './cloud.js';
import { derive, isGrid, memo, pointsOf } from './derive.js';
import { WORLD, presets } from './points.js';
import { countFromSlider, fromURL, METHODS, RADII, sliderFromCount, snapPoint, STORES, toURL, viewBox, ZOOM_MAX } from './state.js';
import { renderExplanations, setupFigureDrags } from './figures.js';
import { loadTrace } from './trace.js';
import { setupEngine } from './engine.js';
import { setupRace } from './race.js';

const $ = (selector) => document.querySelector(selector);
const SPEEDS = [2, 8, 40, 400]; // steps per second while playing

await ready;
const traceWeld = await loadTrace();

let state = fromURL(location.search, presets);
state = { ...state, at: viewBox(state.zoom, state.at, WORLD).at };
const view = (s) => derive(s, traceWeld);
const fmt = (v, digits = 2) => v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const int = (v) => v.toLocaleString('en-US');
const total = (s = state) => pointsOf(s).points.length / 2;
let frames = 0;
let late = []; // the sections that load after the playground (the 3D ones): each has render(state)

/** The one way the state changes: a patch (or a function of the state giving one), then a redraw. */
function update(patch) {
  const next = { ...state, ...(typeof patch === 'function' ? patch(state) : patch) };
  const at = viewBox(next.zoom, next.at, WORLD).at;
  next.at = at[0] === state.at[0] && at[1] === state.at[1] ? state.at : at; // the same view, the same value
  if (next.step !== null) next.step = Math.min(Math.max(0, next.step), total(next));
  state = next;
  invalidate();
  scheduleURL();
}

// the edits: points moved and added (each a new Map or array)
const clearEdits = { moves: new Map(), added: [], hover: -1, dragging: -1 };
function moveTo(s, i, x, y) {
  const p = snapPoint(Math.min(WORLD.width, Math.max(0, x)), Math.min(WORLD.height, Math.max(0, y)));
  const baseCount = pointsOf(s).base.length / 2;
  if (i < baseCount) return { moves: new Map(s.moves).set(i, p) };
  const added = [...s.added];
  added[i - baseCount] = p;
  return { added };
}

// a step of the loop, keeping the current point in sight when zoomed in
function stepTo(k) {
  update((s) => {
    const step = Math.min(total(s), Math.max(0, k));
    const patch = { step };
    if (s.zoom > 1 && step > 0) {
      const { points } = pointsOf(s);
      const x = points[2 * (step - 1)], y = points[2 * (step - 1) + 1];
      const [x0, y0, x1, y1] = viewBox(s.zoom, s.at, WORLD).box;
      if (x < x0 || x > x1 || y < y0 || y > y1) patch.at = [x, y];
    }
    return patch;
  });
}

function sentence(state, f) {
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
  if (m === 'grid') {
    const cellsText = f.box.length === 1 ? 'one cell' : `${f.box.length} cells`;
    const head = `Point ${f.index} ${where}: its r-box touches ${cellsText} of side ${fmt(f.size)} (yellow)`;
    return f.merged
      ? `${head}; the earliest kept point within r there is output ${f.m}, ${dist}: merged (grid always measures, like naive).`
      : `${head}, which hold no kept point within r: kept as output ${f.m}, in cell (${f.storeKey[0]}, ${f.storeKey[1]}) (blue).`;
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

// --- drawing -----------------------------------------------------------------------------------------
const cloud = new Cloud($('#cloud'));
// the canvas is drawn again only when its view, the zoom or its width changed
const drawCloud = memo((v, zoom, at, width) => {
  void width;
  cloud.setView(zoom, at);
  cloud.draw(v);
});

function render() {
  frames++;
  const s = state;
  const v = view(s);
  drawCloud(v, s.zoom, s.at, $('#cloud').clientWidth);
  $('#cloud').dataset.frame = String(frames);
  const { full, n } = v;

  // live figures
  $('#naive-note').hidden = !(s.method === 'naive' && !full);
  $('#out-in').textContent = int(n);
  $('#out-out').textContent = full ? int(full.count) : '–';
  $('#out-time').textContent = full ? `${fmt(full.ms, full.ms < 1 ? 3 : 1)} ms` : '–';
  $('#out-time-note').textContent = full ? (full.runs > 1 ? `mean of ${full.runs} runs` : 'one run') : 'not run';
  $('#out-far').textContent = full ? `${fmt(full.far / s.r)} r` : '–';
  $('#out-bound').textContent = `${fmt(v.R / s.r)} r`;
  $('#out-lookups').textContent = v.look;
  $('#out-lookups-note').textContent = v.lookNote;
  $('#out-method').textContent = full ? `${full.method}, ${v.measures ? 'always precise' : `${s.store} store`}` : s.method;

  // step controls and the sentence under the canvas
  const stepping = v.step !== null;
  $('#step-count').textContent = stepping ? `step ${int(v.step)} of ${int(n)}` : `the whole weld (${int(n)} points)`;
  $('#step-back').disabled = !stepping || v.step === 0;
  $('#step-forward').disabled = stepping && v.step >= n;
  $('#step-play').textContent = s.playing === 'loop' ? 'pause' : 'play';
  $('#step-play').setAttribute('aria-pressed', String(s.playing === 'loop'));
  $('#step-all').disabled = !stepping;
  $('#speed').value = String(s.speed);
  $('#zoom-out').disabled = $('#zoom-reset').disabled = s.zoom <= 1;
  $('#zoom-in').disabled = s.zoom >= ZOOM_MAX;
  let text;
  if (v.focus) text = sentence(s, v.focus);
  else if (stepping) text = v.step === 0 ? 'Nothing welded yet: press step or play to feed the points to the module one by one.' : '';
  else text = 'Hover a point (or tap it) to see the cells it searched and where it went; drag it to move it, click or tap empty space to add one.';
  $('#step-text').textContent = text;

  syncControls(s);
  renderExplanations(s, { R: v.R, far: full ? full.far : null, count: full ? full.count : null, n, grid: v.grid, points: v.points, traceWeld });
  engine.render(s);
  race.render(s);
  for (const section of late) section.render(s);
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
  }, state.dragging >= 0 || state.playing ? 400 : 60);
}

// --- controls ---------------------------------------------------------------------------------------
function buttons(container, values, key) {
  for (const value of values) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = value === 'kdtree' ? 'kd-tree' : value;
    b.dataset.value = value;
    b.addEventListener('click', () => update({ [key]: value, hover: -1 }));
    container.append(b);
  }
}
buttons($('#method'), METHODS, 'method');
buttons($('#store'), STORES, 'store');

const radius = $('#radius');
radius.max = String(RADII.length - 1);
radius.addEventListener('input', () => update({ r: RADII[Number(radius.value)], engine: null }));

const preset = $('#preset');
for (const [value, label] of Object.entries(presets)) preset.append(new Option(label, value));
preset.addEventListener('change', () => update({ preset: preset.value, engine: null, ...clearEdits }));

const seed = $('#seed');
seed.addEventListener('change', () => update({ seed: Math.max(0, Math.floor(Number(seed.value) || 0)), engine: null, ...clearEdits }));
$('#reseed').addEventListener('click', () => update((s) => ({ seed: (s.seed % 9999) + 1, engine: null, ...clearEdits })));

const count = $('#count');
count.addEventListener('input', () => update({ n: countFromSlider(Number(count.value)), engine: null, ...clearEdits }));

$('#naive-run').addEventListener('click', () => update({ naiveAllowed: true }));

function syncControls(s) {
  for (const b of $('#method').children) b.setAttribute('aria-pressed', String(b.dataset.value === s.method));
  for (const b of $('#store').children) b.setAttribute('aria-pressed', String(b.dataset.value === s.store));
  const measures = s.method === 'naive' || s.method === 'kdtree' || s.method === 'grid';
  $('#store').classList.toggle('inert', measures);
  $('#store').title = measures ? `${s.method} always measures the distance: the store does not apply` : '';
  radius.value = String(RADII.indexOf(s.r));
  $('#radius-out').textContent = String(s.r);
  preset.value = s.preset;
  if (document.activeElement !== seed) seed.value = String(s.seed);
  count.value = String(sliderFromCount(s.n));
  $('#count-out').textContent = int(s.n);
}

// step mode: buttons, and keys on the canvas or the step controls (← → step, Home restarts,
// End shows the whole weld, space plays and pauses)
$('#step-forward').addEventListener('click', () => stepTo(state.step === null ? 1 : state.step + 1));
$('#step-back').addEventListener('click', () => state.step !== null && stepTo(state.step - 1));
$('#step-start').addEventListener('click', () => stepTo(0));
$('#step-all').addEventListener('click', () => update({ step: null, playing: null }));
$('#step-play').addEventListener('click', () => {
  if (state.playing === 'loop') return update({ playing: null });
  update((s) => ({ playing: 'loop', step: s.step === null || s.step >= total(s) ? 0 : s.step }));
  play();
});
$('#speed').addEventListener('change', () => update({ speed: Number($('#speed').value) }));
function stepKeys(event) {
  const actions = { ArrowRight: '#step-forward', ArrowLeft: '#step-back', Home: '#step-start', End: '#step-all', ' ': '#step-play' };
  if (!(event.key in actions) || event.target.matches('select, input')) return;
  if (event.key === ' ' && event.target.matches('button')) return; // the button's own click
  event.preventDefault();
  $(actions[event.key]).click();
}
$('#cloud').addEventListener('keydown', stepKeys);
$('#playground .stepper').addEventListener('keydown', stepKeys);

// The clock: while the state says playing, steps are added at the chosen speed.
let clock = 0;
function play() {
  if (clock) return;
  let last = performance.now(), carry = 0;
  const tick = (now) => {
    clock = 0;
    if (!state.playing) return;
    carry += ((now - last) / 1000) * SPEEDS[state.speed];
    last = now;
    const steps = Math.floor(carry);
    if (steps > 0) {
      carry -= steps;
      if (state.playing === 'loop') {
        stepTo((state.step ?? 0) + steps);
        if (state.step >= total()) update({ playing: null });
      } else if (!engine.advance(steps)) {
        update({ playing: null });
      }
    }
    if (state.playing) clock = requestAnimationFrame(tick);
  };
  clock = requestAnimationFrame(tick);
}

// pointer (mouse, pen, touch): pick or add a point, drag it; a tap on a point selects it
const canvas = $('#cloud');
canvas.addEventListener('pointerdown', (event) => {
  if (event.button !== 0) return;
  const [x, y] = cloud.toWorld(event);
  const { points } = pointsOf(state);
  const i = cloud.pick(points, x, y, event.pointerType === 'mouse' ? 9 : 16);
  canvas.setPointerCapture(event.pointerId);
  if (i >= 0) update({ dragging: i, hover: i });
  else update((s) => ({ added: [...s.added, snapPoint(x, y)], dragging: points.length / 2, hover: points.length / 2 }));
});
canvas.addEventListener('pointermove', (event) => {
  const [x, y] = cloud.toWorld(event);
  if (state.dragging >= 0) {
    update((s) => moveTo(s, s.dragging, x, y));
  } else if (event.pointerType === 'mouse') {
    const i = cloud.pick(pointsOf(state).points, x, y);
    if (i !== state.hover) update({ hover: i });
  }
});
const release = (event) => {
  if (state.dragging < 0) return;
  if (canvas.hasPointerCapture(event.pointerId)) canvas.releasePointerCapture(event.pointerId);
  // a mouse keeps hovering; a finger lifted leaves its point selected
  update({ dragging: -1 });
};
canvas.addEventListener('pointerup', release);
canvas.addEventListener('pointercancel', release);
canvas.addEventListener('pointerleave', (event) => {
  if (event.pointerType === 'mouse' && state.dragging < 0 && state.hover >= 0) update({ hover: -1 });
});
window.addEventListener('resize', invalidate);
// a file dropped outside the 3D section must not navigate away from the page
window.addEventListener('dragover', (event) => event.preventDefault());
window.addEventListener('drop', (event) => event.preventDefault());

// zoom: the wheel zooms about the pointer, the buttons about the centre
function zoomBy(factor, about) {
  update((s) => {
    const [x, y] = about ?? s.at;
    const zoom = Math.min(ZOOM_MAX, Math.max(1, s.zoom * factor));
    const k = s.zoom / zoom; // keep world point (x, y) where it is on screen
    return { zoom, at: [x + (s.at[0] - x) * k, y + (s.at[1] - y) * k] };
  });
}
canvas.addEventListener('wheel', (event) => {
  event.preventDefault();
  zoomBy(event.deltaY < 0 ? 1.25 : 0.8, cloud.toWorld(event));
}, { passive: false });
$('#zoom-in').addEventListener('click', () => zoomBy(2));
$('#zoom-out').addEventListener('click', () => zoomBy(0.5));
$('#zoom-reset').addEventListener('click', () => zoomBy(1 / state.zoom));

setupFigureDrags(() => state);
const sections = { getState: () => state, update, play };
const engine = setupEngine($('#engine'), { ...sections, traceWeld });
const race = setupRace($('#race'), { ...sections, traceWeld });

// the 3D sections (and three.js with them) load after the playground is up
render();
scheduleURL();
document.documentElement.dataset.ready = 'true';
Promise.all([import('./mesh.js'), import('./bcc.js')]).then(([{ setupMesh }, { setupBcc }]) => {
  late = [setupMesh($('#mesh'), sections), setupBcc($('#bcc'), sections)];
  render();
  document.documentElement.dataset.meshReady = 'true';
});
