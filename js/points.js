// Point input: the array kinds meshweld accepts, and their staging into the module's memory as
// float32 (integers converted, normalized integers mapped as a shader maps them).
import { allocate, core, release, view } from './heap.js';
import { describe, failure, refusal } from './check.js';

/** For each integer array type, the divisor of a normalized value and its lowest result. */
const NORMALIZED = new Map([
  [Int8Array, [127, -1]],
  [Uint8Array, [255, 0]],
  [Uint8ClampedArray, [255, 0]],
  [Int16Array, [32767, -1]],
  [Uint16Array, [65535, 0]],
  [Int32Array, [2147483647, -1]],
  [Uint32Array, [4294967295, 0]],
]);

const ACCEPTED = 'a Float32Array, Float64Array, Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, ' +
  'Int32Array, Uint32Array, an array of numbers or a PointBuffer';

export const isIntegerArray = (array) => NORMALIZED.has(array?.constructor);

/** The value a shader sees for a normalized integer (WebGL's rule: max(v / max, -1) for signed). */
export function normalizer(array) {
  const [scale, low] = NORMALIZED.get(array.constructor);
  return (v) => Math.max(v / scale, low);
}

const buffers = new FinalizationRegistry((pointer) => release(pointer));

/**
 * A Float32Array that lives in the module's memory: fill `array` and pass the buffer to weld or
 * Welder.add to skip the copy. `array` is a fresh view on every read, so it stays valid when the
 * memory grows. Call free() when done (a dropped buffer is freed by the garbage collector).
 */
