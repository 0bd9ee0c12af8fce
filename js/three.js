// meshweld/three: weld a three.js BufferGeometry into a new indexed one. `three` is an optional
// peer dependency: only this entry point imports it.
import { BufferAttribute, BufferGeometry } from 'three';
import { ready, weldMesh } from './index.js';
import { describe, firstOfEach, gatherItems } from './gather.js';

export { ready };

const OPTIONS = new Set(['radius', 'attributes', 'removeDegenerate']);

// The largest magnitude of each normalized integer type, the divisor that maps it to [-1, 1].
function normalizer(array) {
  if (array instanceof Uint8Array || array instanceof Uint8ClampedArray) return [255, 0];
  if (array instanceof Int8Array) return [127, -1];
  if (array instanceof Uint16Array) return [65535, 0];
  if (array instanceof Int16Array) return [32767, -1];
  if (array instanceof Uint32Array) return [4294967295, 0];
  if (array instanceof Int32Array) return [2147483647, -1];
  return [1, -Infinity];
}

// An attribute (plain or interleaved, normalized or not) as packed float values, the values its
// shader sees: what tolerances compare.
function readFloats(attribute) {
  const { itemSize, count, normalized } = attribute;
  const interleaved = attribute.isInterleavedBufferAttribute === true;
  const source = interleaved ? attribute.data.array : attribute.array;
  const stride = interleaved ? attribute.data.stride : itemSize;
  const offset = interleaved ? attribute.offset : 0;
  if (!interleaved && !normalized && source instanceof Float32Array && source.length === count * itemSize) return source;
  const out = new Float32Array(count * itemSize);
  const [scale, low] = normalized ? normalizer(source) : [1, -Infinity];
  for (let i = 0; i < count; i++)
    for (let k = 0; k < itemSize; k++) {
      const v = source[i * stride + offset + k];
      out[i * itemSize + k] = normalized ? Math.max(v / scale, low) : v;
    }
  return out;
}

// The raw values of an attribute (plain or interleaved) as a packed array of its own type.
function readRaw(attribute) {
  if (attribute.isInterleavedBufferAttribute !== true) return attribute.array;
  const { itemSize, count, offset } = attribute;
  const { array, stride } = attribute.data;
  const out = new array.constructor(count * itemSize);
  for (let i = 0; i < count; i++)
    for (let k = 0; k < itemSize; k++) out[i * itemSize + k] = array[i * stride + offset + k];
  return out;
}

// A new attribute holding the kept vertices' values, same type, item size and normalization.
function compactAttribute(attribute, first, name) {
  if (!attribute || typeof attribute.itemSize !== 'number' || typeof attribute.count !== 'number') {
    throw new TypeError(`meshweld: weldGeometry attribute '${name}' is not a BufferAttribute: ${describe(attribute)}`);
  }
  const raw = readRaw(attribute);
  if (raw.length < attribute.count * attribute.itemSize) {
    throw new RangeError(`meshweld: weldGeometry attribute '${name}' has ${raw.length} values, fewer than ${attribute.count} x ${attribute.itemSize}`);
  }
  const out = new BufferAttribute(gatherItems(raw, attribute.itemSize, first), attribute.itemSize, attribute.normalized);
  out.name = attribute.name;
  if (attribute.usage !== undefined) out.usage = attribute.usage;
  if (attribute.gpuType !== undefined) out.gpuType = attribute.gpuType;
  return out;
}

