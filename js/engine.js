// The weld itself, on points already staged in a frame: the core call, its result read back, and
// the non-finite policy ('error', 'skip', 'keep') around it. Shared by weld and weldMesh.
import { Attribute, ERROR, Info, Options, copyOut, core, readStruct, view, writeStruct } from './heap.js';
import { choice, coreError, methods, stores } from './check.js';
import { compactPoints, nonFiniteMask, originalInfo } from './points.js';

/** The remap value of a point left out by nonFinite: 'skip'. */
export const SKIPPED = 0xffffffff;

const FLT_MAX = 3.4028234663852886e38;

export const nonFinitePolicies = Object.freeze(['error', 'skip', 'keep']);

/** The bounding-box diagonal of the finite points of a float array (0 when there are none). */
export function diagonal(values, count, stride, dim) {
  let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
  for (let i = 0, at = 0; i < count; i++, at += stride) {
    const x = values[at], y = values[at + 1], z = dim === 3 ? values[at + 2] : 0;
    if (!(x - x === 0 && y - y === 0 && z - z === 0)) continue; // a non-finite coordinate: left out
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
    if (z < z0) z0 = z;
    if (z > z1) z1 = z;
  }
  if (x0 > x1) return 0;
  return dim === 3 ? Math.hypot(x1 - x0, y1 - y0, z1 - z0) : Math.hypot(x1 - x0, y1 - y0);
}

/** A radius worked out from a diagonal as a weld radius: 0 if it rounds to 0 in float32, FLT_MAX at most. */
export function weldRadius(r) {
  if (Math.fround(r) === 0) return 0;
  return Number.isFinite(Math.fround(r)) ? r : FLT_MAX; // larger than any distance between float32 points
}

/** relativeRadius times a diagonal, as a weld radius (weldRadius). */
export function relativeToRadius(relativeRadius, diagonalLength) {
  return weldRadius(relativeRadius * diagonalLength);
}

/** The radius of a weld of staged points: given, or relativeRadius times their diagonal. */
export function resolveRadius(radius, staged, dim) {
  if (radius.relativeRadius === undefined) return radius.radius;
  const values = view(Float32Array, staged.pointer, staged.count * staged.stride);
  return relativeToRadius(radius.relativeRadius, diagonal(values, staged.count, staged.stride, dim));
}

const AUTO = methods.indexOf('auto');
const KDTREE = methods.indexOf('kdtree');
const PRECISE = stores.indexOf('precise');

// One core weld of finite staged points: the remap (copied out, and where it stays in the frame),
// the kept positions (unless positions is false), the method; with first: true also where each
// output's first input is in the frame (firstPointer), as the weld numbers its outputs.
function coreWeld(frame, staged, mode, radius, who, { centroid = false, attributes = null, element, number = null, positions = true, remap: remapWanted = true, first: firstWanted = false }) {
  const wasm = core();
  // Compared attributes that are none: the attribute weld is then the plain precise weld (every
  // method it runs gives the naive result), which the plain weld computes faster. kdtree stays
  // kdtree; any other method becomes auto (grid, or the kd-tree where cells cannot hold the points).
  const plain = attributes && attributes.length === 0;
  const method = plain && mode.method !== KDTREE ? AUTO : mode.method;
  const options = frame.struct(Options, { dim: mode.dim, radius, method, store: plain ? PRECISE : mode.store });
  const info = frame.struct(Info);
  const remap = frame.alloc(staged.count * 4);
  const bytes = staged.stride * 4;
  let code;
  // with first wanted, the weld writes the first inputs (and the kept positions) as it numbers its
  // outputs, without a pass over the remap or the points after it
  const first = firstWanted ? frame.alloc(staged.count * 4) : 0;
  let kept = first && positions && !centroid ? frame.alloc(staged.count * mode.dim * 4) : 0; // room for as many outputs as inputs
  if (attributes && !plain) {
    const list = frame.structs(Attribute, attributes.length);
    attributes.forEach((a, k) => {
      const at = list + k * Attribute.size;
      writeStruct(Attribute, at, { data: a.pointer, stride: a.itemSize * 4, size: a.itemSize, tolerance: a.tolerance });
    });
    code = first ? wasm.meshweld_weldAttributesFirst(remap, first, kept, staged.pointer, staged.count, bytes, options, list, attributes.length, info)
      : wasm.meshweld_weldAttributes(remap, staged.pointer, staged.count, bytes, options, list, attributes.length, info);
  } else if (first) {
    code = wasm.meshweld_weldFirst(remap, first, kept, staged.pointer, staged.count, bytes, options, info);
  } else if (centroid || !positions) {
    code = wasm.meshweld_weld(remap, staged.pointer, staged.count, bytes, options, info);
  } else {
    kept = frame.alloc(staged.count * mode.dim * 4);
    code = wasm.meshweld_weldKept(remap, kept, staged.pointer, staged.count, bytes, options, info);
  }
  const result = readStruct(Info, info);
  if (code !== ERROR.Ok) {
    throw coreError(code, originalInfo(result, staged), who, {
      value: staged.value, element, number, attributeName: attributes && ((k) => attributes[k].name),
      // weld, weldMesh and weldGeometry take the option (the glTF transform reports such positions itself)
      nonFinite: "nonFinite: 'skip' or 'keep' lets such points through",
    });
  }
  const count = result.unique_count;
  if (positions && !kept) {
    kept = frame.alloc(count * mode.dim * 4);
    const gathered = wasm.meshweld_gather(kept, count, remap, staged.pointer, staged.count, bytes, mode.dim, centroid ? 1 : 0);
    if (gathered !== ERROR.Ok) throw coreError(gathered, null, who);
  }
  return {
    remap: remapWanted ? copyOut(Uint32Array, remap, staged.count) : null,
    remapPointer: remap,
    count,
    positions: positions ? copyOut(Float32Array, kept, count * mode.dim) : null,
    firstPointer: first || null,
    method: methods[result.method],
    skipped: 0,
  };
}

