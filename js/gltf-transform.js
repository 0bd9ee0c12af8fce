// meshweld/gltf-transform: a glTF-Transform transform that welds every primitive of a document with
// a guaranteed tolerance. `@gltf-transform/core` is an optional peer dependency: only this entry
// point imports it.
import { Document, Primitive, PropertyType, getBounds } from '@gltf-transform/core';
import { ready, weldMesh } from './index.js';
import { describe, firstOfEach } from './gather.js';

export { ready };

const NAME = 'meshweld';
const OPTIONS = ['radius', 'relative', 'relativeTo', 'tolerances', 'removeDegenerate', 'removeDuplicates', 'method'];
const METHODS = ['auto', 'naive', 'grid-r', 'grid-2r', 'bcc', 'kdtree', 'grid'];
const { POINTS, LINES, LINE_LOOP, LINE_STRIP, TRIANGLES, TRIANGLE_STRIP, TRIANGLE_FAN } = Primitive.Mode;
const MODE_NAMES = ['POINTS', 'LINES', 'LINE_LOOP', 'LINE_STRIP', 'TRIANGLES', 'TRIANGLE_STRIP', 'TRIANGLE_FAN'];

/** The tolerances used where `tolerances` names no value, by glTF semantic (0: equal values only). */
export const DEFAULT_TOLERANCES = Object.freeze({
  NORMAL: 0.05, // Euclidean distance of unit vectors: about 2.9 degrees
  TANGENT: 0.05,
  TEXCOORD: 1e-4, // every TEXCOORD_n: a tenth of a texel of a 1024 texture
  COLOR: 1e-3, // every COLOR_n, as the shader sees it (0..1): a quarter of an 8-bit step
  JOINTS: 0,
  WEIGHTS: 0,
});
/** The radius when neither `radius` nor `relative` is given: this fraction of the diagonal. */
export const DEFAULT_RELATIVE = 1e-4;

const SEMANTIC = /^(NORMAL|TANGENT|(TEXCOORD|COLOR|JOINTS|WEIGHTS)(_\d+)?|_.+)$/;

function fail(who, message, Kind = RangeError) {
  return new Kind(`meshweld: ${who}: ${message}`);
}

function number(who, name, value) {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw fail(who, `${name} must be a finite number >= 0, got ${describe(value)}`, typeof value === 'number' ? RangeError : TypeError);
  }
  return value;
}

// Checks the options and fills in the defaults.
function parseOptions(options, who) {
  if (options === undefined) options = {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw fail(who, `options must be an object, got ${describe(options)}`, TypeError);
  }
  for (const key of Object.keys(options)) {
    if (!OPTIONS.includes(key)) throw fail(who, `unknown option '${key}'; the options are ${OPTIONS.join(', ')}`);
  }
  const o = {
    radius: undefined,
    relative: undefined,
    relativeTo: options.relativeTo ?? 'primitive',
    tolerances: {},
    removeDegenerate: options.removeDegenerate ?? true,
    removeDuplicates: options.removeDuplicates ?? false,
    method: options.method ?? 'auto',
  };
  if (options.radius !== undefined && options.relative !== undefined) {
    throw fail(who, `give radius (absolute) or relative (a fraction of the bounding-box diagonal), not both`);
  }
  if (options.radius !== undefined) o.radius = number(who, 'radius', options.radius);
  else o.relative = options.relative === undefined ? DEFAULT_RELATIVE : number(who, 'relative', options.relative);
  if (o.relativeTo !== 'primitive' && o.relativeTo !== 'scene') {
    throw fail(who, `relativeTo must be 'primitive' or 'scene', got ${describe(o.relativeTo)}`);
  }
  for (const flag of ['removeDegenerate', 'removeDuplicates']) {
    if (typeof o[flag] !== 'boolean') throw fail(who, `${flag} must be a boolean, got ${describe(o[flag])}`, TypeError);
  }
  if (!METHODS.includes(o.method)) {
    throw fail(who, `unknown method ${describe(o.method)}; use one of ${METHODS.join(', ')} ('hex' is 2D only)`);
  }
  const tolerances = options.tolerances ?? {};
  if (tolerances === null || typeof tolerances !== 'object' || Array.isArray(tolerances)) {
    throw fail(who, `tolerances must be an object of glTF semantic to tolerance, got ${describe(tolerances)}`, TypeError);
  }
  for (const [semantic, value] of Object.entries(tolerances)) {
    if (semantic === 'POSITION') throw fail(who, `tolerances: POSITION is welded within radius (or relative); remove it`);
    if (!SEMANTIC.test(semantic)) {
      throw fail(
        who,
        `tolerances: unknown attribute semantic '${semantic}'; use NORMAL, TANGENT, TEXCOORD_n, COLOR_n, JOINTS_n, ` +
          `WEIGHTS_n (or TEXCOORD, COLOR... for every set) or a custom _NAME`,
      );
    }
    if (value !== Infinity) number(who, `tolerances.${semantic}`, value);
    o.tolerances[semantic] = value;
  }
  return o;
}

