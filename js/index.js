// meshweld: tolerance welding of points and meshes, the C core compiled to WebAssembly.
// Each public function is a short composition: check the options -> stage the inputs in a frame
// of the module's memory -> call the core -> copy the result out; the frame is freed in the same
// call, so no pointer reaches the user. The layers: heap.js (module, structs, frames, error
// codes), check.js (validation and messages), points.js (input arrays), engine.js (the weld and
// the non-finite policy), mesh.js (weldMesh), inspect.js (the teaching helpers).
import { ERROR, Info, Options, copyOut, core, readStruct, view, withFrame } from './heap.js';
import { boolean, checkOptions, choice, coreError, describe, failure, methods, radiusOption, refusal, strideOption, weldMode } from './check.js';
import { compactPoints, nonFiniteMask, originalInfo, stagePoints } from './points.js';
import { SKIPPED, nonFiniteOption, resolveRadius, weldStaged } from './engine.js';

export { ready } from './heap.js';
export { methods, stores } from './check.js';
export { PointBuffer } from './points.js';
export { SKIPPED } from './engine.js';
export { boundaryEdges, weldMesh } from './mesh.js';
// the teaching helpers live in meshweld/inspect; they stay importable from here too
export { bound, cells, lookups, memoryBytes } from './inspect.js';

const WELD_OPTIONS = ['radius', 'relativeRadius', 'dim', 'method', 'store', 'stride', 'position', 'normalized', 'nonFinite'];
const WELDER_OPTIONS = ['radius', 'relativeRadius', 'dim', 'method', 'store', 'stride', 'normalized', 'nonFinite'];
const ADD_OPTIONS = ['stride', 'normalized'];
const PAIRS_OPTIONS = ['radius', 'dim', 'stride', 'normalized', 'limit'];

/**
 * Welds points in one call.
 * @returns {{ remap: Uint32Array, count: number, positions: Float32Array, method: string, radius: number }}
 */
export function weld(points, options) {
  const who = 'weld';
  core();
  const o = checkOptions(options, who, WELD_OPTIONS);
  const radius = radiusOption(o, who, { relative: true });
  const mode = weldMode(o, who);
  const stride = strideOption(o.stride, mode.dim, who);
  const position = choice(o.position, 'position', ['first', 'centroid'], 'first', who);
  const normalized = boolean(o.normalized, 'normalized', false, who);
  const nonFinite = nonFiniteOption(o.nonFinite, who);
  return withFrame((frame) => {
    const staged = stagePoints(frame, points, { stride, normalized, who });
    const r = resolveRadius(radius, staged, mode.dim);
    const { remap, count, positions, method, skipped } = weldStaged(frame, staged, mode, r, who, {
      nonFinite,
      centroid: position === 'centroid',
    });
    return { remap, count, positions, method, radius: r, skipped };
  });
}

const welders = new FinalizationRegistry((pointer) => core().meshweld_welderDestroy(pointer));

