// weldMesh: a weld of the vertices, then the elements (triangles, line segments or points)
// rewritten through the remap, and the attributes compacted to the kept vertices.
import { ERROR, Info, copyOut, core, readStruct, view, withFrame } from './heap.js';
import { boolean, checkOptions, choice, coreError, describe, failure, radiusOption, refusal, strideOption, toleranceValue, weldMode } from './check.js';
import { isIntegerArray, normalizer, outsideModule, stagePoints, unreadable } from './points.js';
import { SKIPPED, nonFiniteOption, resolveRadius, weldStaged } from './engine.js';
import { firstOfEach, firstOfEachIn, gatherItems } from './gather.js';

export const primitives = Object.freeze(['triangles', 'lines', 'points']);
const CORNERS = { triangles: 3, lines: 2, points: 1 };
const ELEMENT = { triangles: 'triangle', lines: 'line segment', points: 'point' };
const MESH_OPTIONS = ['radius', 'relativeRadius', 'dim', 'method', 'store', 'stride', 'normalized', 'nonFinite',
  'removeDegenerate', 'removeDuplicates', 'attributes', 'tolerances', 'primitive'];

/** An attribute's values as float32, as the shader sees them (normalized integers mapped). */
export function attributeFloats(array, normalized) {
  if (array instanceof Float32Array && !normalized) return array;
  const out = new Float32Array(array.length);
  if (normalized && isIntegerArray(array)) {
    const scale = normalizer(array);
    for (let i = 0; i < array.length; i++) out[i] = scale(array[i]);
  } else {
    out.set(array);
  }
  return out;
}

// The values the weld compares of an attribute: its floats (attributeFloats); but 32-bit integers
// past 2^24, which float32 cannot all hold, compared at tolerance 0 each become two exact halves
// (their high and low 16 bits), so that only equal integers match. { floats, itemSize }.
function comparedValues(array, itemSize, normalized, tolerance) {
  const wide = tolerance === 0 && !normalized && (array instanceof Int32Array || array instanceof Uint32Array) && itemSize <= 8;
  if (!wide || !array.some((v) => v >= 2 ** 24 || v <= -(2 ** 24))) return { floats: attributeFloats(array, normalized), itemSize };
  const floats = new Float32Array(2 * array.length);
  for (let i = 0; i < array.length; i++) {
    const high = Math.floor(array[i] / 65536);
    floats[2 * i] = high;
    floats[2 * i + 1] = array[i] - high * 65536;
  }
  return { floats, itemSize: 2 * itemSize };
}

function checkIndices(indices, corners, primitive, who) {
  if (indices === null || indices === undefined) return null;
  const typed = indices instanceof Uint32Array || indices instanceof Uint16Array || indices instanceof Uint8Array;
  if (!typed && !Array.isArray(indices)) {
    throw failure(TypeError, who, `indices must be a Uint32Array, Uint16Array, Uint8Array, an array of integers or null, got ${describe(indices)}`);
  }
  const why = typed ? unreadable(indices) : null;
  if (why) throw failure(TypeError, who, `indices are a ${indices.constructor.name} ${why}`);
  if (indices.length % corners !== 0) {
    throw failure(RangeError, who, `index count ${indices.length} is not a multiple of ${corners} (${primitive})`);
  }
  if (Array.isArray(indices)) {
    const bad = indices.findIndex((v) => !Number.isInteger(v) || v < 0 || v >= 2 ** 32);
    if (bad >= 0) {
      throw failure(refusal(indices[bad], 'number'), who, `indices[${bad}] must be a vertex index (an integer >= 0), got ${describe(indices[bad])}`);
    }
  }
  return outsideModule(indices);
}

function checkAttributes(attributes, vertexCount, who) {
  if (attributes === undefined) return {};
  if (attributes === null || typeof attributes !== 'object' || Array.isArray(attributes)) {
    throw failure(TypeError, who, `attributes must be an object of name to { array, itemSize }, got ${describe(attributes)}`);
  }
  for (const [name, attribute] of Object.entries(attributes)) {
    if (!attribute || !ArrayBuffer.isView(attribute.array) || attribute.array instanceof DataView || !Number.isInteger(attribute.itemSize) || attribute.itemSize < 1) {
      throw failure(TypeError, who, `attribute '${name}' must be { array: a typed array, itemSize: an integer >= 1 }, got ${describe(attribute)}`);
    }
    if (attribute.normalized !== undefined && typeof attribute.normalized !== 'boolean') {
      throw failure(TypeError, who, `attribute '${name}': normalized must be true or false, got ${describe(attribute.normalized)}`);
    }
    const why = unreadable(attribute.array);
    if (why) throw failure(TypeError, who, `attribute '${name}' is a ${attribute.array.constructor.name} ${why}`);
    if (attribute.array.length !== vertexCount * attribute.itemSize) {
      throw failure(RangeError, who, `attribute '${name}' has ${attribute.array.length} values, expected ${vertexCount} x ${attribute.itemSize}`);
    }
  }
  return attributes;
}