// The tolerance of an attribute: its own entry, its family's (TEXCOORD for TEXCOORD_1), the default.
function toleranceOf(semantic, tolerances) {
  if (semantic in tolerances) return tolerances[semantic];
  const family = semantic.replace(/_\d+$/, '');
  if (family in tolerances) return tolerances[family];
  return DEFAULT_TOLERANCES[family] ?? 0;
}

// The divisor of each normalized integer type and its lowest value, as glTF decodes it.
function normalizer(array) {
  if (array instanceof Uint8Array) return [255, 0];
  if (array instanceof Int8Array) return [127, -1];
  if (array instanceof Uint16Array) return [65535, 0];
  if (array instanceof Int16Array) return [32767, -1];
  if (array instanceof Uint32Array) return [4294967295, 0];
  return [1, -Infinity];
}

/** The values of the vertices `used` as the shader sees them (normalized integers decoded), float32. */
function shaderValues(accessor, used) {
  const array = accessor.getArray();
  const size = accessor.getElementSize();
  const out = new Float32Array(used.length * size);
  const normalized = accessor.getNormalized();
  const [scale, low] = normalized ? normalizer(array) : [1, -Infinity];
  for (let k = 0; k < used.length; k++)
    for (let c = 0, s = used[k] * size; c < size; c++) {
      const v = array[s + c];
      out[k * size + c] = normalized ? Math.max(v / scale, low) : v;
    }
  return out;
}

/** The raw values of the vertices `keep`, in the accessor's own component type. */
function gatherRaw(accessor, keep) {
  const array = accessor.getArray();
  const size = accessor.getElementSize();
  const out = new array.constructor(keep.length * size);
  for (let k = 0; k < keep.length; k++)
    for (let c = 0, s = keep[k] * size; c < size; c++) out[k * size + c] = array[s + c];
  return out;
}

/** The index list a primitive draws with, as TRIANGLES, LINES or POINTS; or a reason to skip it. */
function drawList(primitive, vertexCount) {
  const mode = primitive.getMode();
  const indices = primitive.getIndices();
  const source = indices ? indices.getArray() : null;
  const n = source ? source.length : vertexCount;
  const at = source ? (i) => source[i] : (i) => i;
  for (let i = 0; source && i < n; i++) {
    if (source[i] >= vertexCount) return { skip: `index ${i} is ${source[i]}, beyond its ${vertexCount} vertices` };
  }
  const list = (length, fill) => {
    const out = new Uint32Array(length);
    fill(out);
    return out;
  };
  switch (mode) {
    case TRIANGLES:
    case LINES:
    case POINTS: {
      const per = mode === TRIANGLES ? 3 : mode === LINES ? 2 : 1;
      if (n % per !== 0) return { skip: `${n} ${source ? 'indices' : 'vertices'} are not a multiple of ${per} for ${MODE_NAMES[mode]}` };
      return { mode, list: list(n, (out) => { for (let i = 0; i < n; i++) out[i] = at(i); }) };
    }
    case TRIANGLE_STRIP:
    case TRIANGLE_FAN: {
      const t = Math.max(n - 2, 0);
      const strip = mode === TRIANGLE_STRIP;
      return {
        mode: TRIANGLES,
        converted: `${MODE_NAMES[mode]} converted to TRIANGLES`,
        list: list(3 * t, (out) => {
          for (let i = 0; i < t; i++) {
            // the corners the glTF specification gives triangle i of a strip or a fan
            out[3 * i] = strip ? at(i) : at(i + 1);
            out[3 * i + 1] = strip ? at(i + 1 + (i % 2)) : at(i + 2);
            out[3 * i + 2] = strip ? at(i + 2 - (i % 2)) : at(0);
          }
        }),
      };
    }
    case LINE_STRIP:
    case LINE_LOOP: {
      const segments = n < 2 ? 0 : mode === LINE_LOOP ? n : n - 1;
      return {
        mode: LINES,
        converted: `${MODE_NAMES[mode]} converted to LINES`,
        list: list(2 * segments, (out) => {
          for (let i = 0; i < segments; i++) {
            out[2 * i] = at(i);
            out[2 * i + 1] = at((i + 1) % n);
          }
        }),
      };
    }
    default:
      return { skip: `unknown mode ${describe(mode)}` };
  }
}