export class PointBuffer {
  #pointer;
  #length;
  constructor(length) {
    core();
    if (!Number.isInteger(length) || length < 0) {
      throw failure(refusal(length, 'number'), 'new PointBuffer', `length must be an integer >= 0, got ${describe(length)}`);
    }
    this.#length = length;
    this.#pointer = allocate(length * 4);
    buffers.register(this, this.#pointer, this);
  }
  get length() {
    return this.#length;
  }
  get array() {
    if (this.#pointer === 0) throw new Error('meshweld: PointBuffer.array: this PointBuffer was freed');
    return view(Float32Array, this.#pointer, this.#length);
  }
  /** @internal where the points are, for `who`, the function they were passed to */
  pointerFor(who) {
    if (this.#pointer === 0) throw new Error(`meshweld: ${who}: this PointBuffer was freed`);
    return this.#pointer;
  }
  free() {
    if (this.#pointer !== 0) {
      release(this.#pointer);
      buffers.unregister(this);
      this.#pointer = 0;
    }
  }
}

function isDetached(buffer) {
  if ('detached' in buffer) return buffer.detached;
  try {
    new Uint8Array(buffer); // throws on a detached buffer
    return false;
  } catch {
    return true;
  }
}

/**
 * Why a typed array cannot be read, or null: its buffer detached, or a resizable buffer shrunk
 * below the end of a fixed-length view (which then reads as empty, and throws when copied).
 */
export function unreadable(array) {
  if (isDetached(array.buffer)) return 'over a detached ArrayBuffer';
  try {
    array.keys(); // validates the view: throws when it lies past the end of its buffer
    return null;
  } catch {
    return 'past the end of its resizable ArrayBuffer';
  }
}

/**
 * array itself, or a copy of it when it is a view of the module's own memory: a call that
 * allocates may grow the memory, which detaches every view of it.
 */
export function outsideModule(array) {
  return ArrayBuffer.isView(array) && array.buffer === core().memory.buffer ? array.slice() : array;
}

/** Checks the kind of a points argument; returns its length in values. */
export function pointsLength(points, who, name = 'points') {
  if (points instanceof PointBuffer) return points.length;
  const typed = points instanceof Float32Array || points instanceof Float64Array || isIntegerArray(points);
  if (!typed && !Array.isArray(points)) throw failure(TypeError, who, `${name} must be ${ACCEPTED}, got ${describe(points)}`);
  const why = typed && points.length === 0 ? unreadable(points) : null;
  if (why) throw failure(TypeError, who, `${name} are a ${points.constructor.name} ${why}`);
  return points.length;
}

/**
 * Stages points (length a multiple of stride) into the frame as float32, or uses a PointBuffer in
 * place. Returns { pointer, count, stride, value(point, axis) }: value is the coordinate as
 * welded, for error messages.
 */
export function stagePoints(frame, points, { stride, normalized = false, who, name = 'points', element = 'point' }) {
  const length = pointsLength(points, who, name);
  if (normalized && !isIntegerArray(points)) {
    throw failure(TypeError, who, `normalized: true needs integer ${name} (Int8Array to Uint32Array), got ${describe(points)}`);
  }
  if (length % stride !== 0) {
    throw failure(RangeError, who, `${name} length ${length} is not a multiple of the stride ${stride}`);
  }
  const count = length / stride;
  if (count >= 2 ** 32 - 1) throw failure(RangeError, who, `too many ${element}s: ${count}`);
  // a view of the module's own memory through another type than a PointBuffer's (a Float32Array is
  // copied within the memory below)
  if (!(points instanceof Float32Array)) points = outsideModule(points);
  const scale = normalized ? normalizer(points) : null;
  const value = (at, axis) => {
    const raw = points instanceof PointBuffer ? points.array[at * stride + axis] : points[at * stride + axis];
    return scale ? scale(raw) : raw;
  };
  if (points instanceof PointBuffer) return { pointer: points.pointerFor(who), count, stride, value };
  let pointer;
  if (points instanceof Float32Array && points.buffer === core().memory.buffer) {
    // a view of the module's own memory (PointBuffer.array): allocating may grow the memory and
    // detach the view, so copy by offset within the (new) memory
    const from = points.byteOffset >>> 2;
    pointer = frame.alloc(length * 4);
    view(Float32Array).copyWithin(pointer >>> 2, from, from + length);
  } else if (Array.isArray(points)) {
    pointer = frame.alloc(length * 4);
    const heap = view(Float32Array);
    const base = pointer >>> 2;
    for (let i = 0; i < length; i++) {
      const v = points[i];
      if (typeof v !== 'number') throw failure(TypeError, who, `${name}[${i}] must be a number, got ${describe(v)}`);
      heap[base + i] = v;
    }
  } else {
    pointer = frame.alloc(length * 4);
    const heap = view(Float32Array, pointer, length);
    if (scale) for (let i = 0; i < length; i++) heap[i] = scale(points[i]);
    else heap.set(points); // Float64Array and integers round to float32
  }
  return { pointer, count, stride, value };
}

/**
 * The points of a staged input with a non-finite coordinate among the first `dim` of each: a
 * Uint8Array mask, or null when every point is finite.
 */
export function nonFiniteMask(staged, dim) {
  const heap = view(Float32Array, staged.pointer, staged.count * staged.stride);
  let mask = null;
  for (let i = 0; i < staged.count; i++)
    for (let a = 0, s = i * staged.stride; a < dim; a++)
      if (!Number.isFinite(heap[s + a])) {
        mask ??= new Uint8Array(staged.count);
        mask[i] = 1;
        break;
      }
  return mask;
}

/**
 * The staged points whose mask is 0, packed (dim floats each) into the frame; `origin` maps each
 * back to its input index, and `value` reads coordinates by that input index, for messages.
 */
export function compactPoints(frame, staged, dim, mask) {
  let kept = 0;
  for (let i = 0; i < staged.count; i++) kept += mask[i] ? 0 : 1;
  const pointer = frame.alloc(kept * dim * 4);
  const origin = new Uint32Array(kept);
  const source = view(Float32Array, staged.pointer, staged.count * staged.stride);
  const target = view(Float32Array, pointer, kept * dim);
  for (let i = 0, k = 0; i < staged.count; i++)
    if (!mask[i]) {
      for (let a = 0; a < dim; a++) target[k * dim + a] = source[i * staged.stride + a];
      origin[k++] = i;
    }
  return { pointer, count: kept, stride: dim, origin, value: staged.value };
}

/** The Info of a failed call on compacted points, with error_point as an input index. */
export function originalInfo(info, staged) {
  return staged.origin && info.error_point < staged.origin.length ? { ...info, error_point: staged.origin[info.error_point] } : info;
}
