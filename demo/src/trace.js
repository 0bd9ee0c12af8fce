// The spatial engine's trace: the only file of the page that reads what traceWeld returns.
//
// Contract (meshweld/inspect, from the module when it has it):
//   traceWeld(points: Float32Array, { dim: 2 | 3, radius }) -> {
//     remap: Uint32Array, count,   exactly weld(points, { dim, radius, method: 'grid' })
//     cellSize,                    edge s of the square cells: cell (i, j) is [i s, (i+1) s) x [j s, (j+1) s)
//     engine: 'spatial' | 'sequential',   'sequential': fell back (dense clusters), no pairs or order
//     distinct: Uint32Array,       input index of each distinct position, first-appearance order
//     order: Uint32Array,          the distinct points (input indices) sorted by cell
//     cellKeys: Int32Array,        3 ints per occupied cell (z = 0 in 2D), in sorted order
//     cellStart: Uint32Array,      cells + 1 entries: cell c holds order[cellStart[c] .. cellStart[c+1])
//     pairs: Uint32Array,          pairs within r as input indices [a0, b0, a1, b1, ...], a < b, in the
//                                  order the cell-by-cell search found them
//     tests,                       distance tests made by the pair search
//     sortedCells,                 occupied cells the last try sorted into (0: a sample sent the points
//                                  straight to the sequential search, no cell sorted)
//     phases: [{ name: 'duplicates' | 'sort' | 'pairs' | 'graph' | 'walk', ms }],
//   }
// Nothing here decides a merge: the walk below only replays, for display, what `pairs` and
// `remap` already say (point j's target is the representative of remap[j]).

let loading = null;

/** Resolves to traceWeld, or null when this build of meshweld has no meshweld/inspect trace. */
export function loadTrace() {
  loading ??= import('meshweld/inspect').then(
    (inspect) => (typeof inspect.traceWeld === 'function' ? inspect.traceWeld : null),
    () => null,
  );
  return loading;
}

/** The cells (i, j) that the box [p - r, p + r] touches, for cells of edge s. */
export function boxCells(x, y, r, s) {
  const out = [];
  for (let j = Math.floor((y - r) / s); j <= Math.floor((y + r) / s); j++)
    for (let i = Math.floor((x - r) / s); i <= Math.floor((x + r) / s); i++) out.push([i, j]);
  return out;
}

/** How many cells the r-boxes of the points touch: { mean, histogram: Map(cells -> points) }. */
export function boxCellCounts(points, r, s) {
  const histogram = new Map();
  const n = points.length / 2;
  let total = 0;
  for (let k = 0; k < n; k++) {
    const x = points[2 * k], y = points[2 * k + 1];
    const c = (Math.floor((x + r) / s) - Math.floor((x - r) / s) + 1) * (Math.floor((y + r) / s) - Math.floor((y - r) / s) + 1);
    total += c;
    histogram.set(c, (histogram.get(c) ?? 0) + 1);
  }
  return { mean: n ? total / n : 0, histogram };
}

/**
 * Runs the trace of a 2D weld and lays it out as steps for the engine view:
 * { trace, steps: [{ phase, index }], phaseStart: { name -> first step }, cellOf, pairCell,
 *   earlier: Map(input index -> earlier neighbours), repOf: output -> input index, twinOf }.
 */
export function engineScript(traceWeld, points, radius) {
  const trace = traceWeld(points, { dim: 2, radius });
  const n = points.length / 2;
  const repOf = new Uint32Array(trace.count);
  const seen = new Uint8Array(trace.count);
  for (let i = 0; i < n; i++) {
    const m = trace.remap[i];
    if (!seen[m]) (seen[m] = 1), (repOf[m] = i);
  }
  const isDistinct = new Uint8Array(n);
  for (const i of trace.distinct) isDistinct[i] = 1;
  const steps = [];
  const phaseStart = {};
  const phase = (name, count) => {
    phaseStart[name] = steps.length;
    for (let k = 0; k < count; k++) steps.push({ phase: name, index: k });
  };
  const script = { trace, n, repOf, isDistinct, steps, phaseStart, cellOf: null, pairCell: null, earlier: new Map(), cells: 0 };
  phase('duplicates', 1);
  if (trace.engine !== 'spatial') {
    phase('walk', 1);
    return script;
  }
  const cells = trace.cellStart.length - 1;
  script.cells = cells;
  const cellOf = new Int32Array(n).fill(-1);
  for (let c = 0; c < cells; c++) for (let k = trace.cellStart[c]; k < trace.cellStart[c + 1]; k++) cellOf[trace.order[k]] = c;
  script.cellOf = cellOf;
  // which cell's search found each pair: the pairs come cell by cell, so the cell of one of the
  // two points (the earlier in sorted order, or else the later) rises along the list
  const p = trace.pairs, count = p.length / 2;
  const pick = (choose) => {
    const out = new Int32Array(count);
    for (let k = 0; k < count; k++) {
      out[k] = choose(cellOf[p[2 * k]], cellOf[p[2 * k + 1]]);
      if (k && out[k] < out[k - 1]) return null;
    }
    return out;
  };
  script.pairCell = pick(Math.min) ?? pick(Math.max) ?? Int32Array.from({ length: count }, (_, k) => Math.floor((k * cells) / Math.max(1, count)));
  for (let k = 0; k < count; k++) {
    const a = p[2 * k], b = p[2 * k + 1];
    if (!script.earlier.has(b)) script.earlier.set(b, []);
    script.earlier.get(b).push(a);
  }
  for (const list of script.earlier.values()) list.sort((x, y) => x - y);
  phase('sort', cells);
  phase('pairs', cells);
  phase('graph', 1);
  phase('walk', trace.distinct.length);
  return script;
}

/** What the walk does at distinct point number k: replayed from pairs and remap. */
export function walkStep(script, k) {
  const { trace, repOf } = script;
  const j = trace.distinct[k];
  const m = trace.remap[j];
  const neighbours = (script.earlier.get(j) ?? []).map((a) => ({ index: a, output: trace.remap[a], kept: repOf[trace.remap[a]] === a }));
  return { index: j, output: m, kept: repOf[m] === j, target: repOf[m], neighbours };
}

/** Milliseconds of a phase as the module measured it (null when it did not report the phase). */
export function phaseMs(trace, name) {
  const found = trace.phases.find((p) => p.name === name);
  return found ? found.ms : null;
}