// Largest stretch (spectral norm) of a 4x4 column-major matrix's linear part: power iteration on MᵀM.
function stretch(m) {
  let v = [1, 0.7, 0.3];
  let s = 0;
  for (let it = 0; it < 64; it++) {
    const w = [0, 1, 2].map((r) => m[r] * v[0] + m[4 + r] * v[1] + m[8 + r] * v[2]);
    const u = [0, 1, 2].map((c) => m[4 * c] * w[0] + m[4 * c + 1] * w[1] + m[4 * c + 2] * w[2]);
    const norm = Math.hypot(u[0], u[1], u[2]);
    if (!(norm > 0)) return 0;
    s = Math.sqrt(norm / Math.hypot(v[0], v[1], v[2]));
    v = u.map((x) => x / norm);
  }
  return s;
}

// The scene's bounding-box diagonal (world space), for relativeTo 'scene'.
function sceneDiagonal(document) {
  let min = [Infinity, Infinity, Infinity];
  let max = [-Infinity, -Infinity, -Infinity];
  for (const scene of document.getRoot().listScenes()) {
    const box = getBounds(scene);
    min = min.map((v, k) => Math.min(v, box.min[k]));
    max = max.map((v, k) => Math.max(v, box.max[k]));
  }
  return Number.isFinite(min[0]) ? Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]) : 0;
}

// A world-space radius in a mesh's own units: divided by the largest stretch of the nodes that
// draw it, so that no merge exceeds the radius in world space under any of them.
function meshScale(mesh) {
  let largest = 0;
  for (const parent of mesh?.listParents() ?? []) {
    if (parent.propertyType === PropertyType.NODE) largest = Math.max(largest, stretch(parent.getWorldMatrix()));
  }
  return largest > 0 ? largest : 1;
}

function parentMesh(primitive) {
  return primitive.listParents().find((p) => p.propertyType === PropertyType.MESH) ?? null;
}

function isUsed(property) {
  return property.listParents().some((p) => p.propertyType !== PropertyType.ROOT);
}

function meshLabel(mesh, document) {
  return `mesh ${mesh.getName() ? `'${mesh.getName()}'` : `#${document.getRoot().listMeshes().indexOf(mesh)}`}`;
}

function label(primitive, document) {
  const mesh = parentMesh(primitive);
  return mesh ? `${meshLabel(mesh, document)} primitive ${mesh.listPrimitives().indexOf(primitive)}` : 'primitive';
}

// The vertex arrays of a primitive and its morph targets, and the plan of what to compare.
function sources(primitive) {
  const base = primitive.listSemantics().map((semantic) => ({ semantic, accessor: primitive.getAttribute(semantic), target: -1 }));
  const targets = primitive.listTargets().flatMap((target, t) =>
    target.listSemantics().map((semantic) => ({ semantic, accessor: target.getAttribute(semantic), target: t, owner: target })),
  );
  return [...base, ...targets];
}

/**
 * Welds one primitive in place (its accessors are replaced, never mutated). Returns what it did:
 * { skipped: reason } or { vertices: [before, after], elements: [before, after], mode, radius,
 * degenerateRemoved, duplicatesRemoved, converted, disposed }.
 */
export function weldPrimitive(primitive, options) {
  const o = parseOptions(options, 'weldPrimitive');
  if (!primitive || primitive.propertyType !== PropertyType.PRIMITIVE) {
    throw fail('weldPrimitive', `needs a glTF-Transform Primitive, got ${describe(primitive)}`, TypeError);
  }
  const document = Document.fromGraph(primitive.getGraph());
  const scene = o.relative !== undefined && o.relativeTo === 'scene' ? sceneDiagonal(document) : 0;
  return weldOne(primitive, o, document, scene, new Map(), 'weldPrimitive');
}