// The attributes with every array that is a view of the module's memory copied out
// (outsideModule), before the call allocates anything; anything else as it is, for the checks.
function attributesOutsideModule(attributes) {
  if (attributes === null || typeof attributes !== 'object' || Array.isArray(attributes)) return attributes;
  return Object.fromEntries(Object.entries(attributes).map(([name, a]) => {
    const array = a && ArrayBuffer.isView(a.array) ? outsideModule(a.array) : undefined;
    if (array === undefined || array === a.array) return [name, a];
    return [name, { array, itemSize: a.itemSize, ...(a.normalized === undefined ? {} : { normalized: a.normalized }) }];
  }));
}

function checkTolerances(tolerances, attributes, who) {
  if (tolerances === undefined) return null;
  if (tolerances === null || typeof tolerances !== 'object' || Array.isArray(tolerances)) {
    throw failure(TypeError, who, `tolerances must be an object of attribute name to tolerance, got ${describe(tolerances)}`);
  }
  for (const [name, t] of Object.entries(tolerances)) {
    if (!Object.hasOwn(attributes, name)) {
      throw failure(RangeError, who, `tolerance for '${name}', which is not among the attributes (${Object.keys(attributes).join(', ') || 'none given'})`);
    }
    toleranceValue(t, `tolerance of '${name}'`, who);
    const array = attributes[name].array;
    if (array instanceof BigInt64Array || array instanceof BigUint64Array) {
      throw failure(TypeError, who, `attribute '${name}' is a ${array.constructor.name}: a tolerance compares numbers (carry it without one)`);
    }
    if (attributes[name].itemSize > 16) throw failure(RangeError, who, `attribute '${name}' has ${attributes[name].itemSize} components, more than the 16 a tolerance can compare`);
  }
  return tolerances;
}

// Triangles through the core's remapTriangles, written over the remap in the frame when it is
// there (remapPointer) and the index counts as the final index array (indexArray's type for
// `outputs` vertices); the corners of skipped vertices dropped first.
function remapTriangles(frame, source, count, remap, remapPointer, vertexCount, outputs, removeDegenerate, removeDuplicates, who) {
  let skippedElements = 0;
  if (remapPointer === null && remap.includes(SKIPPED)) {
    const kept = new Uint32Array(count);
    let written = 0;
    for (let t = 0; t < count; t += 3) {
      let skipped = false;
      for (let j = t; j < t + 3; j++) {
        const v = source ? source[j] : j;
        if (v >= vertexCount) throw failure(RangeError, who, `indices[${j}] = ${v} is out of range (${vertexCount} vertices)`);
        skipped ||= remap[v] === SKIPPED;
      }
      if (skipped) skippedElements++;
      else for (let j = t; j < t + 3; j++) kept[written++] = source ? source[j] : j;
    }
    source = kept.subarray(0, written);
    count = written;
  }
  const buffer = frame.alloc(count * 4);
  const mapped = remapPointer ?? frame.copyIn(remap);
  if (source) view(Uint32Array, buffer, count).set(source);
  const counts = frame.alloc(12); // written, degenerate, duplicates
  const info = source ? frame.struct(Info) : 0; // where a bad index is named (a soup's cannot be)
  const flags = (removeDegenerate ? 0 : 1) | (removeDuplicates ? 2 : 0);
  const code = core().meshweld_remapTriangles(buffer, counts, counts + 4, counts + 8, source ? buffer : 0, count, mapped, vertexCount, flags, info);
  if (code === ERROR.Index && source) {
    const at = readStruct(Info, info).error_point;
    throw failure(RangeError, who, `indices[${at}] = ${source[at]} is out of range (${vertexCount} vertices)`);
  }
  if (code !== ERROR.Ok) throw coreError(code, null, who);
  const [written, degenerate, duplicates] = copyOut(Uint32Array, counts, 3);
  const elements = fitsUint16(outputs) ? new Uint16Array(view(Uint32Array, buffer, written)) : copyOut(Uint32Array, buffer, written);
  return { elements, degenerate, duplicates, skippedElements };
}

