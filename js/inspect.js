// meshweld/inspect: the teaching helpers behind the demo: the bound R of a method, the cells a
// grid method searches for a point, the look-ups per point, and the module's memory.
import { Info, Options, Trace, copyOut, core, readStruct, view, withFrame } from './heap.js';
import { checkOptions, coreError, describe, failure, methods, radiusOption, refusal, weldMode } from './check.js';
import { stagePoints } from './points.js';

export { ready, memoryBytes } from './heap.js';

/** The bound R of a method: the largest distance at which two inputs can merge directly. */
export function bound(options) {
  const who = 'bound';
  core();
  const o = checkOptions(options, who, ['method', 'store', 'dim', 'radius']);
  const { radius } = radiusOption(o, who);
  const mode = weldMode(o, who);
  return core().meshweld_bound(mode.method, mode.store, mode.dim, radius);
}

/** Look-ups per distinct point of a grid method (0 for naive, kdtree, grid and auto). */
export function lookups(method, dim = 3) {
  const who = 'lookups';
  core();
  if (!methods.includes(method)) throw failure(refusal(method, 'string'), who, `method must be one of ${methods.join(', ')}, got ${describe(method)}`);
  const mode = weldMode({ method, dim }, who);
  return core().meshweld_lookups(mode.method, mode.dim);
}

/**
 * The cells a grid method searches for one point, its store cell first: `keys` holds 3 integers
 * per cell (z = 0 in 2D) and `size` is the cell size, which places them (see meshweld_cells in
 * c/meshweld.h). naive and kdtree search no cells: keys is empty. For drawing and teaching.
 */
export function cells(point, options) {
  const who = 'cells';
  core();
  const o = checkOptions(options, who, ['method', 'store', 'dim', 'radius']);
  const { radius } = radiusOption(o, who);
  const mode = weldMode(o, who);
  if (!(radius > 0)) throw failure(RangeError, who, `radius must be > 0, got ${describe(radius)}`);
  if (!point || typeof point.length !== 'number' || point.length < mode.dim) {
    throw failure(TypeError, who, `point must hold ${mode.dim} numbers, got ${describe(point)}`);
  }
  for (let a = 0; a < mode.dim; a++) {
    const v = point[a];
    if (typeof v !== 'number') throw failure(TypeError, who, `point[${a}] must be a number, got ${describe(v)}`);
    if (!Number.isFinite(Math.fround(v))) throw failure(RangeError, who, `point[${a}] must be finite as a float32, got ${describe(v)}`);
  }
  return withFrame((frame) => {
    const keys = frame.alloc(27 * 12);
    const size = frame.alloc(8);
    const at = frame.alloc(12);
    for (let a = 0; a < mode.dim; a++) view(Float32Array)[(at >>> 2) + a] = point[a];
    const options = frame.struct(Options, { dim: mode.dim, radius, method: mode.method, store: mode.store });
    const n = core().meshweld_cells(keys, size, at, options);
    if (n < 0) {
      const v = Array.from({ length: mode.dim }, (_, a) => point[a]).join(', ');
      throw failure(RangeError, who, `cells of point (${v}): ${coreError(n, null, who).message.replace(/^meshweld: cells: /, '')}`);
    }
    return { keys: copyOut(Int32Array, keys, n * 3), size: n > 0 ? view(Float64Array)[size >>> 3] : 0 };
  });
}

const PHASES = ['duplicates', 'sort', 'pairs', 'graph', 'walk'];
const now = () => (globalThis.performance ?? Date).now();

/**
 * What the spatial engine behind `grid` and `auto` does on one weld, for teaching: the distinct
 * points, their order by cell, the occupied cells, the pairs within r found cell by cell, and the
 * milliseconds of each phase (measured here by running the module's weld up to each phase in
 * turn). `remap` and `count` are exactly those of weld(points, { dim, radius, method: 'grid' }).
 * With `engine: 'sequential'` (clusters too dense for the engine) order, cells and pairs are empty.
 */
export function traceWeld(points, options) {
  const who = 'traceWeld';
  core();
  const o = checkOptions(options, who, ['dim', 'radius']);
  const { radius } = radiusOption(o, who);
  const mode = weldMode({ dim: o.dim }, who);
  if (!(radius > 0)) throw failure(RangeError, who, `radius must be > 0, got ${describe(radius)}`);
  return withFrame((frame) => {
    const staged = stagePoints(frame, points, { stride: mode.dim, who });
    const n = staged.count;
    const capacity = 4 * n + 65536; // the engine's own budget of pairs
    const buffers = {
      distinct: frame.alloc(4 * n), order: frame.alloc(4 * n), cell_keys: frame.alloc(12 * n),
      cell_start: frame.alloc(4 * n + 4), pairs: frame.alloc(8 * capacity),
    };
    const remap = frame.alloc(4 * n);
    const opts = frame.struct(Options, { dim: mode.dim, radius, method: 0, store: 0 });
    const trace = frame.struct(Trace, { ...buffers, pair_capacity: capacity });
    const info = frame.struct(Info);
    const phases = [];
    let before = 0;
    for (let k = 1; k <= PHASES.length; k++) {
      view(Int32Array)[trace >>> 2] = k; // phases
      const t0 = now();
      const code = core().meshweld_trace(remap, staged.pointer, n, 4 * mode.dim, opts, trace, info);
      const ms = now() - t0;
      if (code !== 0) throw coreError(code, readStruct(Info, info), who, { value: staged.value });
      phases.push({ name: PHASES[k - 1], ms: Math.max(0, ms - before) });
      before = ms;
    }
    const t = readStruct(Trace, trace);
    const spatial = t.engine === 1;
    const out = copyOut(Uint32Array, remap, n);
    let count = 0;
    for (let i = 0; i < n; i++) count = Math.max(count, out[i] + 1);
    return {
      remap: out,
      count,
      cellSize: t.cell_size,
      engine: spatial ? 'spatial' : 'sequential',
      distinct: copyOut(Uint32Array, buffers.distinct, t.nodes),
      order: spatial ? copyOut(Uint32Array, buffers.order, t.nodes) : new Uint32Array(0),
      cellKeys: spatial ? copyOut(Int32Array, buffers.cell_keys, 3 * t.cells) : new Int32Array(0),
      cellStart: spatial ? copyOut(Uint32Array, buffers.cell_start, t.cells + 1) : new Uint32Array(0),
      pairs: spatial ? copyOut(Uint32Array, buffers.pairs, 2 * Math.min(t.pair_count, capacity)) : new Uint32Array(0),
      tests: t.tests,
      sortedCells: t.cells,
      steps: t.steps,
      crowded: spatial ? t.crowded : 0,
      phases,
    };
  });
}
