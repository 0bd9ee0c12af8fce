// meshweld/three: weld a three.js BufferGeometry into a new indexed one. `three` is an optional
// peer dependency: only this entry point imports it.
import { Box3, BufferAttribute, BufferGeometry, DataUtils, Float16BufferAttribute } from 'three';
import { ready, weld } from './index.js';
import { gatherItems } from './gather.js';
import { boolean, checkOptions, choice, describe, distance, failure } from './check.js';
import { boundaryEdgesAs, primitives, weldMeshAs } from './mesh.js';
import { SKIPPED, diagonal, nonFiniteOption, relativeToRadius } from './engine.js';
import { isIntegerArray, normalizer } from './points.js';

export { ready };

const WHO = 'weldGeometry';

// An attribute (plain or interleaved, normalized or not, half floats) as packed float values, the
// values its shader sees: what tolerances compare.
function readFloats(attribute) {
  const { itemSize, count, normalized } = attribute;
  const interleaved = attribute.isInterleavedBufferAttribute === true;
  const source = interleaved ? attribute.data.array : attribute.array;
  const stride = interleaved ? attribute.data.stride : itemSize;
  const offset = interleaved ? attribute.offset : 0;
  if (!interleaved && !normalized && source instanceof Float32Array && source.length === count * itemSize) return source;
  const out = new Float32Array(count * itemSize);
  const scale = attribute.isFloat16BufferAttribute === true ? DataUtils.fromHalfFloat // (its Uint16Array holds half-float bits)
    : normalized && isIntegerArray(source) ? normalizer(source) : (v) => v;
  for (let i = 0; i < count; i++)
    for (let k = 0; k < itemSize; k++) {
      const v = source[i * stride + offset + k];
      out[i * itemSize + k] = scale(v);
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
    throw failure(TypeError, WHO, `attribute '${name}' must be a BufferAttribute, got ${describe(attribute)}`);
  }
  const raw = readRaw(attribute);
  if (raw.length < attribute.count * attribute.itemSize) {
    throw failure(RangeError, WHO, `attribute '${name}' has ${raw.length} values, fewer than ${attribute.count} x ${attribute.itemSize}`);
  }
  return attributeLike(attribute, gatherItems(raw, attribute.itemSize, first));
}

// result.computeBoundingBox(), in one plain loop over packed float xyz positions (three's own
// method reads every vertex through the attribute's accessors); three's method for anything else,
// and for NaN positions (its message).
function computeBoundingBox(result) {
  const box = plainBox(result);
  if (box) result.boundingBox = box;
  else result.computeBoundingBox();
}

// The box of plain packed float xyz positions without morph targets, as three's Box3 makes it
// (-0 below +0); null for other positions or a NaN.
function plainBox(result) {
  const position = result.attributes.position;
  const array = position.array;
  if (result.morphAttributes.position || position.isInterleavedBufferAttribute === true || position.itemSize !== 3 ||
    position.normalized === true || !(array instanceof Float32Array) || array.length !== position.count * 3) return null;
  let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
  for (let i = 0; i < array.length; i += 3) {
    const x = array[i], y = array[i + 1], z = array[i + 2];
    x0 = Math.min(x0, x), y0 = Math.min(y0, y), z0 = Math.min(z0, z);
    x1 = Math.max(x1, x), y1 = Math.max(y1, y), z1 = Math.max(z1, z);
  }
  if (Number.isNaN(x0 + y0 + z0 + x1 + y1 + z1)) return null;
  const box = new Box3();
  box.min.set(x0, y0, z0);
  box.max.set(x1, y1, z1);
  return box;
}

// A new attribute over array with attribute's item size, normalization, name, usage and GPU type.
function attributeLike(attribute, array) {
  const Type = attribute.isFloat16BufferAttribute === true ? Float16BufferAttribute : BufferAttribute;
  const out = new Type(array, attribute.itemSize, attribute.normalized);
  out.name = attribute.name;
  if (attribute.usage !== undefined) out.usage = attribute.usage;
  if (attribute.gpuType !== undefined) out.gpuType = attribute.gpuType;
  return out;
}

const OPTIONS = ['radius', 'relativeRadius', 'attributes', 'removeDegenerate', 'primitive', 'nonFinite'];