function parseGeometryOptions(options) {
  if (options === undefined) options = {};
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`meshweld: weldGeometry options must be an object, got ${describe(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!OPTIONS.has(key)) {
      throw new RangeError(`meshweld: weldGeometry has no option '${key}'; it takes radius, attributes and removeDegenerate`);
    }
  }
  const { radius = 1e-4, attributes = 'all', removeDegenerate = true } = options;
  if (typeof removeDegenerate !== 'boolean') {
    throw new TypeError(`meshweld: weldGeometry removeDegenerate must be a boolean, got ${describe(removeDegenerate)}`);
  }
  if (attributes !== 'all' && attributes !== 'position' && (attributes === null || typeof attributes !== 'object' || Array.isArray(attributes))) {
    throw new TypeError(
      `meshweld: weldGeometry attributes must be 'all', 'position' or an object of attribute name to tolerance, got ${describe(attributes)}`,
    );
  }
  return { radius, attributes, removeDegenerate };
}

/**
 * Welds a BufferGeometry, indexed or not, into a new indexed BufferGeometry; the input is left
 * untouched. Vertices merge when their positions are within `radius` and every attribute named
 * by `attributes` is within its tolerance ('all': every attribute and morph attribute within
 * `radius`; 'position': positions alone; or { normal: 0.05, uv: 1e-4 }). Every attribute, morph
 * attribute, group, name and userData is carried; triangles with two or three corners welded
 * together are removed unless removeDegenerate is false, and groups are shrunk to match.
 */
export function weldGeometry(geometry, options) {
  if (!geometry || geometry.isBufferGeometry !== true) {
    throw new TypeError(`meshweld: weldGeometry needs a three.js BufferGeometry, got ${describe(geometry)}`);
  }
  const { radius, attributes: match, removeDegenerate } = parseGeometryOptions(options);
  const position = geometry.getAttribute('position');
  if (!position) throw new RangeError('meshweld: weldGeometry: the geometry has no position attribute');
  const dim = position.itemSize;
  if (dim !== 2 && dim !== 3) {
    throw new RangeError(`meshweld: weldGeometry: position itemSize must be 2 or 3, got ${dim}`);
  }
  const vertexCount = position.count;
  const names = Object.keys(geometry.attributes);
  for (const name of names) {
    if (geometry.attributes[name].count !== vertexCount) {
      throw new RangeError(
        `meshweld: weldGeometry attribute '${name}' has ${geometry.attributes[name].count} items, but position has ${vertexCount}`,
      );
    }
  }

  // which attributes decide a match, and their tolerances
  const deciding = {};
  const tolerances = {};
  const decide = (key, attribute, tolerance) => {
    deciding[key] = { array: readFloats(attribute), itemSize: attribute.itemSize };
    tolerances[key] = tolerance;
  };
  if (match === 'all') {
    for (const name of names) if (name !== 'position') decide(name, geometry.attributes[name], radius);
    for (const [name, targets] of Object.entries(geometry.morphAttributes))
      targets.forEach((target, k) => decide(`morph ${name}[${k}]`, target, radius));
  } else if (match !== 'position') {
    for (const [name, tolerance] of Object.entries(match)) {
      if (name === 'position') {
        throw new RangeError("meshweld: weldGeometry attributes: positions are matched within radius; remove 'position'");
      }
      if (!geometry.attributes[name]) {
        throw new RangeError(`meshweld: weldGeometry attributes names '${name}', which the geometry does not have (it has ${names.join(', ')})`);
      }
      decide(name, geometry.attributes[name], tolerance);
    }
  }

  const index = geometry.getIndex();
  let indices = null;
  if (index) {
    indices = index.array instanceof Uint16Array || index.array instanceof Uint32Array ? index.array : Uint32Array.from(index.array);
    if (indices.length !== index.count) indices = indices.subarray(0, index.count);
  }
  const welded = weldMesh(readFloats(position), indices, {
    dim,
    radius,
    attributes: deciding,
    tolerances,
    removeDegenerate,
  });

  const first = firstOfEach(welded.remap, welded.vertexCount);
  const result = new BufferGeometry();
  result.name = geometry.name;
  for (const name of names) result.setAttribute(name, compactAttribute(geometry.attributes[name], first, name));
  for (const [name, targets] of Object.entries(geometry.morphAttributes))
    result.morphAttributes[name] = targets.map((target, k) => compactAttribute(target, first, `morph ${name}[${k}]`));
  result.morphTargetsRelative = geometry.morphTargetsRelative;
  const wide = welded.indices;
  result.setIndex(new BufferAttribute(welded.vertexCount <= 65536 && !(wide instanceof Uint16Array) ? Uint16Array.from(wide) : wide, 1));

  // groups, in index units, shrink by the triangles removed before and inside them
  if (geometry.groups.length > 0) {
    const triangles = (indices ? indices.length : vertexCount) / 3;
    const keptBefore = new Uint32Array(triangles + 1);
    const remap = welded.remap;
    for (let t = 0; t < triangles; t++) {
      const a = remap[indices ? indices[3 * t] : 3 * t];
      const b = remap[indices ? indices[3 * t + 1] : 3 * t + 1];
      const c = remap[indices ? indices[3 * t + 2] : 3 * t + 2];
      keptBefore[t + 1] = keptBefore[t] + (removeDegenerate && (a === b || b === c || a === c) ? 0 : 1);
    }
    for (const group of geometry.groups) {
      const start = Math.min(Math.floor(group.start / 3), triangles);
      const end = Math.min(Math.floor((group.start + group.count) / 3), triangles);
      const begin = keptBefore[start] * 3;
      result.addGroup(begin, keptBefore[Math.max(end, start)] * 3 - begin, group.materialIndex);
    }
  }

  try {
    result.userData = structuredClone(geometry.userData);
  } catch {
    result.userData = { ...geometry.userData }; // functions or other uncloneable values: a shallow copy
  }
  if (geometry.boundingBox !== null) result.computeBoundingBox();
  if (geometry.boundingSphere !== null) result.computeBoundingSphere();
  return result;
}

/**
 * The open edges of a BufferGeometry, indexed or not: the edges used by exactly one triangle,
 * as pairs of vertex indices (so an unwelded soup has every edge open). Its length / 2 is the
 * number of open edges; 0 means the surface is closed.
 */
export function boundaryEdges(geometry) {
  if (!geometry || geometry.isBufferGeometry !== true) {
    throw new TypeError(`meshweld: boundaryEdges needs a three.js BufferGeometry, got ${describe(geometry)}`);
  }
  const index = geometry.getIndex();
  const n = geometry.getAttribute('position')?.count ?? 0;
  const count = index ? index.count : n;
  const corners = index ? index.array : null;
  const edges = new Map(); // a * n + b (a < b) -> uses, exact below 2^53: n up to 9e7 vertices
  for (let t = 0; t + 2 < count; t += 3)
    for (let e = 0; e < 3; e++) {
      const a = corners ? corners[t + e] : t + e;
      const b = corners ? corners[t + ((e + 1) % 3)] : t + ((e + 1) % 3);
      const key = a < b ? a * n + b : b * n + a;
      edges.set(key, (edges.get(key) ?? 0) + 1);
    }
  const open = [];
  for (const [key, uses] of edges) if (uses === 1) open.push(Math.floor(key / n), key % n);
  return Uint32Array.from(open);
}
