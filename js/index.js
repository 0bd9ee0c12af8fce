// meshweld: tolerance welding of points and meshes, the C core compiled to WebAssembly.
// Every function copies its input into the module's memory, calls the core, copies the result
// out into fresh typed arrays and frees its scratch in the same call: no pointer reaches the user.
import wasmBase64 from './wasm-inline.js';
import { describe, firstOfEach, gatherItems } from './gather.js';

export const methods = Object.freeze(['auto', 'naive', 'grid-r', 'grid-2r', 'hex', 'bcc', 'kdtree', 'grid']);
export const stores = Object.freeze(['loose', 'precise']);

const ERROR_TEXT = {
  [-1]: 'dim must be 2 or 3',
  [-2]: 'radius must be finite and >= 0',
  [-3]: 'unknown method',
  [-4]: 'unknown store',
  [-5]: 'method does not exist in this dimension',
  [-6]: 'bad stride',
  [-7]: 'too many points',
  [-8]: 'non-finite coordinate',
  [-9]: 'coordinates too large for the radius',
  [-10]: 'out of memory',
  [-11]: 'missing buffer',
  [-13]: 'index out of range',
  [-14]: 'index count must be a multiple of 3',
  [-15]: 'attribute size must be 1 to 16 floats',
};
const ERROR_NONFINITE = -8;
const ERROR_RANGE = -9;
const ERROR_MEMORY = -10;
const AXES = ['x', 'y', 'z'];
const MAX_BYTES = 2 ** 32 - 2 ** 26; // 4 GiB address space, less what the module itself needs

let wasm = null; // the instance's exports once ready

function decodeBase64(text) {
  if (typeof atob === 'function') {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }
  return Uint8Array.from(globalThis.Buffer.from(text, 'base64'));
}

/** Resolves once the WebAssembly module is instantiated; after it every call is synchronous. */
export const ready = WebAssembly.instantiate(decodeBase64(wasmBase64), {
  env: { emscripten_notify_memory_growth() {} }, // views are made afresh after every call
}).then(({ instance }) => {
  instance.exports._initialize();
  wasm = instance.exports;
});

function core() {
  if (!wasm) throw new Error('meshweld: the WebAssembly module is not ready yet: await `ready` first');
  return wasm;
}

const f32 = () => new Float32Array(wasm.memory.buffer);
const u32 = () => new Uint32Array(wasm.memory.buffer);
const i32 = () => new Int32Array(wasm.memory.buffer);

function allocate(bytes) {
  if (bytes > MAX_BYTES) {
    throw new RangeError(
      `meshweld: out of memory: ${bytes} bytes of WebAssembly memory needed, more than the 4 GiB address space`,
    );
  }
  const pointer = wasm.malloc(Math.max(bytes, 4)) >>> 0;
  if (pointer === 0) {
    throw new RangeError(
      `meshweld: out of memory: WebAssembly memory cannot grow by ${bytes} bytes ` +
        `(now ${wasm.memory.buffer.byteLength} bytes, limit 4 GiB)`,
    );
  }
  return pointer;
}

function parseOptions(options, who) {
  if (options === undefined) options = {};
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`meshweld: ${who} options must be an object, got ${describe(options)}`);
  }
  const dim = options.dim ?? 3;
  if (dim !== 2 && dim !== 3) throw new RangeError(`meshweld: dim must be 2 or 3, got ${describe(dim)}`);
  const radius = options.radius;
  if (typeof radius !== 'number') {
    throw new TypeError(`meshweld: radius must be a number, got ${describe(radius)}`);
  }
  if (!(radius >= 0) || !Number.isFinite(radius) || !Number.isFinite(Math.fround(radius))) {
    throw new RangeError(`meshweld: radius must be finite and >= 0 (as a float32), got ${radius}`);
  }
  if (radius > 0 && Math.fround(radius) === 0) {
    throw new RangeError(`meshweld: radius ${radius} rounds to 0 as a float32; use radius 0 to weld exact duplicates only`);
  }
  const methodName = options.method ?? 'auto';
  const method = methods.indexOf(methodName);
  if (method < 0) {
    throw new RangeError(`meshweld: unknown method ${describe(methodName)}; use one of ${methods.join(', ')}`);
  }
  if ((methodName === 'hex' && dim !== 2) || (methodName === 'bcc' && dim !== 3)) {
    throw new RangeError(`meshweld: method '${methodName}' is ${methodName === 'hex' ? '2D' : '3D'} only, got dim ${dim}`);
  }
  const storeName = options.store ?? 'loose';
  const store = stores.indexOf(storeName);
  if (store < 0) throw new RangeError(`meshweld: unknown store ${describe(storeName)}; use 'loose' or 'precise'`);
  return { dim, radius, method, store, methodName, storeName };
}