function parseGeometryOptions(options) {
  const o = checkOptions(options, WHO, OPTIONS);
  const { attributes = 'all' } = o;
  if (attributes !== 'all' && attributes !== 'position' && (attributes === null || typeof attributes !== 'object' || Array.isArray(attributes))) {
    throw failure(TypeError, WHO,
      `attributes must be 'all', 'position' or an object of attribute name to tolerance, got ${describe(attributes)}`);
  }
  return {
    radius: o.radius === undefined && o.relativeRadius === undefined ? { radius: 1e-4 } : { radius: o.radius, relativeRadius: o.relativeRadius },
    attributes,
    implicit: o.attributes === undefined,
    removeDegenerate: boolean(o.removeDegenerate, 'removeDegenerate', true, WHO),
    primitive: choice(o.primitive, 'primitive', primitives, 'triangles', WHO),
    nonFinite: nonFiniteOption(o.nonFinite, WHO),
  };
}

const CORNERS = { triangles: 3, lines: 2, points: 1 };

// The geometry's index as an unsigned typed array of index.count entries (other arrays converted),
// or null when it has none.
function indicesOf(geometry) {
  const index = geometry.getIndex();
  if (!index) return null;
  const array = index.array;
  if (array instanceof Uint16Array || array instanceof Uint32Array || array instanceof Uint8Array) {
    return array.length === index.count ? array : array.subarray(0, index.count);
  }
  // any other array (Int32Array, Float32Array, plain numbers): its values as they are, which the
  // weld checks (a negative or fractional one is refused by name, not wrapped or truncated)
  return Array.from({ length: index.count }, (_, j) => array[j]);
}
const percent = (part, whole) => `${whole ? ((100 * part) / whole).toFixed(1) : '0.0'}%`;
const thousands = (n) => n.toLocaleString('en-US');

// How many of triangles [from, to) the weld kept: none of their corners skipped, and not collapsed
// unless collapsed ones are kept.
function keptTriangles(remap, indices, from, to, removeDegenerate) {
  let kept = 0;
  for (let j = 3 * from; j < 3 * to; j += 3) {
    const u = remap[indices ? indices[j] : j], v = remap[indices ? indices[j + 1] : j + 1], w = remap[indices ? indices[j + 2] : j + 2];
    if (u !== SKIPPED && v !== SKIPPED && w !== SKIPPED && !(removeDegenerate && (u === v || v === w || u === w))) kept++;
  }
  return kept;
}

// The groups of the welded geometry, in index units: each shrinks by the elements the weld removed
// before and inside it (collapsed, or holding a skipped vertex; a cloud's repeated points). One
// pass over the elements up to the last group's end, counting what is kept, with nothing
// allocated per element.
function shrinkGroups(groups, remap, indices, count, corners, removeDegenerate) {
  const elements = Math.floor(count / corners);
  const ends = groups.map((group) => {
    const start = Math.min(Math.max(Math.floor(group.start / corners), 0), elements); // (a negative start: 0)
    return [start, Math.max(Math.min(Math.floor((group.start + group.count) / corners), elements), start)];
  });
  const bounds = [...new Set(ends.flat().filter((e) => !Number.isNaN(e)))].sort((a, b) => a - b);
  const keptBefore = new Map(); // element -> elements kept before it
  const seen = corners === 1 ? new Uint8Array(remap.length) : null;
  let kept = 0;
  for (let e = 0, b = 0; b < bounds.length; b++) {
    // the elements up to the next bound, counted in a loop per primitive
    const stop = bounds[b];
    if (corners === 3) kept += keptTriangles(remap, indices, e, stop, removeDegenerate);
    else {
      for (let j = e * corners; j < stop * corners; j += corners) {
        const u = remap[indices ? indices[j] : j];
        if (u === SKIPPED) continue;
        if (corners === 1) {
          if (!seen[u]) seen[u] = 1, kept++; // a cloud keeps each point once
        } else {
          const v = remap[indices ? indices[j + 1] : j + 1];
          if (v !== SKIPPED && !(removeDegenerate && u === v)) kept++;
        }
      }
    }
    keptBefore.set(stop, kept);
    e = stop;
  }
  const before = (e) => (Number.isNaN(e) ? NaN : keptBefore.get(e)) * corners;
  return groups.map((group, k) => ({ start: before(ends[k][0]), count: before(ends[k][1]) - before(ends[k][0]), materialIndex: group.materialIndex }));
}