// Pairs of vertex indices (below vertexCount) bucketed by their lower end, a stable counting sort:
// `eachPair(visit)` calls visit(lower, upper, k) for pairs k = 0, 1, ... in order, twice. Returns
// the upper ends and the pairs' numbers bucket by bucket, in input order within each, and `end`:
// bucket v ends at end[v] (and starts where bucket v - 1 ends). Linear in the pairs and the
// vertices, where a Set or a Map of a million keys took half a second. What meets what inside a
// bucket is each caller's rule.
function byLowerEnd(count, vertexCount, eachPair) {
  const end = new Uint32Array(vertexCount + 1); // counts, then where each bucket's next pair goes
  eachPair((lower) => end[lower + 1]++);
  for (let v = 0; v < vertexCount; v++) end[v + 1] += end[v];
  const upper = new Uint32Array(count);
  const pair = new Uint32Array(count);
  eachPair((lower, high, k) => {
    const at = end[lower]++;
    upper[at] = high;
    pair[at] = k;
  });
  return { upper, pair, end };
}

// Segments [0, n) of out (pairs of outputs), each repeat of an earlier one in either direction
// dropped in place; returns how many are left. In lower-end order an upper end already met by the
// same lower end is a repeat (`met` keeps, for each upper end, the last lower end that met it).
function keepFirstSegments(out, n, outputs) {
  const { upper, pair, end } = byLowerEnd(n, outputs, (visit) => {
    for (let k = 0; k < n; k++) {
      const a = out[2 * k];
      const b = out[2 * k + 1];
      visit(a < b ? a : b, a < b ? b : a, k);
    }
  });
  const met = new Int32Array(outputs).fill(-1);
  const repeat = new Uint8Array(n);
  for (let v = 0, q = 0; v < outputs; v++)
    for (; q < end[v]; q++) {
      if (met[upper[q]] === v) repeat[pair[q]] = 1;
      else met[upper[q]] = v;
    }
  let kept = 0;
  for (let k = 0; k < n; k++) if (!repeat[k]) out[2 * kept] = out[2 * k], out[2 * kept + 1] = out[2 * k + 1], kept++;
  return kept;
}

/**
 * The edges used by exactly one triangle of a mesh (indices null: a soup of vertexCount vertices),
 * as pairs of vertex indices, lower first, in the order of the triangles: the cracks a weld should
 * close. A triangle's edges are its corners 0-1, 1-2 and 2-0; an edge used once in either
 * direction is open. As `who` calls it, for its messages.
 */
export function boundaryEdgesAs(who, indices, vertexCount) {
  if (!Number.isSafeInteger(vertexCount) || vertexCount < 0) {
    throw failure(refusal(vertexCount, 'number'), who, `vertexCount must be an integer >= 0, got ${describe(vertexCount)}`);
  }
  const source = checkIndices(indices, 3, 'triangles', who);
  if (!source && vertexCount % 3 !== 0) {
    throw failure(RangeError, who, `unindexed vertex count ${vertexCount} is not a multiple of 3: triangles need 3 vertices each`);
  }
  const count = source ? source.length : vertexCount; // corners, one edge each: corner j to the next
  // edge k, lower end first, into out at o: corner k to the next corner of its triangle
  const put = (out, o, k) => {
    const next = k % 3 === 2 ? k - 2 : k + 1;
    const a = source ? source[k] : k;
    const b = source ? source[next] : next;
    out[o] = a < b ? a : b;
    out[o + 1] = a < b ? b : a;
  };
  if (!source) { // a soup shares no vertex: every edge is open
    if (2 * count > 2 ** 32 - 1) throw failure(RangeError, who, `a soup of ${vertexCount} vertices has ${count} open edges, more than one array can list`);
    const out = new Uint32Array(2 * count);
    for (let k = 0; k < count; k++) put(out, 2 * k, k);
    return out;
  }
  let span = 0; // the vertices the index reaches: what the arrays below are sized by
  for (let j = 0; j < count; j++) {
    if (source[j] >= vertexCount) throw failure(RangeError, who, `indices[${j}] = ${source[j]} is out of range (${vertexCount} vertices)`);
    if (source[j] >= span) span = source[j] + 1;
  }
  // an index that reaches far past its length (a few vertices of a huge buffer) is numbered by
  // first use, so that those arrays are sized by the vertices it uses
  let id = source;
  if (span > 2 * count + 65536) {
    const number = new Map();
    id = new Uint32Array(count);
    for (let j = 0; j < count; j++) {
      if (!number.has(source[j])) number.set(source[j], number.size);
      id[j] = number.get(source[j]);
    }
    span = number.size;
  }
  // (the ends are ordered by their vertex indices, and bucketed by their numbers)
  const { upper, pair, end } = byLowerEnd(count, span, (visit) => {
    for (let t = 0; t < count; t += 3) {
      const a = source[t];
      const b = source[t + 1];
      const c = source[t + 2];
      const ia = id[t];
      const ib = id[t + 1];
      const ic = id[t + 2];
      visit(a < b ? ia : ib, a < b ? ib : ia, t);
      visit(b < c ? ib : ic, b < c ? ic : ib, t + 1);
      visit(c < a ? ic : ia, c < a ? ia : ic, t + 2);
    }
  });
  // in lower-end order, an edge's first use is open until the same lower end meets its upper end
  // again; the open ones are then listed in the triangles' order
  const met = new Int32Array(span).fill(-1); // upper end -> the last lower end that met it
  const firstAt = new Uint32Array(span); // upper end -> where that first use is
  const state = new Uint8Array(count); // by place in bucket order: 1 a first use, 2 one met again
  let opened = 0;
  for (let v = 0, q = 0; v < span; v++)
    for (; q < end[v]; q++) {
      const high = upper[q];
      if (met[high] !== v) met[high] = v, firstAt[high] = q, state[q] = 1, opened++;
      else if (state[firstAt[high]] === 1) state[firstAt[high]] = 2, opened--;
    }
  const open = new Uint32Array(opened);
  for (let q = 0, o = 0; o < opened; q++) if (state[q] === 1) open[o++] = pair[q];
  open.sort();
  const out = new Uint32Array(2 * opened);
  for (let o = 0; o < opened; o++) put(out, 2 * o, open[o]);
  return out;
}

