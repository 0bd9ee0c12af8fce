// meshweld/inspect: the teaching helpers behind the demo: the bound R of a method, the cells a
// grid method searches for a point, the look-ups per point, and the module's memory.
import { Options, copyOut, core, view, withFrame } from './heap.js';
import { checkOptions, coreError, describe, failure, methods, radiusOption, weldMode } from './check.js';

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
  if (!methods.includes(method)) throw failure(RangeError, who, `method must be one of ${methods.join(', ')}, got ${describe(method)}`);
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