function weldOne(primitive, o, document, sceneDiag, cache, who) {
  const logger = document.getLogger();
  const where = label(primitive, document);
  const skip = (reason) => {
    logger.warn(`${NAME}: ${where} skipped: ${reason}`);
    return { skipped: reason };
  };
  const position = primitive.getAttribute('POSITION');
  if (!position) return skip('it has no POSITION attribute');
  if (position.getType() !== 'VEC3') return skip(`POSITION is ${position.getType()}, not VEC3`);
  const vertexCount = position.getCount();
  const all = sources(primitive);
  for (const { semantic, accessor, target } of all) {
    if (accessor.getCount() !== vertexCount) {
      return skip(`${target < 0 ? '' : `morph target ${target} `}${semantic} has ${accessor.getCount()} items, POSITION ${vertexCount}`);
    }
    if (!accessor.getArray()) return skip(`${semantic} has no data`);
  }
  const draw = drawList(primitive, vertexCount);
  if (draw.skip) return skip(draw.skip);

  // primitives drawing the same arrays the same way weld to the same result: share it
  const key = [primitive.getMode(), primitive.getIndices(), ...all.flatMap((s) => [s.target, s.semantic, s.accessor])];
  if (!cache.has(position)) cache.set(position, []);
  const sameArrays = cache.get(position);
  let result = sameArrays.find((r) => r.key.length === key.length && r.key.every((v, i) => v === key[i])) ?? null;

  const mode = draw.mode;
  const per = mode === TRIANGLES ? 3 : mode === LINES ? 2 : 1;
  if (!result) {
    // the vertices drawn, in order of first use (as glTF-Transform's weld numbers them)
    const local = new Uint32Array(vertexCount).fill(0xffffffff);
    const used = [];
    for (const v of draw.list) if (local[v] === 0xffffffff) local[v] = used.push(v) - 1;
    const usedArray = Uint32Array.from(used);
    const points = shaderValues(position, usedArray);
    let radius = o.radius;
    if (radius === undefined) {
      if (o.relativeTo === 'scene') {
        radius = (o.relative * sceneDiag) / meshScale(parentMesh(primitive));
      } else {
        const min = [Infinity, Infinity, Infinity];
        const max = [-Infinity, -Infinity, -Infinity];
        for (let i = 0; i < points.length; i++) {
          min[i % 3] = Math.min(min[i % 3], points[i]);
          max[i % 3] = Math.max(max[i % 3], points[i]);
        }
        radius = used.length ? o.relative * Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]) : 0;
      }
      if (!Number.isFinite(radius)) radius = 0;
      if (Math.fround(radius) === 0) radius = 0;
    }
    const attributes = {};
    const tolerances = {};
    for (const { semantic, accessor, target } of all) {
      if (target < 0 && semantic === 'POSITION') continue;
      const tolerance = semantic === 'POSITION' ? radius : toleranceOf(semantic, o.tolerances);
      if (tolerance === Infinity) continue; // carried, not compared
      const name = target < 0 ? semantic : `morph target ${target} ${semantic}`;
      attributes[name] = { array: shaderValues(accessor, usedArray), itemSize: accessor.getElementSize() };
      tolerances[name] = tolerance;
    }
    const elements = new Uint32Array(draw.list.length);
    for (let i = 0; i < elements.length; i++) elements[i] = local[draw.list[i]];
    let welded;
    try {
      welded = weldMesh(points, mode === TRIANGLES ? elements : new Uint32Array(0), {
        radius,
        method: o.method,
        attributes,
        ...(Object.keys(tolerances).length > 0 ? { tolerances } : {}), // positions alone: the plain weld
        removeDegenerate: o.removeDegenerate,
        removeDuplicates: o.removeDuplicates,
      });
    } catch (error) {
      throw fail(who, `${where}: ${error.message.replace(/^meshweld: /, '')}`, error.constructor);
    }
    const remap = welded.remap;
    let out;
    let degenerate = 0;
    let duplicates = 0;
    if (mode === TRIANGLES) {
      out = welded.indices;
      degenerate = welded.degenerateRemoved;
      duplicates = welded.duplicatesRemoved;
    } else if (mode === LINES) {
      const kept = [];
      const seen = new Set();
      for (let i = 0; i < elements.length; i += 2) {
        const a = remap[elements[i]];
        const b = remap[elements[i + 1]];
        if (a === b && o.removeDegenerate) {
          degenerate++;
          continue;
        }
        const id = Math.min(a, b) * welded.vertexCount + Math.max(a, b);
        if (o.removeDuplicates && seen.has(id)) {
          duplicates++;
          continue;
        }
        seen.add(id);
        kept.push(a, b);
      }
      out = kept;
    } else {
      out = null; // points: each kept vertex once, unindexed
    }
    // the kept vertices: the first of each cluster, back in the original numbering
    const first = firstOfEach(remap, welded.vertexCount);
    const keep = new Uint32Array(first.length);
    for (let k = 0; k < keep.length; k++) keep[k] = usedArray[first[k]];
    result = { key, keep, out, degenerate, duplicates, radius, replaced: new Map(), indices: undefined };
    sameArrays.push(result);
  }

  // new accessors, in each accessor's own type; one per source accessor (sharing is kept)
  const old = [primitive.getIndices(), ...all.map((s) => s.accessor)].filter(Boolean);
  const replace = (accessor) => {
    if (!result.replaced.has(accessor)) {
      const copy = document
        .createAccessor(accessor.getName())
        .setType(accessor.getType())
        .setArray(gatherRaw(accessor, result.keep))
        .setNormalized(accessor.getNormalized())
        .setSparse(accessor.getSparse())
        .setBuffer(accessor.getBuffer());
      result.replaced.set(accessor, copy);
    }
    return result.replaced.get(accessor);
  };
  for (const { semantic, accessor, target, owner } of all) {
    (target < 0 ? primitive : owner).setAttribute(semantic, replace(accessor));
  }
  if (result.out === null) {
    primitive.setIndices(null);
  } else {
    if (result.indices === undefined) {
      const Type = result.keep.length <= 65535 ? Uint16Array : Uint32Array; // 65535 is the restart value
      result.indices = document
        .createAccessor(primitive.getIndices()?.getName() ?? '')
        .setType('SCALAR')
        .setArray(Type.from(result.out))
        .setBuffer(primitive.getIndices()?.getBuffer() ?? position.getBuffer());
    }
    primitive.setIndices(result.indices);
  }
  primitive.setMode(mode);
  if (draw.converted) logger.info(`${NAME}: ${where}: ${draw.converted}`);
  for (const accessor of old) if (!isUsed(accessor)) accessor.dispose();

  const elementsAfter = result.out === null ? result.keep.length : result.out.length / per;
  const report = {
    mode: MODE_NAMES[mode],
    radius: result.radius,
    vertices: [vertexCount, result.keep.length],
    elements: [draw.list.length / per, elementsAfter],
    degenerateRemoved: result.degenerate,
    duplicatesRemoved: result.duplicates,
    converted: draw.converted ?? null,
    disposed: false,
  };
  if (elementsAfter === 0) {
    const dropped = primitive.listAttributes();
    primitive.dispose();
    for (const accessor of dropped) if (!isUsed(accessor)) accessor.dispose();
    report.disposed = true;
    logger.info(`${NAME}: ${where}: every ${report.mode === 'POINTS' ? 'point' : 'element'} collapsed; the primitive was removed`);
  }
  return report;
}