/** boundaryEdgesAs for meshweld's own entry point. */
export function boundaryEdges(indices, vertexCount) {
  return boundaryEdgesAs('boundaryEdges', indices, vertexCount);
}

// Line segments and points in JS: collapsed segments and repeated ones (either direction) dropped;
// a point cloud keeps each welded point once. Written into one array (no per-element allocation):
// a cloud of a million points spends its time in the weld, not here.
function remapSmall(source, count, corners, remap, outputs, removeDegenerate, removeDuplicates, who) {
  const out = new Uint32Array(count);
  let written = 0;
  let degenerate = 0;
  let duplicates = 0;
  let skippedElements = 0;
  const vertex = (j) => {
    const index = source ? source[j] : j;
    if (index >= remap.length) throw failure(RangeError, who, `indices[${j}] = ${index} is out of range (${remap.length} vertices)`);
    return remap[index];
  };
  if (corners === 1) {
    const kept = new Uint8Array(outputs); // each welded point once
    for (let e = 0; e < count; e++) {
      const v = vertex(e);
      if (v === SKIPPED) skippedElements++;
      else if (kept[v]) duplicates++;
      else kept[v] = 1, out[written++] = v;
    }
  } else {
    for (let e = 0; e < count; e += 2) {
      const a = vertex(e);
      const b = vertex(e + 1);
      if (a === SKIPPED || b === SKIPPED) skippedElements++;
      else if (a === b && removeDegenerate) degenerate++;
      else out[written++] = a, out[written++] = b;
    }
    if (removeDuplicates) {
      const kept = keepFirstSegments(out, written / 2, outputs);
      duplicates = written / 2 - kept;
      written = 2 * kept;
    }
  }
  return { elements: out.slice(0, written), degenerate, duplicates, skippedElements };
}

/**
 * Whether indices of `count` vertices take a Uint16Array: at most 65,535 vertices, since 65535
 * itself is the primitive-restart value of a 16-bit index (WebGL 2 always restarts there, and
 * three's setIndex and glTF leave it free).
 */
export const fitsUint16 = (count) => count <= 65535;

/** The smallest index array for `count` vertices: Uint16 when they fit (fitsUint16), else Uint32. */
export function indexArray(elements, count) {
  return fitsUint16(count) ? Uint16Array.from(elements) : elements;
}

/**
 * weldMesh as called by `who` (weldMesh, or weldGeometry for its messages). Returns the result
 * of weldMesh, less what a caller that compacts its own arrays says it has no use for:
 * `positions: false` leaves result.positions null, `compact: false` leaves result.attributes
 * empty (the attributes still decide the matches), `remap: false` leaves result.remap null for
 * triangles (the index is all the caller needs); `gather(first, remap)` is called with the first
 * input vertex of each output and the remap (views into the module's memory, valid during the
 * call: what a caller gathers its own arrays through), and what it returns is result.gathered;
 * `number` names the vertices in errors by the caller's own numbering (number[i] for vertex i).
 */