/**
 * Welds a BufferGeometry, indexed or not, into a new indexed BufferGeometry; the input is left
 * untouched. Vertices merge when their positions are within `radius` (or `relativeRadius` times
 * the bounding-box diagonal) and every attribute named by `attributes` is within its tolerance
 * ('all': every attribute and morph attribute within the radius; 'position': positions alone; or
 * { normal: 0.05, uv: 1e-4 }). Every attribute, morph attribute, group, name and userData is
 * carried; collapsed triangles (or segments) are removed unless removeDegenerate is false, and
 * groups are shrunk to match. `primitive: 'lines'` welds LineSegments, 'points' a point cloud.
 * The statistics of the weld are in the result's userData.meshweld.
 */
export function weldGeometry(geometry, options) {
  if (!geometry || geometry.isBufferGeometry !== true) {
    throw failure(TypeError, WHO, `geometry must be a three.js BufferGeometry, got ${describe(geometry)}`);
  }
  const { radius, attributes: match, implicit, removeDegenerate, primitive, nonFinite } = parseGeometryOptions(options);
  const position = geometry.getAttribute('position');
  if (!position) throw failure(RangeError, WHO, 'the geometry has no position attribute');
  const dim = position.itemSize;
  if (dim !== 2 && dim !== 3) throw failure(RangeError, WHO, `the position attribute's itemSize must be 2 or 3, got ${describe(dim)}`);
  const vertexCount = position.count;
  const names = Object.keys(geometry.attributes);
  for (const name of names) {
    if (geometry.attributes[name].count !== vertexCount) {
      throw failure(RangeError, WHO,
        `attribute '${name}' has ${geometry.attributes[name].count} items, but position has ${vertexCount}`);
    }
  }
  for (const [name, targets] of Object.entries(geometry.morphAttributes)) {
    targets.forEach((target, k) => {
      if (typeof target?.count === 'number' && target.count !== vertexCount) {
        throw failure(RangeError, WHO, `morph attribute '${name}[${k}]' has ${target.count} items, but position has ${vertexCount}`);
      }
    });
  }

  // which attributes decide a match, and their tolerances
  const deciding = {};
  const tolerances = {};
  const decide = (key, attribute, tolerance) => {
    deciding[key] = { array: readFloats(attribute), itemSize: attribute.itemSize };
    tolerances[key] = tolerance;
  };
  const tolerance = radius.radius ?? 0; // with relativeRadius, set once the radius is known below
  if (match === 'all') {
    for (const name of names) if (name !== 'position') decide(name, geometry.attributes[name], tolerance);
    for (const [name, targets] of Object.entries(geometry.morphAttributes))
      targets.forEach((target, k) => decide(`morph ${name}[${k}]`, target, tolerance));
  } else if (match !== 'position') {
    for (const [name, t] of Object.entries(match)) {
      if (name === 'position') {
        throw failure(RangeError, WHO, "attributes: positions are matched within radius; remove 'position'");
      }
      if (!geometry.attributes[name]) {
        throw failure(RangeError, WHO, `attributes names '${name}', which the geometry does not have (it has ${names.join(', ')})`);
      }
      decide(name, geometry.attributes[name], t);
    }
  }
  const positions = readFloats(position);
  if (match === 'all' && radius.relativeRadius !== undefined) {
    // 'all' compares every attribute within the radius itself: resolve it first
    distance(radius.relativeRadius, 'relativeRadius', WHO);
    const r = relativeToRadius(radius.relativeRadius, diagonal(positions, vertexCount, dim, dim));
    for (const key of Object.keys(tolerances)) tolerances[key] = r;
  }

  const index = geometry.getIndex();
  const indices = indicesOf(geometry);
  // plain float positions ('keep' rebuilds non-finite ones from numbers, which may not keep a NaN's bits)
  const kept = position.isInterleavedBufferAttribute !== true && position.array instanceof Float32Array && position.normalized !== true &&
    position.array.length === vertexCount * dim && nonFinite !== 'keep';
  const welded = weldMeshAs(WHO, positions, indices, {
    dim,
    ...radius,
    attributes: deciding,
    tolerances,
    removeDegenerate,
    primitive,
    nonFinite,
  }, 'vertex', {
    positions: kept,
    compact: false, // the attributes are compacted here, from their raw values, through the first inputs
    remap: false, // the groups are shrunk here, through the remap still in the module's memory
    gather: (first, remap) => ({
      // the weld's kept positions are the first inputs' bits: no second pass over the positions
      attributes: names.map((name) => (name === 'position' && kept ? null : compactAttribute(geometry.attributes[name], first, name))),
      morphs: Object.entries(geometry.morphAttributes).map(([name, targets]) =>
        targets.map((target, k) => compactAttribute(target, first, `morph ${name}[${k}]`))),
      groups: geometry.groups.length > 0
        ? shrinkGroups(geometry.groups, remap, indices, indices ? indices.length : vertexCount, CORNERS[primitive], removeDegenerate)
        : [],
    }),
  });

  const result = new BufferGeometry();
  result.name = geometry.name;
  const { attributes: compacted, morphs } = welded.gathered;
  names.forEach((name, k) => result.setAttribute(name, compacted[k] ?? attributeLike(position, welded.positions)));
  Object.keys(geometry.morphAttributes).forEach((name, k) => (result.morphAttributes[name] = morphs[k]));
  result.morphTargetsRelative = geometry.morphTargetsRelative;
  if (welded.indices) result.setIndex(new BufferAttribute(welded.indices, 1));

  for (const group of welded.gathered.groups) result.addGroup(group.start, group.count, group.materialIndex);

  // userData: a new object holding the input's values (shared, as three's clone() shares userData
  // itself; a deep copy would turn a Vector3 into a plain object), so that the statistics written
  // below stay out of the input's
  result.userData = { ...geometry.userData };
  const compared = Object.keys(tolerances);
  const stats = {
    inputVertices: vertexCount,
    vertices: welded.vertexCount,
    merged: vertexCount - welded.skipped - welded.vertexCount,
    mergedPercent: Number(percent(vertexCount - welded.skipped - welded.vertexCount, vertexCount).slice(0, -1)),
    primitive,
    elements: welded.elementCount,
    degenerateRemoved: welded.degenerateRemoved,
    skippedVertices: welded.skipped,
    skippedElements: welded.skippedElements,
    radius: welded.radius,
    method: welded.method,
    compared,
  };
  // an implicit 'all' on a soup that kept most vertices apart which positions alone would merge
  // (an STL's flat face normals): say so, with the option that welds it. An indexed geometry
  // already shares what its author meant to share: its hard edges are not a surprise.
  if (implicit && !index && compared.length > 0 && stats.merged < 0.1 * vertexCount) {
    const byPosition = weld(positions, { dim, radius: welded.radius, nonFinite: nonFinite === 'error' ? 'skip' : nonFinite });
    const alone = vertexCount - byPosition.skipped - byPosition.count;
    if (alone >= 0.25 * vertexCount && alone >= 2 * stats.merged) {
      stats.hint =
        `${percent(stats.merged, vertexCount)} of the vertices merged (${thousands(vertexCount)} -> ${thousands(welded.vertexCount)}), ` +
        `because the attributes ${compared.join(', ')} differ between vertices at the same position ` +
        `(flat face normals, as STL files have). By position alone ${percent(alone, vertexCount)} would merge: ` +
        "pass attributes: 'position' (then computeVertexNormals() for smooth normals), " +
        "or attributes: 'all' to keep this result without this warning";
      console.warn(`meshweld: weldGeometry: ${stats.hint}`);
    }
  }
  result.userData.meshweld = stats;
  if (geometry.boundingBox !== null) computeBoundingBox(result);
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
    throw failure(TypeError, 'boundaryEdges', `geometry must be a three.js BufferGeometry, got ${describe(geometry)}`);
  }
  const position = geometry.getAttribute('position');
  if (!position) throw failure(RangeError, 'boundaryEdges', 'the geometry has no position attribute');
  return boundaryEdgesAs('boundaryEdges', indicesOf(geometry), position.count);
}