function parseStride(stride, dim) {
  if (stride === undefined) return dim;
  if (!Number.isInteger(stride) || stride < dim) {
    throw new RangeError(`meshweld: stride must be an integer number of floats >= dim (${dim}), got ${describe(stride)}`);
  }
  return stride;
}

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
      throw new RangeError(`meshweld: PointBuffer length must be a non-negative integer, got ${describe(length)}`);
    }
    this.#length = length;
    this.#pointer = allocate(length * 4);
    buffers.register(this, this.#pointer, this);
  }
  get length() {
    return this.#length;
  }
  get array() {
    if (this.#pointer === 0) throw new Error('meshweld: this PointBuffer was freed');
    return new Float32Array(wasm.memory.buffer, this.#pointer, this.#length);
  }
  /** @internal */
  get pointer() {
    if (this.#pointer === 0) throw new Error('meshweld: this PointBuffer was freed');
    return this.#pointer;
  }
  free() {
    if (this.#pointer !== 0) {
      wasm.free(this.#pointer);
      buffers.unregister(this);
      this.#pointer = 0;
    }
  }
}

const buffers = new FinalizationRegistry((pointer) => wasm.free(pointer));

// Copies points into the heap (or uses a PointBuffer in place); returns { pointer, count, owned }.
function stage(points, stride, who) {
  let length;
  if (points instanceof PointBuffer) {
    length = points.length;
  } else if (points instanceof Float32Array || points instanceof Float64Array || Array.isArray(points)) {
    length = points.length;
    if (ArrayBuffer.isView(points) && length === 0 && isDetached(points.buffer)) {
      throw new TypeError(`meshweld: ${who} points are a ${points.constructor.name} over a detached ArrayBuffer`);
    }
  } else {
    throw new TypeError(
      `meshweld: ${who} points must be a Float32Array, Float64Array, Array of numbers or PointBuffer, got ${describe(points)}`,
    );
  }
  if (length % stride !== 0) {
    throw new RangeError(`meshweld: ${who} points length ${length} is not a multiple of the stride ${stride}`);
  }
  const count = length / stride;
  if (count >= 2 ** 32 - 1) throw new RangeError(`meshweld: too many points: ${count}`);
  if (points instanceof PointBuffer) return { pointer: points.pointer, count, owned: false };
  if (points instanceof Float32Array && points.buffer === wasm.memory.buffer) {
    // a view of the module's own memory (PointBuffer.array): allocating may grow the memory and
    // detach the view, so copy by offset within the (new) memory
    const from = points.byteOffset >>> 2;
    const pointer = allocate(length * 4);
    f32().copyWithin(pointer >>> 2, from, from + length);
    return { pointer, count, owned: true };
  }
  const pointer = allocate(length * 4);
  if (ArrayBuffer.isView(points)) {
    f32().set(points, pointer >>> 2); // Float64Array values round to float32
  } else {
    const heap = f32();
    const base = pointer >>> 2;
    for (let i = 0; i < length; i++) {
      const v = points[i];
      if (typeof v !== 'number') {
        wasm.free(pointer);
        throw new TypeError(`meshweld: ${who} points[${i}] is not a number: ${describe(v)}`);
      }
      heap[base + i] = v;
    }
  }
  return { pointer, count, owned: true };
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

function coordinate(points, stride, index, axis) {
  const array = points instanceof PointBuffer ? points.array : points;
  return array[index * stride + axis];
}

// Turns a core error code into an Error naming the bad value.
function fail(code, points, stride, info, who) {
  const heap = u32();
  const at = heap[(info >>> 2) + 2];
  const axis = heap[(info >>> 2) + 3];
  if (code === ERROR_NONFINITE) {
    const value = coordinate(points, stride, at, axis);
    const why = Number.isFinite(value) ? ' (beyond the float32 range)' : '';
    return new RangeError(`meshweld: ${who} point ${at} has a non-finite coordinate ${AXES[axis]} = ${value}${why}`);
  }
  if (code === ERROR_RANGE) {
    const value = coordinate(points, stride, at, axis);
    return new RangeError(
      `meshweld: ${who} point ${at} coordinate ${AXES[axis]} = ${value} is too large for the radius: ` +
        `grid cell indices would overflow; use method 'kdtree' or 'auto', or a larger radius`,
    );
  }
  if (code === ERROR_MEMORY) {
    return new RangeError(
      `meshweld: out of memory: WebAssembly memory cannot grow enough (now ${wasm.memory.buffer.byteLength} bytes, limit 4 GiB)`,
    );
  }
  return new Error(`meshweld: ${who}: ${ERROR_TEXT[code] ?? `error ${code}`}`);
}

function writeOptions(pointer, o) {
  const heap = i32();
  const base = pointer >>> 2;
  heap[base] = o.dim;
  f32()[base + 1] = o.radius;
  heap[base + 2] = o.method;
  heap[base + 3] = o.store;
}

// The result of a weld whose remap is in the heap: the kept positions gathered, both copied out.
function collect(input, remap, count, dim, stride, centroid, method) {
  const out = allocate(count * dim * 4);
  try {
    const code = wasm.meshweld_gather(out, count, remap, input.pointer, input.count, stride * 4, dim, centroid ? 1 : 0);
    if (code !== 0) throw new Error(`meshweld: gather: ${ERROR_TEXT[code] ?? `error ${code}`}`);
    return {
      remap: new Uint32Array(wasm.memory.buffer, remap, input.count).slice(),
      count,
      positions: new Float32Array(wasm.memory.buffer, out, count * dim).slice(),
      method,
    };
  } finally {
    wasm.free(out);
  }
}

/**
 * Welds points in one call.
 * @returns {{ remap: Uint32Array, count: number, positions: Float32Array, method: string }}
 */
export function weld(points, options) {
  core();
  const o = parseOptions(options, 'weld');
  const stride = parseStride(options.stride, o.dim);
  const centroid = options.position === 'centroid';
  if (options.position !== undefined && options.position !== 'first' && !centroid) {
    throw new RangeError(`meshweld: position must be 'first' or 'centroid', got ${describe(options.position)}`);
  }
  const input = stage(points, stride, 'weld');
  let remap = 0;
  let kept = 0;
  const scratch = allocate(32); // options (16 bytes) then info (16 bytes)
  try {
    remap = allocate(input.count * 4);
    writeOptions(scratch, o);
    if (centroid) {
      const code = wasm.meshweld_weld(remap, input.pointer, input.count, stride * 4, scratch, scratch + 16);
      if (code !== 0) throw fail(code, points, stride, scratch + 16, 'weld');
      const info = u32();
      const method = methods[info[((scratch + 16) >>> 2) + 1]];
      return collect(input, remap, info[(scratch + 16) >>> 2], o.dim, stride, centroid, method);
    }
    // the kept positions come straight from the weld: room for as many outputs as inputs
    kept = allocate(input.count * o.dim * 4);
    const code = wasm.meshweld_weldKept(remap, kept, input.pointer, input.count, stride * 4, scratch, scratch + 16);
    if (code !== 0) throw fail(code, points, stride, scratch + 16, 'weld');
    const info = u32();
    const count = info[(scratch + 16) >>> 2];
    return {
      remap: new Uint32Array(wasm.memory.buffer, remap, input.count).slice(),
      count,
      positions: new Float32Array(wasm.memory.buffer, kept, count * o.dim).slice(),
      method: methods[info[((scratch + 16) >>> 2) + 1]],
    };
  } finally {
    if (input.owned) wasm.free(input.pointer);
    if (remap) wasm.free(remap);
    if (kept) wasm.free(kept);
    wasm.free(scratch);
  }
}

const welders = new FinalizationRegistry((pointer) => wasm.meshweld_welderDestroy(pointer));

/** An incremental welder: each batch is welded against everything added before. */
export class Welder {
  #pointer = 0;
  #dim;
  #stride;
  constructor(options) {
    core();
    const o = parseOptions(options, 'Welder');
    this.#dim = o.dim;
    this.#stride = parseStride(options.stride, o.dim);
    const scratch = allocate(32);
    try {
      writeOptions(scratch, o);
      const pointer = wasm.meshweld_welderCreate(scratch, scratch + 16) >>> 0;
      if (pointer === 0) throw fail(i32()[(scratch + 16) >>> 2], null, 0, scratch, 'Welder');
      this.#pointer = pointer;
    } finally {
      wasm.free(scratch);
    }
    welders.register(this, this.#pointer, this);
  }
  #live() {
    core();
    if (this.#pointer === 0) throw new Error('meshweld: this Welder was disposed');
    return this.#pointer;
  }
  /** Welds a batch; returns its remap (indices into all outputs so far). */
  add(points, options = {}) {
    const welder = this.#live();
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`meshweld: Welder.add options must be an object, got ${describe(options)}`);
    }
    let { stride = this.#stride } = options;
    stride = parseStride(stride, this.#dim);
    const input = stage(points, stride, 'Welder.add');
    let remap = 0;
    const info = allocate(16);
    try {
      remap = allocate(input.count * 4);
      const code = wasm.meshweld_welderAdd(welder, remap, input.pointer, input.count, stride * 4, info);
      if (code !== 0) throw fail(code, points, stride, info, 'Welder.add');
      return new Uint32Array(wasm.memory.buffer, remap, input.count).slice();
    } finally {
      if (input.owned) wasm.free(input.pointer);
      if (remap) wasm.free(remap);
      wasm.free(info);
    }
  }
  /** Number of output points so far. */
  get count() {
    return wasm.meshweld_welderCount(this.#live()) >>> 0;
  }
  /** The method that runs now ('auto' resolved; it may switch to 'kdtree' on huge coordinates). */
  get method() {
    return methods[wasm.meshweld_welderMethod(this.#live())];
  }
  get dim() {
    return this.#dim;
  }
  /** The kept positions: Float32Array(count * dim). */
  positions() {
    const welder = this.#live();
    const count = this.count;
    const out = allocate(count * this.#dim * 4);
    try {
      wasm.meshweld_welderPositions(welder, out);
      return new Float32Array(wasm.memory.buffer, out, count * this.#dim).slice();
    } finally {
      wasm.free(out);
    }
  }
  /** Frees the welder's memory; harmless to call twice. */
  dispose() {
    if (this.#pointer !== 0) {
      wasm.meshweld_welderDestroy(this.#pointer);
      welders.unregister(this);
      this.#pointer = 0;
    }
  }
}

/**
 * Counts pairs of points within radius of each other (the exact validator of guarantee 1),
 * stopping at limit when given.
 */
export function countClosePairs(points, { dim = 3, radius, stride, limit = 0 } = {}) {
  core();
  const o = parseOptions({ dim, radius }, 'countClosePairs');
  stride = parseStride(stride, o.dim);
  const input = stage(points, stride, 'countClosePairs');
  const result = allocate(8);
  try {
    const code = wasm.meshweld_countClosePairs(result, input.pointer, input.count, stride * 4, o.dim, o.radius, limit);
    if (code === ERROR_NONFINITE) {
      for (let i = 0; i < input.count; i++)
        for (let a = 0; a < o.dim; a++) {
          const v = coordinate(points, stride, i, a);
          if (!Number.isFinite(Math.fround(v))) {
            throw new RangeError(`meshweld: countClosePairs point ${i} has a non-finite coordinate ${AXES[a]} = ${v}`);
          }
        }
    }
    if (code !== 0) throw new RangeError(`meshweld: countClosePairs: ${ERROR_TEXT[code] ?? `error ${code}`}`);
    return u32()[result >>> 2];
  } finally {
    if (input.owned) wasm.free(input.pointer);
    wasm.free(result);
  }
}

/** The bound R of a method: the largest distance at which two inputs can merge directly. */
export function bound({ method = 'auto', store = 'loose', dim = 3, radius }) {
  core();
  const o = parseOptions({ method, store, dim, radius }, 'bound');
  return wasm.meshweld_bound(o.method, o.store, o.dim, o.radius);
}

/** Look-ups per distinct point of a grid method (0 for naive, kdtree and auto). */
export function lookups(method, dim = 3) {
  core();
  const m = methods.indexOf(method);
  if (m < 0) throw new RangeError(`meshweld: unknown method ${describe(method)}`);
  return wasm.meshweld_lookups(m, dim);
}

/**
 * The cells a grid method searches for one point, its store cell first: `keys` holds 3 integers
 * per cell (z = 0 in 2D) and `size` is the cell size, which places them (see meshweld_cells in
 * c/meshweld.h). naive and kdtree search no cells: keys is empty. For drawing and teaching.
 */
export function cells(point, { method = 'auto', dim = 3, radius } = {}) {
  core();
  const o = parseOptions({ method, dim, radius }, 'cells');
  if (!(radius > 0)) throw new RangeError(`meshweld: cells needs a radius > 0, got ${radius}`);
  if (!point || typeof point.length !== 'number' || point.length < o.dim) {
    throw new TypeError(`meshweld: cells point must hold ${o.dim} numbers, got ${describe(point)}`);
  }
  const scratch = allocate(16 + 8 + 27 * 12 + 16);
  try {
    const heap = f32();
    for (let a = 0; a < o.dim; a++) heap[(scratch >>> 2) + a] = point[a];
    const options = scratch + 24 + 27 * 12;
    writeOptions(options, o);
    const n = wasm.meshweld_cells(scratch + 24, scratch + 16, scratch, options);
    if (n < 0) {
      const v = Array.from({ length: o.dim }, (_, a) => point[a]).join(', ');
      throw new RangeError(`meshweld: cells of point (${v}): ${ERROR_TEXT[n] ?? `error ${n}`}`);
    }
    return {
      keys: new Int32Array(wasm.memory.buffer, scratch + 24, n * 3).slice(),
      size: n > 0 ? new Float64Array(wasm.memory.buffer, scratch + 16, 1)[0] : 0,
    };
  } finally {
    wasm.free(scratch);
  }
}

/** Bytes of WebAssembly memory in use by the module (it only grows). */
export function memoryBytes() {
  return core().memory.buffer.byteLength;
}

/**
 * Welds a mesh: the positions (indexed or an unindexed soup when indices is null), then the index
 * buffer follows, degenerate triangles are removed (unless removeDegenerate is false), repeated
 * triangles too with removeDuplicates, and every attribute given is compacted to the kept vertices.
 * @returns {{ positions, indices, remap, vertexCount, triangleCount, degenerateRemoved,
 *   duplicatesRemoved, attributes, method }}
 */
export function weldMesh(positions, indices, options) {
  core();
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`meshweld: weldMesh options must be an object, got ${describe(options)}`);
  }
  const { removeDegenerate = true, removeDuplicates = false, attributes = {}, tolerances, ...weldOptions } = options;
  const dim = weldOptions.dim ?? 3;
  const stride = weldOptions.stride ?? dim;
  const vertexCount = positions?.length / stride;
  let source = null;
  if (indices !== null && indices !== undefined) {
    if (!(indices instanceof Uint32Array || indices instanceof Uint16Array || Array.isArray(indices))) {
      throw new TypeError(`meshweld: weldMesh indices must be a Uint32Array, Uint16Array, Array or null, got ${describe(indices)}`);
    }
    if (ArrayBuffer.isView(indices) && isDetached(indices.buffer)) {
      throw new TypeError(`meshweld: weldMesh indices are a ${indices.constructor.name} over a detached ArrayBuffer`);
    }
    if (indices.length % 3 !== 0) {
      throw new RangeError(`meshweld: weldMesh index count ${indices.length} is not a multiple of 3`);
    }
    if (Array.isArray(indices)) {
      const bad = indices.findIndex((v) => !Number.isInteger(v) || v < 0 || v >= 2 ** 32);
      if (bad >= 0) throw new TypeError(`meshweld: weldMesh indices[${bad}] is not a vertex index: ${describe(indices[bad])}`);
    }
    source = indices;
  } else if (Number.isInteger(vertexCount) && vertexCount % 3 !== 0) {
    throw new RangeError(`meshweld: weldMesh unindexed vertex count ${vertexCount} is not a multiple of 3`);
  }
  for (const [name, attribute] of Object.entries(attributes)) {
    if (!attribute || !ArrayBuffer.isView(attribute.array) || !Number.isInteger(attribute.itemSize) || attribute.itemSize < 1) {
      throw new TypeError(`meshweld: weldMesh attribute '${name}' must be { array: TypedArray, itemSize: integer >= 1 }`);
    }
    if (isDetached(attribute.array.buffer)) {
      throw new TypeError(`meshweld: weldMesh attribute '${name}' is a ${attribute.array.constructor.name} over a detached ArrayBuffer`);
    }
    if (attribute.array.length !== vertexCount * attribute.itemSize) {
      throw new RangeError(
        `meshweld: weldMesh attribute '${name}' has ${attribute.array.length} values, expected ${vertexCount} x ${attribute.itemSize}`,
      );
    }
  }
  const welded = tolerances ? weldMatching(positions, weldOptions, attributes, tolerances) : weld(positions, weldOptions);
  const indexCount = source ? source.length : vertexCount;
  let buffer = 0;
  const info = allocate(32); // info (16 bytes), then written, degenerate, duplicates
  try {
    buffer = allocate(indexCount * 4);
    const remap = allocate(vertexCount * 4);
    try {
      u32().set(welded.remap, remap >>> 2);
      if (source) u32().set(source, buffer >>> 2);
      const flags = (removeDegenerate ? 0 : 1) | (removeDuplicates ? 2 : 0);
      const code = wasm.meshweld_remapTriangles(buffer, info + 16, info + 20, info + 24, source ? buffer : 0,
        indexCount, remap, vertexCount, flags, info);
      if (code === -13) {
        const at = u32()[(info >>> 2) + 2];
        throw new RangeError(`meshweld: weldMesh indices[${at}] = ${source[at]} is out of range (${vertexCount} vertices)`);
      }
      if (code !== 0) throw new Error(`meshweld: weldMesh: ${ERROR_TEXT[code] ?? `error ${code}`}`);
    } finally {
      wasm.free(remap);
    }
    const heap = u32();
    const written = heap[(info + 16) >>> 2];
    const wide = new Uint32Array(wasm.memory.buffer, buffer, written);
    const out = indices instanceof Uint16Array && welded.count <= 65536 ? Uint16Array.from(wide) : wide.slice();
    // each attribute takes the value of the kept vertex, the first of its cluster
    const first = firstOfEach(welded.remap, welded.count);
    const compacted = {};
    for (const [name, { array, itemSize }] of Object.entries(attributes)) compacted[name] = { array: gatherItems(array, itemSize, first), itemSize };
    return {
      positions: welded.positions,
      indices: out,
      remap: welded.remap,
      vertexCount: welded.count,
      triangleCount: written / 3,
      degenerateRemoved: heap[(info + 20) >>> 2],
      duplicatesRemoved: heap[(info + 24) >>> 2],
      attributes: compacted,
      method: welded.method,
    };
  } finally {
    if (buffer) wasm.free(buffer);
    wasm.free(info);
  }
}

// The attribute-aware weld behind weldMesh's `tolerances`: a vertex merges only into a
// representative within r whose every named attribute is within its tolerance.
function weldMatching(positions, options, attributes, tolerances) {
  if (tolerances === null || typeof tolerances !== 'object') {
    throw new TypeError(`meshweld: weldMesh tolerances must be an object of attribute name to tolerance, got ${describe(tolerances)}`);
  }
  const o = parseOptions(options, 'weldMesh');
  const stride = parseStride(options.stride, o.dim);
  const names = Object.keys(tolerances);
  for (const name of names) {
    const t = tolerances[name];
    if (!(name in attributes)) throw new RangeError(`meshweld: weldMesh tolerance for '${name}', which is not among the attributes`);
    if (typeof t !== 'number' || !(t >= 0) || !Number.isFinite(t)) {
      throw new RangeError(`meshweld: weldMesh tolerance of '${name}' must be a finite number >= 0, got ${describe(t)}`);
    }
    if (attributes[name].itemSize > 16) throw new RangeError(`meshweld: weldMesh attribute '${name}' has more than 16 components`);
  }
  const input = stage(positions, stride, 'weldMesh');
  const staged = [];
  const scratch = allocate(32 + 16 * names.length);
  let remap = 0;
  try {
    for (const name of names) staged.push(stage(Float32Array.from(attributes[name].array), attributes[name].itemSize, 'weldMesh'));
    writeOptions(scratch, o);
    names.forEach((name, k) => {
      const base = (scratch + 32 + 16 * k) >>> 2;
      u32()[base] = staged[k].pointer;
      u32()[base + 1] = attributes[name].itemSize * 4;
      i32()[base + 2] = attributes[name].itemSize;
      f32()[base + 3] = tolerances[name];
    });
    remap = allocate(input.count * 4);
    const code = wasm.meshweld_weldAttributes(remap, input.pointer, input.count, stride * 4, scratch, scratch + 32, names.length, scratch + 16);
    if (code === ERROR_NONFINITE && u32()[((scratch + 16) >>> 2) + 3] >= 3) {
      const heap = u32();
      const at = heap[((scratch + 16) >>> 2) + 2];
      const name = names[heap[((scratch + 16) >>> 2) + 3] - 3];
      throw new RangeError(`meshweld: weldMesh attribute '${name}' of vertex ${at} is not finite`);
    }
    if (code !== 0) throw fail(code, positions, stride, scratch + 16, 'weldMesh');
    const info = u32();
    return collect(input, remap, info[(scratch + 16) >>> 2], o.dim, stride, false, methods[info[((scratch + 16) >>> 2) + 1]]);
  } finally {
    if (input.owned) wasm.free(input.pointer);
    for (const s of staged) wasm.free(s.pointer);
    if (remap) wasm.free(remap);
    wasm.free(scratch);
  }
}
