// The spatial engine behind grid and auto, step by step, on the playground's points and r: the
// trace (trace.js) from the module when it has one; without it, grid's cells as this page reads
// the rule, the r-box of the hovered point and the cells it touches, and a note.
import { gridCells, memo, pointsOf, traceOf } from './derive.js';
import { boxCells, phaseMs, walkStep } from './trace.js';
import { WORLD } from './points.js';

const PALETTE = ['#e6194b', '#3c8dbc', '#2a9d3c', '#f58231', '#911eb4', '#0fa3b1', '#d4a017', '#f032e6', '#6b8e23', '#8b4513'];
const PHASES = ['duplicates', 'sort', 'pairs', 'graph', 'walk'];
const PHASE_TEXT = {
  duplicates: 'exact copies', sort: 'sort into cells', pairs: 'pairs within r', graph: 'earlier neighbours', walk: 'walk in input order',
};
const int = (v) => v.toLocaleString('en-US');
const ms = (v) => (v === null ? '–' : `${v < 1 ? v.toFixed(3) : v.toFixed(1)} ms`);

export function setupEngine(section, { getState, update, play, traceWeld }) {
  const $ = (selector) => section.querySelector(selector);
  const canvas = $('#engine-canvas');
  const ctx = canvas.getContext('2d');
  const scriptOf = (s) => {
    const { points } = pointsOf(s);
    return { points, script: traceOf(traceWeld, points, s.r) };
  };
  const stepCount = (s) => scriptOf(s).script?.steps.length ?? 0;
  const go = (k) => update((s) => ({ engine: Math.max(0, Math.min(stepCount(s) - 1, k)) }));

  $('#engine-note').hidden = !!traceWeld;
  for (const control of section.querySelectorAll('.engine-stepper button')) control.disabled = !traceWeld;
  $('#engine-start').addEventListener('click', () => go(0));
  $('#engine-back').addEventListener('click', () => go((getState().engine ?? stepCount(getState())) - 1));
  $('#engine-forward').addEventListener('click', () => go((getState().engine ?? -1) + 1));
  $('#engine-all').addEventListener('click', () => update({ engine: null, playing: null }));
  $('#engine-play').addEventListener('click', () => {
    const s = getState();
    if (s.playing === 'engine') return update({ playing: null });
    const last = stepCount(s) - 1;
    update({ playing: 'engine', engine: s.engine === null || s.engine >= last ? 0 : s.engine });
    play();
  });
  for (const b of section.querySelectorAll('[data-phase]')) {
    b.addEventListener('click', () => {
      const { script } = scriptOf(getState());
      if (script && b.dataset.phase in script.phaseStart) go(script.phaseStart[b.dataset.phase]);
    });
  }
  const keys = (event) => {
    const actions = { ArrowRight: '#engine-forward', ArrowLeft: '#engine-back', Home: '#engine-start', End: '#engine-all', ' ': '#engine-play' };
    if (!(event.key in actions) || event.target.matches('select, input')) return;
    if (event.key === ' ' && event.target.matches('button')) return;
    event.preventDefault();
    $(actions[event.key]).click();
  };
  canvas.addEventListener('keydown', keys);
  $('.engine-stepper').addEventListener('keydown', keys);

  // the pointer: hover (or tap) a point to see its r-box and the cells it touches
  const toWorld = (event) => {
    const rect = canvas.getBoundingClientRect();
    return [((event.clientX - rect.left) / rect.width) * WORLD.width, ((event.clientY - rect.top) / rect.height) * WORLD.height];
  };
  const pickAt = (event) => {
    const [x, y] = toWorld(event);
    const { points } = pointsOf(getState());
    const limit = ((event.pointerType === 'mouse' ? 9 : 16) * WORLD.width) / (canvas.clientWidth || 800);
    let best = limit * limit, found = -1;
    for (let i = 0; i < points.length / 2; i++) {
      const d = (points[2 * i] - x) ** 2 + (points[2 * i + 1] - y) ** 2;
      if (d <= best) (best = d), (found = i);
    }
    if (found !== getState().engineHover) update({ engineHover: found });
  };
  canvas.addEventListener('pointermove', pickAt);
  canvas.addEventListener('pointerdown', pickAt);
  canvas.addEventListener('pointerleave', (event) => event.pointerType === 'mouse' && update({ engineHover: -1 }));

  // the steps' drawings are cheap; the trace itself is memoised in derive.js
  const colours = memo((script) => script && Uint8Array.from(script.trace.remap, (m) => m % PALETTE.length));

  function draw(s, points, script, grid, step) {
    const width = canvas.clientWidth || 800, dpr = Math.min(window.devicePixelRatio || 1, 2);
    const height = Math.round((width * WORLD.height) / WORLD.width);
    canvas.style.height = `${height}px`;
    if (canvas.width !== Math.round(width * dpr)) (canvas.width = Math.round(width * dpr)), (canvas.height = Math.round(height * dpr));
    const k = canvas.width / WORLD.width, px = 1 / k;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.setTransform(k, 0, 0, k, 0, 0);
    const n = points.length / 2;
    const c = grid.size;
    const line = (x0, y0, x1, y1) => (ctx.moveTo(x0, y0), ctx.lineTo(x1, y1));
    const cellRect = (i, j) => [i * c, j * c, c, c];
    if (c * k >= 5) {
      ctx.strokeStyle = '#dfe3e8';
      ctx.lineWidth = px * dpr;
      ctx.beginPath();
      for (let x = 0; x <= WORLD.width; x += c) line(x, 0, x, WORLD.height);
      for (let y = 0; y <= WORLD.height; y += c) line(0, y, WORLD.width, y);
      ctx.stroke();
    }
    const dots = (list, colour, size) => {
      ctx.fillStyle = colour;
      ctx.beginPath();
      for (const i of list) {
        ctx.moveTo(points[2 * i] + size, points[2 * i + 1]);
        ctx.arc(points[2 * i], points[2 * i + 1], size, 0, Math.PI * 2);
      }
      ctx.fill();
    };
    const dot = 2.2 * px * dpr;
    const all = Array.from({ length: n }, (_, i) => i);
    const info = { phase: null };
    if (script && step !== null && script.trace.engine === 'spatial') {
      const { trace, cellOf, pairCell } = script;
      const { phase, index } = script.steps[step];
      info.phase = phase;
      const pairs = trace.pairs;
      const pairLines = (from, to, colour, width) => {
        ctx.strokeStyle = colour;
        ctx.lineWidth = width * px * dpr;
        ctx.beginPath();
        for (let q = from; q < to; q++) line(points[2 * pairs[2 * q]], points[2 * pairs[2 * q] + 1], points[2 * pairs[2 * q + 1]], points[2 * pairs[2 * q + 1] + 1]);
        ctx.stroke();
      };
      const fillCell = (cell, colour) => {
        ctx.fillStyle = colour;
        ctx.fillRect(...cellRect(trace.cellKeys[3 * cell], trace.cellKeys[3 * cell + 1]));
      };
      if (phase === 'duplicates') {
        dots(all, '#4a4a4a', dot);
        ctx.strokeStyle = '#d62728';
        ctx.lineWidth = 1.5 * px * dpr;
        ctx.beginPath();
        for (let i = 0; i < n; i++) if (!script.isDistinct[i]) (ctx.moveTo(points[2 * i] + 5 * px * dpr, points[2 * i + 1]), ctx.arc(points[2 * i], points[2 * i + 1], 5 * px * dpr, 0, Math.PI * 2));
        ctx.stroke();
        info.text = `${int(n)} points, ${int(trace.distinct.length)} distinct positions: ${int(n - trace.distinct.length)} exact copies (red rings) join their twin at once, through the table of exact positions. Only the distinct points go on.`;
      } else if (phase === 'sort' || phase === 'pairs') {
        for (let q = 0; q < (phase === 'sort' ? index : script.cells); q++) fillCell(q, 'rgba(60, 141, 188, 0.10)');
        fillCell(index, 'rgba(255, 200, 0, 0.35)');
        if (phase === 'sort') {
          // the sorted order so far, as a path through the cells
          const end = trace.cellStart[index + 1];
          ctx.strokeStyle = 'rgba(31, 95, 168, 0.55)';
          ctx.lineWidth = px * dpr;
          ctx.beginPath();
          for (let q = 0; q < end; q++) (q ? ctx.lineTo : ctx.moveTo).call(ctx, points[2 * trace.order[q]], points[2 * trace.order[q] + 1]);
          ctx.stroke();
          dots(all, '#c8c8c8', dot);
          dots(trace.order.subarray(0, end), '#1f5fa8', dot);
          const held = trace.cellStart[index + 1] - trace.cellStart[index];
          info.text = `Cell ${int(index + 1)} of ${int(script.cells)}, (${trace.cellKeys[3 * index]}, ${trace.cellKeys[3 * index + 1]}), holds ${held} ${held === 1 ? 'point' : 'points'}. Sorted by cell, each cell's points lie together in memory: the blue path is the order.`;
        } else {
          let from = 0, to = 0;
          while (from < pairCell.length && pairCell[from] < index) from++;
          to = from;
          while (to < pairCell.length && pairCell[to] === index) to++;
          pairLines(0, from, 'rgba(42, 157, 60, 0.45)', 1.2);
          pairLines(from, to, '#d62728', 2.4);
          dots(all, '#4a4a4a', dot);
          info.text = `Cell ${int(index + 1)} of ${int(script.cells)}: its points against each other and the neighbouring cells' points, ${to - from} ${to - from === 1 ? 'pair' : 'pairs'} within r found here (red), ${int(to)} of ${int(pairCell.length)} so far.`;
        }
      } else if (phase === 'graph') {
        pairLines(0, pairs.length / 2, 'rgba(42, 157, 60, 0.7)', 1.2);
        // arrow heads: from each later point toward its earlier neighbour
        ctx.fillStyle = 'rgba(42, 157, 60, 0.9)';
        for (let q = 0; q < pairs.length / 2 && q < 20000; q++) {
          const a = pairs[2 * q], b = pairs[2 * q + 1];
          const ax = points[2 * a], ay = points[2 * a + 1], dx = points[2 * b] - ax, dy = points[2 * b + 1] - ay;
          const d = Math.hypot(dx, dy) || 1, h = 4 * px * dpr, ux = dx / d, uy = dy / d;
          ctx.beginPath();
          ctx.moveTo(ax + ux * h * 0.6, ay + uy * h * 0.6);
          ctx.lineTo(ax + ux * h * 2 - uy * h, ay + uy * h * 2 + ux * h);
          ctx.lineTo(ax + ux * h * 2 + uy * h, ay + uy * h * 2 - ux * h);
          ctx.fill();
        }
        dots(all, '#4a4a4a', dot);
        info.text = `${int(pairs.length / 2)} pairs within r, turned into a graph: each point keeps the list of its earlier neighbours (arrows point to the earlier one). ${int(script.earlier.size)} points have at least one.`;
      } else {
        const w = walkStep(script, index);
        const done = trace.distinct.subarray(0, index);
        const col = colours(script);
        dots(all, '#d8d8d8', dot);
        for (let p = 0; p < PALETTE.length; p++) dots(done.filter((i) => col[i] === p), PALETTE[p], dot);
        ctx.strokeStyle = 'rgba(42, 157, 60, 0.9)';
        ctx.lineWidth = 1.5 * px * dpr;
        ctx.beginPath();
        for (const nb of w.neighbours) line(points[2 * w.index], points[2 * w.index + 1], points[2 * nb.index], points[2 * nb.index + 1]);
        ctx.stroke();
        if (!w.kept) {
          ctx.strokeStyle = '#d62728';
          ctx.lineWidth = 3 * px * dpr;
          ctx.beginPath();
          line(points[2 * w.index], points[2 * w.index + 1], points[2 * w.target], points[2 * w.target + 1]);
          ctx.stroke();
        }
        ring(points[2 * w.index], points[2 * w.index + 1], 6 * px * dpr, '#000', 2.5 * px * dpr);
        const list = w.neighbours.map((nb) => `${nb.index} (${nb.kept ? `kept, output ${nb.output}` : `merged into output ${nb.output}`})`).join(', ');
        info.text = w.neighbours.length === 0
          ? `Point ${w.index}: no earlier neighbour within r: kept as output ${w.output}.`
          : w.kept
            ? `Point ${w.index}: earlier neighbours ${list}; none of them is kept, so it is kept as output ${w.output}.`
            : `Point ${w.index}: earlier neighbours ${list}; the earliest kept one is output ${w.output} (point ${w.target}): merged, exactly as naive would.`;
      }
    } else {
      // the whole weld: points coloured by output (or plain, without a trace)
      const col = script ? colours(script) : null;
      if (col) for (let p = 0; p < PALETTE.length; p++) dots(all.filter((i) => col[i] === p), PALETTE[p], dot);
      else dots(all, '#4a4a4a', dot);
    }
    // the hovered point: its r-box and the cells it touches
    const h = s.engineHover;
    if (h >= 0 && h < n) {
      const x = points[2 * h], y = points[2 * h + 1];
      const touched = boxCells(x, y, s.r, c);
      ctx.fillStyle = 'rgba(255, 200, 0, 0.25)';
      for (const [i, j] of touched) ctx.fillRect(...cellRect(i, j));
      ctx.setLineDash([5 * px * dpr, 4 * px * dpr]);
      ctx.strokeStyle = '#f58231';
      ctx.lineWidth = 1.5 * px * dpr;
      ctx.strokeRect(x - s.r, y - s.r, 2 * s.r, 2 * s.r);
      ctx.setLineDash([]);
      ring(x, y, 6 * px * dpr, '#000', 2 * px * dpr);
      info.hover = `Point ${h}: its r-box (dashed) touches ${touched.length === 1 ? 'one cell' : `${touched.length} cells`} of side ${c.toPrecision(3)}; only ${touched.length === 1 ? 'that cell is' : 'those are'} searched.`;
    }
    return info;
  }

  function ring(x, y, radius, colour, width) {
    ctx.strokeStyle = colour;
    ctx.lineWidth = width;
    ctx.beginPath();
    ctx.arc(x, y, radius, 0, Math.PI * 2);
    ctx.stroke();
  }

  // drawn again only when what it shows changed (the state's other fields do not matter here)
  const show = memo((points, script, r, engine, engineHover, playing, width) => {
    void width;
    const s = { r, engine, engineHover, playing };
    const grid = gridCells(points, s.r, script);
    const spatial = script?.trace.engine === 'spatial';
    const count = script ? script.steps.length : 0;
    const step = script && s.engine !== null ? Math.min(s.engine, count - 1) : null;
    const info = draw(s, points, script, grid, step);
    canvas.dataset.step = String(step ?? 'all');
    $('#engine-count').textContent = !script ? 'no trace' : step === null ? `the whole trace (${int(count)} steps)` : `step ${int(step + 1)} of ${int(count)}: ${PHASE_TEXT[info.phase]}`;
    $('#engine-back').disabled = !script || step === 0;
    $('#engine-forward').disabled = !script || (step !== null && step >= count - 1);
    $('#engine-all').disabled = !script || step === null;
    $('#engine-play').textContent = s.playing === 'engine' ? 'pause' : 'play';
    $('#engine-play').setAttribute('aria-pressed', String(s.playing === 'engine'));
    for (const b of section.querySelectorAll('[data-phase]')) {
      b.disabled = !script || !(b.dataset.phase in script.phaseStart);
      b.setAttribute('aria-pressed', String(info.phase === b.dataset.phase));
    }
    let text;
    if (!script) text = `Without the trace this page shows the cells only: grid's cells of side ${grid.size.toPrecision(3)} (this page's reading of the rule) for r = ${s.r}. Hover or tap a point.`;
    else if (!spatial) {
      const tests = script.trace.tests;
      const gaveUp = tests > 0 ? `its pair search gave up after ${int(tests)} distance tests (more than its budget allows, or made faster than it allows)`
        : script.trace.sortedCells > 0 ? 'its cells were too crowded to start a pair search (the tests it would make, counted first, passed its budget)'
        : 'a sample of its points showed far more pairs within r than its budget allows, so no cell was sorted';
      text = `On these points (dense clusters) ${gaveUp}, so the module fell back to its sequential path: it welds point by point, with no pairs to show. ${int(script.trace.count)} outputs.`;
    }
    else if (step === null) {
      const crowded = script.trace.crowded > 0
        ? ` ${int(script.trace.crowded)} of them sat in cells too crowded for the pair search: they have no pairs, and the walk welded them one by one against their cells' representatives.`
        : '';
      text = `${int(points.length / 2)} points in, ${int(script.trace.count)} out, exactly the naive result.${crowded} Press step, play, or a phase to replay how the engine got there.`;
    }
    else text = info.text;
    $('#engine-text').textContent = info.hover ? `${text} ${info.hover}` : text;
    // the figures: the module's own counts and clocks
    const t = script?.trace;
    const distinct = t ? t.distinct.length : 0;
    $('#engine-cell').textContent = `${grid.size.toPrecision(3)}${script ? '' : ' (page)'}`;
    $('#engine-pairs').textContent = spatial ? int(t.pairs.length / 2) : '–';
    $('#engine-tests').textContent = spatial ? int(t.tests) : t && t.tests > 0 ? `${int(t.tests)} (gave up)` : '–';
    $('#engine-per-point').textContent = spatial && distinct ? (t.tests / distinct).toFixed(2) : '–';
    $('#engine-touched').textContent = grid.touched.mean.toFixed(2);
    $('#engine-kind').textContent = t ? t.engine : 'no trace';
    const rows = PHASES.map((name) => `<tr${info.phase === name ? ' class="current"' : ''}><th>${name}</th><td>${t ? ms(phaseMs(t, name)) : '–'}</td></tr>`);
    const sum = t ? t.phases.reduce((a, p) => a + p.ms, 0) : null;
    $('#engine-phases tbody').innerHTML = rows.join('') + `<tr><th>total</th><td>${t ? ms(sum) : '–'}</td></tr>`;
  });

  return {
    /** Moves the played step on; false at the end. */
    advance(steps) {
      const s = getState();
      const last = stepCount(s) - 1;
      if (s.engine === null || s.engine >= last) return false;
      update({ engine: Math.min(last, s.engine + steps) });
      return s.engine + steps < last;
    },
    render(s) {
      const { points, script } = scriptOf(s);
      show(points, script, s.r, s.engine, s.engineHover, s.playing, canvas.clientWidth);
    },
  };
}
