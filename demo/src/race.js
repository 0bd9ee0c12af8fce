// The race: every method welds the playground's points in a Web Worker (the page stays
// responsive), a bar chart shows times and look-ups per point; then a sweep over uniform clouds
// of 1,000 to 1,000,000 points gives time against count per method, on a log-log plot, with
// meshoptimizer's exact remap as the reference line. Every number here is measured in this
// browser, now; the measurements go into the state (state.race) like everything else.
import { lookups } from 'meshweld';
import { gridCells, memo, pointsOf, traceOf } from './derive.js';
import { RACE_MAX } from './state.js';

const METHODS = ['naive', 'grid-r', 'grid-2r', 'hex', 'kdtree', 'grid'];
const COLOURS = { naive: '#8b4513', 'grid-r': '#3c8dbc', 'grid-2r': '#1f5fa8', hex: '#d4a017', kdtree: '#911eb4', grid: '#2a9d3c', meshopt: '#555' };
const NAIVE_MAX = 20000; // naive is quadratic: the race and the sweep stop it at this many points
const COUNTS = [1e3, 3e3, 1e4, 3e4, 1e5, 3e5, 1e6];
const int = (v) => v.toLocaleString('en-US');
const ms = (v) => (v < 1 ? v.toFixed(3) : v < 100 ? v.toFixed(1) : v.toFixed(0));