/** An incremental welder: each batch is welded against everything added before. */
export class Welder {
  #pointer = 0;
  #dim;
  #stride;
  #normalized;
  #nonFinite;
  constructor(options) {
    const who = 'new Welder';
    core();
    const o = checkOptions(options, who, WELDER_OPTIONS);
    if (o.relativeRadius !== undefined) {
      throw failure(RangeError, who, 'relativeRadius needs every point up front: give a radius, or use weld()');
    }
    const { radius } = radiusOption(o, who);
    const mode = weldMode(o, who);
    this.#dim = mode.dim;
    this.#stride = strideOption(o.stride, mode.dim, who);
    this.#normalized = boolean(o.normalized, 'normalized', false, who);
    this.#nonFinite = nonFiniteOption(o.nonFinite, who, ['error', 'skip']);
    this.#pointer = withFrame((frame) => {
      const options = frame.struct(Options, { dim: mode.dim, radius, method: mode.method, store: mode.store });
      const error = frame.alloc(4);
      const pointer = core().meshweld_welderCreate(options, error) >>> 0;
      if (pointer === 0) throw coreError(view(Int32Array)[error >>> 2], null, who);
      return pointer;
    });
    welders.register(this, this.#pointer, this);
  }
  #live(who) {
    core();
    if (this.#pointer === 0) throw new Error(`meshweld: ${who}: this Welder was disposed`);
    return this.#pointer;
  }
  /** Welds a batch; returns its remap (indices into all outputs so far; SKIPPED for points left out). */
  add(points, options) {
    const who = 'Welder.add';
    const welder = this.#live(who);
    const o = checkOptions(options, who, ADD_OPTIONS);
    const stride = strideOption(o.stride === undefined ? this.#stride : o.stride, this.#dim, who);
    const normalized = boolean(o.normalized, 'normalized', this.#normalized, who);
    return withFrame((frame) => {
      let staged = stagePoints(frame, points, { stride, normalized, who });
      const mask = this.#nonFinite === 'skip' ? nonFiniteMask(staged, this.#dim) : null;
      if (mask) staged = compactPoints(frame, staged, this.#dim, mask);
      const remap = frame.alloc(staged.count * 4);
      const info = frame.struct(Info);
      const code = core().meshweld_welderAdd(welder, remap, staged.pointer, staged.count, staged.stride * 4, info);
      if (code !== ERROR.Ok) {
        throw coreError(code, originalInfo(readStruct(Info, info), staged), who,
          { value: staged.value, nonFinite: "a Welder made with nonFinite: 'skip' leaves such points out" });
      }
      const batch = copyOut(Uint32Array, remap, staged.count);
      if (!mask) return batch;
      const out = new Uint32Array(mask.length);
      for (let i = 0, k = 0; i < mask.length; i++) out[i] = mask[i] ? SKIPPED : batch[k++];
      return out;
    });
  }
  /** Number of output points so far. */
  get count() {
    return core().meshweld_welderCount(this.#live('Welder.count')) >>> 0;
  }
  /** The method that runs now ('auto' resolved; it may switch to 'kdtree' on huge coordinates). */
  get method() {
    return methods[core().meshweld_welderMethod(this.#live('Welder.method'))];
  }
  get dim() {
    return this.#dim;
  }
  /** The kept positions: Float32Array(count * dim). */
  positions() {
    const welder = this.#live('Welder.positions');
    const count = this.count;
    return withFrame((frame) => {
      const out = frame.alloc(count * this.#dim * 4);
      core().meshweld_welderPositions(welder, out);
      return copyOut(Float32Array, out, count * this.#dim);
    });
  }
  /** Frees the welder's memory; harmless to call twice. */
  dispose() {
    if (this.#pointer !== 0) {
      core().meshweld_welderDestroy(this.#pointer);
      welders.unregister(this);
      this.#pointer = 0;
    }
  }
}

/**
 * Counts pairs of points within radius of each other (the exact validator of guarantee 1),
 * stopping at limit when given.
 */
export function countClosePairs(points, options) {
  const who = 'countClosePairs';
  core();
  const o = checkOptions(options, who, PAIRS_OPTIONS);
  const { radius } = radiusOption(o, who);
  const { dim } = weldMode({ dim: o.dim }, who);
  const stride = strideOption(o.stride, dim, who);
  const limit = o.limit === undefined ? 0 : o.limit;
  if (!Number.isInteger(limit) || limit < 0) {
    throw failure(refusal(limit, 'number'), who, `limit must be an integer >= 0 (0: no limit), got ${describe(limit)}`);
  }
  // (the count stops at 2^32 - 1 in any case: a larger limit is that one, not its low 32 bits)
  const counted = Math.min(limit, 2 ** 32 - 1);
  return withFrame((frame) => {
    const staged = stagePoints(frame, points, { stride, normalized: boolean(o.normalized, 'normalized', false, who), who });
    const result = frame.alloc(4);
    const code = core().meshweld_countClosePairs(result, staged.pointer, staged.count, stride * 4, dim, radius, counted);
    if (code === ERROR.NonFinite) {
      const heap = view(Float32Array, staged.pointer, staged.count * stride);
      for (let i = 0; i < staged.count; i++)
        for (let a = 0; a < dim; a++)
          if (!Number.isFinite(heap[i * stride + a])) {
            throw coreError(code, { error_point: i, error_axis: a }, who, { value: staged.value });
          }
    }
    if (code !== ERROR.Ok) throw coreError(code, null, who);
    return view(Uint32Array)[result >>> 2];
  });
}