export function weldMeshAs(who, positions, indices, options, element = 'vertex', { positions: keepPositions = true, compact = true, gather = null, remap: keepRemap = true, number = null } = {}) {
  core();
  const o = checkOptions(options, who, MESH_OPTIONS);
  const radius = radiusOption(o, who, { relative: true });
  const mode = weldMode(o, who);
  const stride = strideOption(o.stride, mode.dim, who);
  const normalized = boolean(o.normalized, 'normalized', false, who);
  const nonFinite = nonFiniteOption(o.nonFinite, who);
  const removeDegenerate = boolean(o.removeDegenerate, 'removeDegenerate', true, who);
  const removeDuplicates = boolean(o.removeDuplicates, 'removeDuplicates', false, who);
  const primitive = choice(o.primitive, 'primitive', primitives, 'triangles', who);
  const corners = CORNERS[primitive];
  const source = checkIndices(indices, corners, primitive, who);
  const attributesIn = attributesOutsideModule(o.attributes);
  return withFrame((frame) => {
    const staged = stagePoints(frame, positions, { stride, normalized, who, name: 'positions', element });
    const vertexCount = staged.count;
    if (!source && vertexCount % corners !== 0) {
      throw failure(RangeError, who, `unindexed vertex count ${vertexCount} is not a multiple of ${corners}: ${primitive} need ${corners} vertices each (primitive: 'points' or 'lines' for other geometry)`);
    }
    const attributes = checkAttributes(attributesIn, vertexCount, who);
    const tolerances = checkTolerances(o.tolerances, attributes, who);
    const r = resolveRadius(radius, staged, mode.dim);
    const deciding = tolerances && Object.entries(tolerances).map(([name, tolerance]) => {
      const { array, itemSize, normalized: n } = attributes[name];
      const compared = comparedValues(array, itemSize, n === true, tolerance);
      return { name, itemSize: compared.itemSize, tolerance, pointer: frame.copyIn(compared.floats) };
    });
    const attributeNames = compact ? Object.keys(attributes) : [];
    const wantsFirst = attributeNames.length > 0 || gather !== null;
    const welded = weldStaged(frame, staged, mode, r, who, { nonFinite, attributes: deciding, element, number, positions: keepPositions, remap: keepRemap || primitive !== 'triangles', first: wantsFirst });
    const count = source ? source.length : vertexCount;
    const remapped = primitive === 'triangles'
      ? remapTriangles(frame, source, count, welded.remap, welded.remapPointer, vertexCount, welded.count, removeDegenerate, removeDuplicates, who)
      : remapSmall(source, count, corners, welded.remap, welded.count, removeDegenerate, removeDuplicates, who);
    // each attribute takes the value of the kept vertex, the first of its cluster: read through a
    // view of the frame (made after the frame's last allocation, which may move the memory)
    const compacted = {};
    let first = null;
    if (wantsFirst) {
      // written by the weld; else the remap still in the frame: the core's pass; else (non-finite
      // points left out) in JS
      const pointer = welded.firstPointer ?? (welded.remapPointer === null ? null
        : firstOfEachIn(frame, welded.remapPointer, vertexCount, welded.count));
      first = pointer === null ? firstOfEach(welded.remap, welded.count) : view(Uint32Array, pointer, welded.count);
    }
    for (const name of attributeNames) {
      const { array, itemSize, normalized: n } = attributes[name];
      compacted[name] = { array: gatherItems(array, itemSize, first), itemSize, ...(n === undefined ? {} : { normalized: n }) };
    }
    const elementCount = remapped.elements.length / corners;
    return {
      positions: welded.positions,
      indices: primitive === 'points' && !source ? null : primitive === 'triangles' ? remapped.elements : indexArray(remapped.elements, welded.count),
      remap: welded.remap,
      vertexCount: welded.count,
      primitive,
      elementCount,
      triangleCount: primitive === 'triangles' ? elementCount : 0,
      degenerateRemoved: remapped.degenerate,
      duplicatesRemoved: remapped.duplicates,
      skipped: welded.skipped,
      skippedElements: remapped.skippedElements,
      attributes: compacted,
      method: welded.method,
      radius: r,
      // only for a caller that asked: weldMesh's own result has the documented fields alone
      ...(gather === null ? {} : { gathered: gather(first, welded.remap ?? view(Uint32Array, welded.remapPointer, vertexCount)) }),
    };
  });
}

/**
 * Welds a mesh: the positions (indexed or unindexed when indices is null), then the elements
 * follow ('triangles' by default, 'lines' or 'points' with `primitive`), collapsed ones are
 * removed (unless removeDegenerate is false), repeated ones too with removeDuplicates, and
 * every attribute given is compacted to the kept vertices.
 */
export function weldMesh(positions, indices, options) {
  return weldMeshAs('weldMesh', positions, indices, options);
}
