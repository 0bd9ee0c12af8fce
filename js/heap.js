// The WebAssembly side of meshweld: the module instance, its memory, the C structs by field name,
// the error codes, and frames of scratch memory that a public call frees in one `finally`.
// Nothing here validates user input: that is check.js; nothing here knows the public API.
import wasmBase64 from './wasm-inline.js';

/** The C library's error codes (meshweld_Error in c/meshweld.h), named once. */
export const ERROR = Object.freeze({
  Ok: 0,
  Dim: -1,
  Radius: -2,
  Method: -3,
  Store: -4,
  MethodDim: -5,
  Stride: -6,
  Count: -7,
  NonFinite: -8,
  Range: -9,
  Memory: -10,
  Null: -11,
  Allocator: -12,
  Index: -13,
  IndexCount: -14,
  Attribute: -15,
});

// The structs the JS side writes or reads. In wasm32 int, float, size_t and pointers are all 4
// bytes with 4-byte alignment; a double is 8 bytes aligned to 8, as is a struct holding one.
const FIELD = { int: Int32Array, float: Float32Array, size: Uint32Array, pointer: Uint32Array, double: Float64Array };

function struct(name, fields) {
  const layout = { name, size: 0, fields: {}, list: [] };
  let align = 4;
  for (const [field, type] of fields) {
    const View = FIELD[type];
    const bytes = View.BYTES_PER_ELEMENT;
    align = Math.max(align, bytes);
    layout.size = Math.ceil(layout.size / bytes) * bytes;
    layout.fields[field] = Object.freeze({ name: field, offset: layout.size, View });
    layout.list.push(layout.fields[field]);
    layout.size += bytes;
  }
  layout.size = Math.ceil(layout.size / align) * align;
  Object.freeze(layout.fields);
  Object.freeze(layout.list);
  return Object.freeze(layout);
}

/** meshweld_Options: int dim, float radius, int method, int store. */
export const Options = struct('meshweld_Options', [['dim', 'int'], ['radius', 'float'], ['method', 'int'], ['store', 'int']]);
/** meshweld_Info: size_t unique_count, int method, size_t error_point, int error_axis. */
export const Info = struct('meshweld_Info', [['unique_count', 'size'], ['method', 'int'], ['error_point', 'size'], ['error_axis', 'int']]);
/** meshweld_Trace: what GRID's spatial engine did (see c/meshweld.h). */
export const Trace = struct('meshweld_Trace', [
  ['phases', 'int'], ['distinct', 'pointer'], ['order', 'pointer'], ['cell_keys', 'pointer'], ['cell_start', 'pointer'],
  ['pairs', 'pointer'], ['pair_capacity', 'size'], ['nodes', 'size'], ['cells', 'size'], ['tests', 'size'],
  ['pair_count', 'size'], ['cell_size', 'double'], ['engine', 'int'], ['steps', 'size'], ['crowded', 'size'],
]);
/** meshweld_Attribute: const float* data, size_t stride, int size, float tolerance. */
export const Attribute = struct('meshweld_Attribute', [['data', 'pointer'], ['stride', 'size'], ['size', 'int'], ['tolerance', 'float']]);

const MAX_BYTES = 2 ** 32 - 2 ** 26; // the 4 GiB address space, less what the module itself needs

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
  // the hash tables' keys from a random source: the module's addresses are the same on every
  // load, so without it points could be crafted to collide in its tables
  instance.exports.meshweld_seedHashes(...randomWords());
  wasm = instance.exports;
});

function randomWords() {
  const words = new Uint32Array(2);
  if (globalThis.crypto?.getRandomValues) globalThis.crypto.getRandomValues(words);
  else for (let i = 0; i < 2; i++) words[i] = Math.floor(Math.random() * 2 ** 32);
  return words;
}

/** The module's exports; throws when `ready` has not resolved yet. */
export function core() {
  if (!wasm) throw new Error('meshweld: the WebAssembly module is not ready yet: await `ready` first');
  return wasm;
}