const figure = (n) => n.toLocaleString('en-US');

/**
 * A glTF-Transform transform that welds every primitive of the document:
 * `await document.transform(weld({ radius: 1e-4 }))`.
 */
export function weld(options) {
  const o = parseOptions(options, 'weld');
  const transform = async (document) => {
    await ready;
    const logger = document.getLogger();
    const sceneDiag = o.relative !== undefined && o.relativeTo === 'scene' ? sceneDiagonal(document) : 0;
    const cache = new Map();
    for (const mesh of document.getRoot().listMeshes()) {
      const before = mesh.listPrimitives().length;
      const total = { vertices: [0, 0], triangles: [0, 0], lines: [0, 0], points: [0, 0], skipped: 0, degenerate: 0, duplicates: 0 };
      for (const primitive of mesh.listPrimitives()) {
        const r = weldOne(primitive, o, document, sceneDiag, cache, 'weld');
        if (r.skipped) {
          total.skipped++;
          continue;
        }
        total.vertices[0] += r.vertices[0];
        total.vertices[1] += r.vertices[1];
        const kind = r.mode === 'TRIANGLES' ? total.triangles : r.mode === 'LINES' ? total.lines : total.points;
        kind[0] += r.elements[0];
        kind[1] += r.elements[1];
        total.degenerate += r.degenerateRemoved;
        total.duplicates += r.duplicatesRemoved;
      }
      const parts = [`vertices ${figure(total.vertices[0])} → ${figure(total.vertices[1])}`];
      for (const [name, [a, b]] of [['triangles', total.triangles], ['lines', total.lines], ['points', total.points]]) {
        if (a > 0) parts.push(`${name} ${figure(a)} → ${figure(b)}`);
      }
      if (total.degenerate) parts.push(`${total.degenerate} degenerate removed`);
      if (total.duplicates) parts.push(`${total.duplicates} duplicates removed`);
      if (total.skipped) parts.push(`${total.skipped} primitive${total.skipped === 1 ? '' : 's'} skipped`);
      logger.info(`${NAME}: ${meshLabel(mesh, document)}: ${parts.join(', ')}`);
      if (before > 0 && mesh.listPrimitives().length === 0) {
        logger.info(`${NAME}: ${meshLabel(mesh, document)} has no primitive left; it was removed`);
        mesh.dispose();
      }
    }
  };
  Object.defineProperty(transform, 'name', { value: NAME });
  return transform;
}