export function setupRace(section, { getState, update, traceWeld }) {
  const $ = (selector) => section.querySelector(selector);
  let worker = null, id = 0;

  const size = $('#race-max');
  for (const n of RACE_MAX) size.append(new Option(`up to ${int(n)} points`, String(n)));
  size.addEventListener('change', () => update({ raceMax: Number(size.value) }));

  const patchRace = (runId, change) => update((s) => (s.race?.id === runId ? { race: { ...s.race, ...change(s.race) } } : {}));

  $('#race-run').addEventListener('click', () => {
    worker?.terminate();
    worker = new Worker(new URL('./race-worker.js', import.meta.url), { type: 'module' });
    const s = getState();
    const { points } = pointsOf(s);
    const runId = ++id;
    const counts = COUNTS.filter((n) => n <= s.raceMax);
    update({ race: { id: runId, running: true, n: points.length / 2, r: s.r, store: s.store, counts, bars: {}, sweep: [], meshopt: null, error: null } });
    worker.onmessage = ({ data }) => {
      if (data.id !== runId) return;
      if (data.kind === 'result') patchRace(runId, (race) => ({ bars: { ...race.bars, [data.method]: data } }));
      else if (data.kind === 'point') patchRace(runId, (race) => ({ sweep: [...race.sweep, data] }));
      else if (data.kind === 'meshopt') patchRace(runId, () => ({ meshopt: data.available }));
      else if (data.kind === 'done' && !data.sweep) {
        if (!getState().race?.sweepStarted) {
          patchRace(runId, () => ({ sweepStarted: true }));
          worker.postMessage({ id: runId, kind: 'sweep', counts, methods: METHODS, naiveMax: NAIVE_MAX });
        } else {
          patchRace(runId, () => ({ running: false }));
        }
      }
    };
    worker.onerror = (event) => patchRace(runId, () => ({ running: false, error: event.message || 'the worker failed' }));
    worker.postMessage({ id: runId, kind: 'race', points: points.slice(), r: s.r, store: s.store, methods: METHODS, naiveMax: NAIVE_MAX });
  });

  // look-ups per point: the module's count for the fixed grids, the checks naive made, the
  // cells grid's r-boxes touch (its cell size from the trace when there is one)
  function lookupsOf(s, method, bar) {
    if (method === 'grid-r' || method === 'grid-2r' || method === 'hex') return { value: lookups(method, 2), note: 'cells, at most' };
    if (method === 'naive') return bar?.checks != null ? { value: bar.checks, note: 'distance checks' } : null;
    if (method === 'grid') {
      const { points } = pointsOf(s);
      return { value: gridCells(points, s.r, traceOf(traceWeld, points, s.r)).touched.mean, note: 'cells touched' };
    }
    return null;
  }

  function bars(s, race) {
    const rows = [...METHODS, 'meshopt'];
    const done = rows.filter((m) => race.bars[m] && !race.bars[m].skipped);
    const top = Math.max(1e-3, ...done.map((m) => race.bars[m].ms));
    const lookTop = Math.max(1, ...rows.map((m) => lookupsOf(s, m, race.bars[m])?.value ?? 0));
    const H = 22, y0 = 22, labelW = 92, barW = 200, gap = 20;
    const body = rows.map((m, k) => {
      const bar = race.bars[m];
      const y = y0 + k * H;
      const name = m === 'meshopt' ? 'meshopt exact' : m === 'kdtree' ? 'kd-tree' : m;
      let time;
      if (!bar) time = `<text x="${labelW}" y="${y + 13}" class="tiny">${race.running ? 'waiting…' : '–'}</text>`;
      else if (bar.skipped) time = `<text x="${labelW}" y="${y + 13}" class="tiny">${m === 'naive' ? `not run above ${int(NAIVE_MAX)} points (quadratic)` : 'meshoptimizer could not be loaded'}</text>`;
      else {
        const w = Math.max(1, (bar.ms / top) * barW);
        time = `<rect x="${labelW}" y="${y + 3}" width="${w.toFixed(1)}" height="${H - 8}" fill="${COLOURS[m]}"/><text x="${labelW + w + 4}" y="${y + 14}">${ms(bar.ms)} ms</text>`;
      }
      const look = lookupsOf(s, m, bar);
      const lx = labelW + barW + 70 + gap;
      const lw = look ? Math.max(1, (Math.log1p(look.value) / Math.log1p(lookTop)) * 110) : 0;
      const lookText = look
        ? `<rect x="${lx}" y="${y + 3}" width="${lw.toFixed(1)}" height="${H - 8}" fill="${COLOURS[m]}" opacity="0.55"/><text x="${lx + lw + 4}" y="${y + 14}">${look.value < 10 ? look.value.toFixed(2) : int(Math.round(look.value))} ${look.note}</text>`
        : `<text x="${lx}" y="${y + 14}" class="tiny">${m === 'kdtree' ? 'one tree search' : m === 'meshopt' ? 'one hash probe (r = 0)' : ''}</text>`;
      return `<g data-bar="${m}"><text x="0" y="${y + 14}" class="key">${name}</text>${time}${lookText}</g>`;
    }).join('');
    return `<svg viewBox="0 0 620 ${y0 + rows.length * H + 6}" role="img" aria-label="weld time and look-ups per point of each method on the playground's points">
      <text x="${92}" y="12" class="tiny">time (median of repeated runs)</text><text x="${92 + 200 + 90}" y="12" class="tiny">look-ups per point (log scale)</text>
      ${body}</svg>`;
  }

  function plot(race) {
    const W = 700, H = 260, x0 = 52, y0 = 14, pw = W - x0 - 220, ph = H - y0 - 36;
    const points = race.sweep;
    const lo = Math.max(1e-4, Math.min(1e-2, ...points.map((p) => p.ms))), hi = Math.min(1e6, Math.max(10, ...points.map((p) => p.ms)));
    const ly0 = Math.floor(Math.log10(lo)), ly1 = Math.ceil(Math.log10(hi));
    const X = (n) => x0 + ((Math.log10(n) - 3) / 3) * pw;
    const Y = (v) => y0 + ph - ((Math.log10(v) - ly0) / (ly1 - ly0)) * ph;
    let axes = '';
    for (let e = 3; e <= 6; e++) axes += `<line x1="${X(10 ** e)}" x2="${X(10 ** e)}" y1="${y0}" y2="${y0 + ph}" class="grid"/><text x="${X(10 ** e)}" y="${y0 + ph + 14}" text-anchor="middle" class="tiny">10${['³', '⁴', '⁵', '⁶'][e - 3]}</text>`;
    for (let e = ly0; e <= ly1; e++) axes += `<line x1="${x0}" x2="${x0 + pw}" y1="${Y(10 ** e)}" y2="${Y(10 ** e)}" class="grid"/><text x="${x0 - 6}" y="${Y(10 ** e) + 4}" text-anchor="end" class="tiny">${10 ** e >= 1 ? int(10 ** e) : 10 ** e} ms</text>`;
    axes += `<text x="${x0 + pw / 2}" y="${H - 4}" text-anchor="middle" class="tiny">points (uniform cloud, r a quarter of the spacing)</text>`;
    const series = [...METHODS, 'meshopt'].map((m, k) => {
      const list = points.filter((p) => p.method === m).sort((a, b) => a.n - b.n);
      if (!list.length) return '';
      const path = list.map((p, q) => `${q ? 'L' : 'M'}${X(p.n).toFixed(1)},${Y(p.ms).toFixed(1)}`).join('');
      const last = list[list.length - 1];
      const dash = m === 'meshopt' ? ' stroke-dasharray="5 4"' : '';
      return `<g data-series="${m}"><path d="${path}" fill="none" stroke="${COLOURS[m]}" stroke-width="2"${dash}/>${list.map((p) => `<circle cx="${X(p.n).toFixed(1)}" cy="${Y(p.ms).toFixed(1)}" r="2.5" fill="${COLOURS[m]}"/>`).join('')}
        <text x="${x0 + pw + 12}" y="${16 + k * 15}" style="fill: ${COLOURS[m]}" class="key">${m === 'meshopt' ? 'meshopt exact' : m === 'kdtree' ? 'kd-tree' : m}${m === 'naive' ? ` (≤ ${int(NAIVE_MAX)})` : ''}: ${ms(last.ms)} ms</text></g>`;
    }).join('');
    return `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="weld time against point count, log-log, per method">${axes}${series}</svg>`;
  }

  // drawn again only when the measurements or what they are shown against changed
  const show = memo((race, raceMax, points, r, gridLookups) => {
    void gridLookups;
    const s = getState();
    size.value = String(raceMax);
    $('#race-run').textContent = race?.running ? 'run it again' : 'run the race';
    if (!race) {
      $('#race-status').textContent = `Nothing measured yet. The race welds the playground's ${int(pointsOf(s).points.length / 2)} points with every method, then times each method on clouds of 1,000 to ${int(s.raceMax)} points.`;
      return;
    }
    section.dataset.state = race.running ? 'running' : race.error ? 'failed' : 'done';
    const sweepTotal = race.counts.length * (METHODS.length + 1);
    $('#race-status').textContent = race.error
      ? `The race stopped: ${race.error}.`
      : `${race.running ? 'Running in a worker' : 'Measured'} in this browser (${navigator.userAgent.match(/(Chrome|Firefox|Safari|Edg)\/[\d.]+/)?.[0] ?? 'this browser'}): ${int(race.n)} points, r = ${race.r}, ${race.store} store; the sweep ${race.sweep.length} of about ${sweepTotal} measurements.${race.meshopt === false ? ' meshoptimizer could not be loaded: no reference line.' : ''}`;
    $('#race-bars').innerHTML = bars(s, race);
    $('#race-plot').innerHTML = plot(race);
  });

  return {
    render(s) {
      show(s.race, s.raceMax, pointsOf(s).points, s.r, s.race ? lookupsOf(s, 'grid').value : null);
    },
  };
}