// Views of the whole memory, by element type, made again when the memory has grown (growth
// detaches the buffer they were made on).
let whole = new Map();
let wholeBuffer = null;

/**
 * A view of the module's memory: the whole of it (shared, valid until the memory grows), or
 * `length` elements at `pointer` (a new view). Take it after any call that may allocate.
 */
export function view(View, pointer = 0, length) {
  const buffer = wasm.memory.buffer;
  if (length !== undefined) return new View(buffer, pointer, length);
  if (buffer !== wholeBuffer) {
    whole = new Map();
    wholeBuffer = buffer;
  }
  let all = whole.get(View);
  if (!all) whole.set(View, (all = new View(buffer)));
  return all;
}

/** A copy, out of the module's memory, of `length` elements of type View at `pointer`. */
export function copyOut(View, pointer, length) {
  return new View(wasm.memory.buffer, pointer, length).slice();
}

/** Bytes of WebAssembly memory the module has (it only grows). */
export function memoryBytes() {
  return core().memory.buffer.byteLength;
}

let live = 0; // blocks allocated through this module and not yet freed

/** Blocks of scratch and PointBuffer memory allocated and not yet freed (for leak tests). */
export function liveAllocations() {
  return live;
}

/** malloc, refusing sizes beyond the address space and turning a null pointer into a RangeError. */
export function allocate(bytes) {
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
  live++;
  return pointer;
}

export function release(pointer) {
  if (pointer !== 0) {
    wasm.free(pointer);
    live--;
  }
}

/** Writes the named fields of a struct at `pointer` (fields not given are left as they are). */
export function writeStruct(layout, pointer, values) {
  for (const name in values) {
    const field = layout.fields[name];
    if (!field) throw new Error(`meshweld: internal: ${layout.name} has no field ${name}`);
    view(field.View)[(pointer + field.offset) / field.View.BYTES_PER_ELEMENT] = values[name];
  }
}

/** Reads every field of a struct at `pointer` into an object. */
export function readStruct(layout, pointer) {
  const out = {};
  for (const field of layout.list) out[field.name] = view(field.View)[(pointer + field.offset) / field.View.BYTES_PER_ELEMENT];
  return out;
}

/**
 * The scratch memory of one public call: every block allocated through the frame is freed by
 * release(), which the call runs in its one `finally` (see withFrame).
 */
export class Frame {
  #blocks = [];
  /** `bytes` of scratch. */
  alloc(bytes) {
    const pointer = allocate(bytes);
    this.#blocks.push(pointer);
    return pointer;
  }
  /** A zeroed struct, with the fields given set. */
  struct(layout, values = {}) {
    const pointer = this.alloc(layout.size);
    view(Uint8Array).fill(0, pointer, pointer + layout.size);
    writeStruct(layout, pointer, values);
    return pointer;
  }
  /** `count` structs of one layout in a row, zeroed: the pointer of the first. */
  structs(layout, count) {
    const pointer = this.alloc(layout.size * count);
    view(Uint8Array).fill(0, pointer, pointer + layout.size * count);
    return pointer;
  }
  /** A copy of a typed array (its element type kept) in the heap. */
  copyIn(array) {
    const pointer = this.alloc(array.byteLength);
    view(array.constructor, pointer, array.length).set(array);
    return pointer;
  }
  release() {
    for (const pointer of this.#blocks) release(pointer);
    this.#blocks.length = 0;
  }
}

/** Runs fn(frame) with the module ready and frees everything the frame allocated afterwards. */
export function withFrame(fn) {
  core();
  const frame = new Frame();
  try {
    return fn(frame);
  } finally {
    frame.release();
  }
}

const decoder = new TextDecoder();

/** The C library's sentence for an error code (meshweld_errorString). */
export function errorText(code) {
  const pointer = core().meshweld_errorString(code) >>> 0;
  const bytes = view(Uint8Array);
  let end = pointer;
  while (bytes[end] !== 0) end++;
  return decoder.decode(bytes.subarray(pointer, end));
}