// The bits of point i's coordinates (and attribute values), -0 read as +0 as everywhere else, as a
// key: what 'keep' groups by.
function bitsKey(staged, i, dim, attributes) {
  const bits = view(Uint32Array);
  const word = (at) => (bits[at] === 0x80000000 ? 0 : bits[at]);
  let key = '';
  for (let a = 0; a < dim; a++) key += `${word((staged.pointer >>> 2) + i * staged.stride + a)},`;
  for (const attribute of attributes ?? [])
    for (let c = 0; c < attribute.itemSize; c++) key += `${word((attribute.pointer >>> 2) + i * attribute.itemSize + c)},`;
  return key;
}

/**
 * Welds staged points under a non-finite policy. Returns { remap, remapPointer, count, positions,
 * method, skipped }: with 'skip' the remap holds SKIPPED for the points left out; with 'keep' each
 * distinct non-finite point (by its bits) is an output of its own, numbered by first appearance.
 * remapPointer is the remap in the frame when it is the same as remap (every point finite), else
 * null; positions is null when positions: false (the caller has no use for them), and remap is
 * null when remap: false and remapPointer holds it (every point finite). With first: true,
 * firstPointer is where each output's first input is in the frame when every point is finite,
 * else it is null or missing. `number` (a caller's own numbering of the points) names them in
 * errors.
 */
export function weldStaged(frame, staged, mode, radius, who, { nonFinite = 'error', centroid = false, attributes = null, element = 'point', number = null, positions: wanted = true, remap: remapWanted = true, first = false } = {}) {
  const mask = nonFinite === 'error' ? null : nonFiniteMask(staged, mode.dim);
  if (!mask) return coreWeld(frame, staged, mode, radius, who, { centroid, attributes, element, number, positions: wanted, remap: remapWanted, first });
  const finite = compactPoints(frame, staged, mode.dim, mask);
  const compactAttributes = attributes?.map((a) => {
    const pointer = frame.alloc(finite.count * a.itemSize * 4);
    const source = view(Float32Array, a.pointer, staged.count * a.itemSize);
    const target = view(Float32Array, pointer, finite.count * a.itemSize);
    for (let i = 0, k = 0; i < staged.count; i++)
      if (!mask[i]) target.set(source.subarray(i * a.itemSize, (i + 1) * a.itemSize), k++ * a.itemSize);
    return { ...a, pointer };
  });
  const inner = coreWeld(frame, finite, mode, radius, who, { centroid, attributes: compactAttributes, element, number });
  const remap = new Uint32Array(staged.count);
  if (nonFinite === 'skip') {
    for (let i = 0, k = 0; i < staged.count; i++) remap[i] = mask[i] ? SKIPPED : inner.remap[k++];
    return { ...inner, remap, remapPointer: null, skipped: staged.count - finite.count };
  }
  // 'keep': renumber by first appearance over finite clusters and non-finite groups together
  const renumber = new Int32Array(inner.count).fill(-1);
  const groups = new Map();
  const positions = [];
  const source = view(Float32Array, staged.pointer, staged.count * staged.stride);
  let next = 0;
  for (let i = 0, k = 0; i < staged.count; i++) {
    if (!mask[i]) {
      const c = inner.remap[k++];
      if (renumber[c] < 0) {
        renumber[c] = next++;
        positions.push(...inner.positions.subarray(c * mode.dim, (c + 1) * mode.dim));
      }
      remap[i] = renumber[c];
    } else {
      const key = bitsKey(staged, i, mode.dim, attributes);
      if (!groups.has(key)) {
        groups.set(key, next++);
        positions.push(...source.subarray(i * staged.stride, i * staged.stride + mode.dim));
      }
      remap[i] = groups.get(key);
    }
  }
  return { remap, remapPointer: null, count: next, positions: Float32Array.from(positions), method: inner.method, skipped: 0 };
}

export function nonFiniteOption(value, who, allowed = nonFinitePolicies) {
  return choice(value, 'nonFinite', allowed, 'error', who);
}
