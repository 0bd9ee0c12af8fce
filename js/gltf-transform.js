// meshweld/gltf-transform: a glTF-Transform transform that welds every primitive of a document with
// a guaranteed tolerance. `@gltf-transform/core` is an optional peer dependency: only this entry
// point imports it.
import { Document, Primitive, PropertyType } from '@gltf-transform/core';
import { ready } from './index.js';
import { diagonal, relativeToRadius, weldRadius } from './engine.js';
import { attributeFloats, fitsUint16, weldMeshAs } from './mesh.js';
import { isIntegerArray, normalizer } from './points.js';
import { meshScale, sceneDiagonal } from './scene.js';
import { describe, gatherItems } from './gather.js';
import { distance, failure, radiusValue, refusal, toleranceValue } from './check.js';

export { ready };

const NAME = 'meshweld';
const OPTIONS = ['radius', 'relative', 'relativeTo', 'tolerances', 'removeDegenerate', 'removeDuplicates', 'method', 'onPrimitive'];
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

const SEMANTIC = /^(NORMAL|TANGENT|(TEXCOORD|COLOR|JOINTS|WEIGHTS)(_(0|[1-9]\d*))?|_.+)$/;

// an object of options or tolerances: a plain one (a Map or a Date would pass for empty)
const isPlain = (value) => value !== null && typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value));

// Checks the options and fills in the defaults.
function parseOptions(options, who) {
  if (options === undefined) options = {};
  if (!isPlain(options)) {
    throw failure(TypeError, who, `options must be a plain object, got ${describe(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!OPTIONS.includes(key)) throw failure(RangeError, who, `unknown option '${key}'; the options are ${OPTIONS.join(', ')}`);
  }
  const o = {
    radius: undefined,
    relative: undefined,
    relativeTo: options.relativeTo === undefined ? 'primitive' : options.relativeTo,
    tolerances: {},
    removeDegenerate: options.removeDegenerate === undefined ? true : options.removeDegenerate,
    removeDuplicates: options.removeDuplicates === undefined ? false : options.removeDuplicates,
    method: options.method === undefined ? 'auto' : options.method,
    onPrimitive: options.onPrimitive,
  };
  if (o.onPrimitive !== undefined) {
    if (typeof o.onPrimitive !== 'function') throw failure(TypeError, who, `onPrimitive must be a function, got ${describe(o.onPrimitive)}`);
    if (who !== 'weld') throw failure(RangeError, who, 'onPrimitive is an option of the weld() transform, which calls it after each primitive');
  }
  if (options.radius !== undefined && options.relative !== undefined) {
    throw failure(RangeError, who, `give radius (absolute) or relative (a fraction of the bounding-box diagonal), not both`);
  }
  if (options.radius !== undefined && options.relativeTo !== undefined) {
    throw failure(RangeError, who, `relativeTo says whose diagonal relative is a fraction of: give it with relative, not with radius (absolute)`);
  }
  if (options.radius !== undefined) o.radius = radiusValue(options.radius, who);
  else o.relative = options.relative === undefined ? DEFAULT_RELATIVE : distance(options.relative, 'relative', who);
  if (o.relativeTo !== 'primitive' && o.relativeTo !== 'scene') {
    throw failure(refusal(o.relativeTo, 'string'), who, `relativeTo must be 'primitive' or 'scene', got ${describe(o.relativeTo)}`);
  }
  for (const flag of ['removeDegenerate', 'removeDuplicates']) {
    if (typeof o[flag] !== 'boolean') throw failure(TypeError, who, `${flag} must be a boolean, got ${describe(o[flag])}`);
  }
  if (!METHODS.includes(o.method)) {
    throw failure(refusal(o.method, 'string'), who, `unknown method ${describe(o.method)}; use one of ${METHODS.join(', ')} ('hex' is 2D only)`);
  }
  const tolerances = options.tolerances === undefined ? {} : options.tolerances;
  if (!isPlain(tolerances)) {
    throw failure(TypeError, who, `tolerances must be a plain object of glTF semantic to tolerance, got ${describe(tolerances)}`);
  }
  for (const [semantic, value] of Object.entries(tolerances)) {
    if (semantic === 'POSITION') throw failure(RangeError, who, `tolerances: POSITION is welded within radius (or relative); remove it`);
    if (!SEMANTIC.test(semantic)) {
      throw failure(RangeError, who,
        `tolerances: unknown attribute semantic '${semantic}'; use NORMAL, TANGENT, TEXCOORD_n, COLOR_n, JOINTS_n, ` +
          `WEIGHTS_n (or TEXCOORD, COLOR... for every set) or a custom _NAME`);
    }
    if (value !== Infinity) toleranceValue(value, `tolerances.${semantic}`, who);
    o.tolerances[semantic] = value;
  }
  return o;
}

// The tolerance of an attribute: its own entry, its family's (TEXCOORD for TEXCOORD_1), the default.
function toleranceOf(semantic, tolerances) {
  if (Object.hasOwn(tolerances, semantic)) return tolerances[semantic];
  const family = semantic.replace(/_\d+$/, '');
  if (Object.hasOwn(tolerances, family)) return tolerances[family];
  return DEFAULT_TOLERANCES[family] ?? 0;
}

/**
 * The values of the vertices `used` (every vertex, in order, when null) as the shader sees them:
 * float32, normalized integers decoded. A float32 accessor drawn whole is read in place.
 */
function shaderValues(accessor, used) {
  const array = accessor.getArray();
  if (used === null) return attributeFloats(array, accessor.getNormalized());
  const decode = accessor.getNormalized() && isIntegerArray(array) ? normalizer(array) : null;
  const size = accessor.getElementSize();
  const out = new Float32Array(used.length * size);
  for (let k = 0; k < used.length; k++) {
    for (let c = 0, s = used[k] * size, t = k * size; c < size; c++) out[t + c] = decode ? decode(array[s + c]) : array[s + c];
  }
  return out;
}

/**
 * The index list a primitive draws with, as TRIANGLES, LINES or POINTS: { mode, list, converted },
 * where list is null when it draws every vertex once in order (unindexed TRIANGLES, LINES, POINTS),
 * else the indices themselves or the list a strip, fan or loop makes; or { skip: reason }.
 */
function drawList(primitive, vertexCount) {
  const mode = primitive.getMode();
  const indices = primitive.getIndices();
  const source = indices?.getArray() ?? null;
  if (indices && !source) return { skip: 'its indices have no data' };
  if (source && !(source instanceof Uint8Array || source instanceof Uint16Array || source instanceof Uint32Array)) {
    return { skip: `its indices are a ${source.constructor.name}, not unsigned integers` };
  }
  const n = source ? source.length : vertexCount;
  // the largest value of the type restarts a strip or a fan where a renderer enables primitive
  // restart (WebGL 2 always does), and glTF forbids it in any mode
  const restart = source ? 2 ** (8 * source.BYTES_PER_ELEMENT) - 1 : -1;
  for (let i = 0; source && i < n; i++) {
    if (source[i] === restart) return { skip: `index ${i} is ${restart}, the primitive restart value of its type, which glTF forbids in indices` };
    if (source[i] >= vertexCount) return { skip: `index ${i} is ${source[i]}, beyond its ${vertexCount} vertices` };
  }
  const at = (i) => (source ? source[i] : i);
  switch (mode) {
    case TRIANGLES:
    case LINES:
    case POINTS: {
      const per = mode === TRIANGLES ? 3 : mode === LINES ? 2 : 1;
      if (n % per !== 0) return { skip: `${n} ${source ? 'indices' : 'vertices'} are not a multiple of ${per} for ${MODE_NAMES[mode]}` };
      return { mode, list: source };
    }
    case TRIANGLE_STRIP:
    case TRIANGLE_FAN: {
      const t = Math.max(n - 2, 0);
      const strip = mode === TRIANGLE_STRIP;
      const list = new Uint32Array(3 * t);
      for (let i = 0; i < t; i++) {
        // the corners the glTF specification gives triangle i of a strip or a fan
        list[3 * i] = strip ? at(i) : at(i + 1);
        list[3 * i + 1] = strip ? at(i + 1 + (i % 2)) : at(i + 2);
        list[3 * i + 2] = strip ? at(i + 2 - (i % 2)) : at(0);
      }
      return { mode: TRIANGLES, converted: `${MODE_NAMES[mode]} converted to TRIANGLES`, list };
    }
    case LINE_STRIP:
    case LINE_LOOP: {
      const segments = n < 2 ? 0 : mode === LINE_LOOP ? n : n - 1;
      const list = new Uint32Array(2 * segments);
      for (let i = 0; i < segments; i++) {
        list[2 * i] = at(i);
        list[2 * i + 1] = at((i + 1) % n);
      }
      return { mode: LINES, converted: `${MODE_NAMES[mode]} converted to LINES`, list };
    }
    default:
      return { skip: `unknown mode ${describe(mode)}` };
  }
}

/**
 * The vertices a draw list uses, numbered in order of first use (as glTF-Transform's weld numbers
 * them): { used, elements }, the used vertices' indices (null: every vertex, in order) and the
 * list in the new numbering (null: unindexed).
 */
function firstUse(list, vertexCount) {
  if (list === null) return { used: null, elements: null };
  const local = new Int32Array(vertexCount).fill(-1);
  const used = new Uint32Array(Math.min(vertexCount, list.length));
  let count = 0;
  let inOrder = true;
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (local[v] < 0) {
      if (v !== count) inOrder = false;
      local[v] = count;
      used[count++] = v;
    }
  }
  if (inOrder) return { used: count === vertexCount ? null : used.subarray(0, count), elements: list };
  const elements = new Uint32Array(list.length);
  for (let i = 0; i < list.length; i++) elements[i] = local[list[i]];
  return { used: used.subarray(0, count), elements };
}

/**
 * The first value that is not finite, or -1. The transform names such a value by its accessor's
 * vertex before the weld, which would number the vertices drawn.
 */
function firstNonFinite(values) {
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i])) return i;
  return -1;
}

function parentMesh(primitive) {
  return primitive.listParents().find((p) => p.propertyType === PropertyType.MESH) ?? null;
}

function isUsed(property) {
  return property.listParents().some((p) => p.propertyType !== PropertyType.ROOT);
}

/**
 * What one run over a document shares: the options, the scene's diagonal, the results of
 * primitives that draw the same arrays, each mesh's scale, and the meshes' numbers as they were
 * when the run began (for messages).
 */
function runOf(document, o, who) {
  const worlds = new Map(); // the nodes' world matrices, made once for the scene's diagonal and the meshes' scales
  return {
    document,
    o,
    who,
    sceneDiag: o.relative !== undefined && o.relativeTo === 'scene' ? sceneDiagonal(document, worlds) : 0,
    worlds,
    results: new Map(),
    scales: new Map(),
    drawn: new Map(), // mesh -> whether a scene draws it (relativeTo 'scene')
    numbers: null,
    primitives: null, // each primitive's number in its mesh when the run began, as meshes' numbers are
    met: new Set(), // the accessors of the primitives welded so far, as they were
    left: new Set(), // the accessors they used, to dispose at the end where nothing uses them (disposeUnused)
  };
}

function meshLabel(mesh, run) {
  if (mesh.getName()) return `mesh '${mesh.getName()}'`;
  run.numbers ??= new Map(run.document.getRoot().listMeshes().map((m, i) => [m, i]));
  return `mesh #${run.numbers.get(mesh) ?? run.document.getRoot().listMeshes().indexOf(mesh)}`;
}

function label(primitive, run) {
  const mesh = parentMesh(primitive);
  if (!mesh) return 'primitive';
  const number = run.primitives?.get(primitive) ?? mesh.listPrimitives().indexOf(primitive);
  return `${meshLabel(mesh, run)} primitive ${number}`;
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
    throw failure(TypeError, 'weldPrimitive', `needs a glTF-Transform Primitive, got ${describe(primitive)}`);
  }
  const run = runOf(Document.fromGraph(primitive.getGraph()), o, 'weldPrimitive');
  const report = weldOne(primitive, run);
  disposeUnused(run);
  return report;
}

// The accessors the run's primitives stopped using, disposed once nothing else uses them: at the end
// of the run, one look at each, since listing the users of an accessor that thousands of
// primitives share costs as many steps.
function disposeUnused(run) {
  for (const accessor of run.left) if (!accessor.isDisposed() && !isUsed(accessor)) accessor.dispose();
  run.left.clear();
}

// Whether a primitive's radius is relative to the scenes' diagonal: relativeTo 'scene', and its
// mesh drawn by a node of a scene (a mesh no scene draws has no world space: its own diagonal, with
// a warning, once per mesh).
function sceneRelative(primitive, run) {
  const { o } = run;
  if (o.radius !== undefined || o.relativeTo !== 'scene') return false;
  const mesh = parentMesh(primitive);
  if (!run.drawn.has(mesh)) {
    const drawn = (mesh?.listParents() ?? []).some((p) => p.propertyType === PropertyType.NODE && run.worlds.has(p));
    run.drawn.set(mesh, drawn);
    if (!drawn) run.document.getLogger().warn(`${NAME}: ${mesh ? meshLabel(mesh, run) : label(primitive, run)} is drawn by no scene: its radius is relative to its own diagonal`);
  }
  return run.drawn.get(mesh);
}

// What a primitive's radius is divided by: its mesh's largest stretch for a radius relative to the
// scene; else null (its own diagonal, or an absolute radius: results shared between primitives
// keep the two apart)
function scaleOf(primitive, run) {
  if (!sceneRelative(primitive, run)) return null;
  const mesh = parentMesh(primitive);
  if (!run.scales.has(mesh)) run.scales.set(mesh, meshScale(mesh, run.worlds));
  return run.scales.get(mesh);
}

// The radius of a primitive's weld, from the options.
function radiusOf(primitive, points, run) {
  const { o } = run;
  let radius = o.radius;
  if (radius === undefined) {
    if (sceneRelative(primitive, run)) {
      radius = weldRadius((o.relative * run.sceneDiag) / scaleOf(primitive, run));
    } else {
      radius = relativeToRadius(o.relative, diagonal(points, points.length / 3, 3, 3));
    }
  }
  return radius;
}

function weldOne(primitive, run) {
  const { document, o, who } = run;
  const logger = document.getLogger();
  const skip = (reason) => {
    logger.warn(`${NAME}: ${label(primitive, run)} skipped: ${reason}`);
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

  // primitives drawing the same arrays the same way, within the same radius, weld to the same
  // result: share it (relative to the scene, meshes drawn at different scales take different radii)
  const key = [primitive.getMode(), primitive.getIndices(), scaleOf(primitive, run), ...all.flatMap((s) => [s.target, s.semantic, s.accessor])];
  if (!run.results.has(position)) run.results.set(position, []);
  const sameArrays = run.results.get(position);
  let result = sameArrays.find((r) => r.key.length === key.length && r.key.every((v, i) => v === key[i])) ?? null;

  const mode = draw.mode;
  const per = mode === TRIANGLES ? 3 : mode === LINES ? 2 : 1;
  const elementsBefore = (draw.list ? draw.list.length : vertexCount) / per;
  if (!result) {
    const { used, elements } = firstUse(draw.list, vertexCount);
    const points = shaderValues(position, used);
    const finite = (values, size, name) => {
      const bad = firstNonFinite(values);
      if (bad < 0) return values;
      const [k, c] = [Math.floor(bad / size), bad % size];
      const component = name === 'POSITION' ? `coordinate ${'xyz'[c]}` : `component ${c}`;
      throw failure(RangeError, who, `${label(primitive, run)}: vertex ${used === null ? k : used[k]} has a non-finite ${name} ${component} = ${describe(values[bad])}`);
    };
    finite(points, 3, 'POSITION');
    const radius = radiusOf(primitive, points, run);
    const attributes = {};
    const tolerances = {};
    for (const { semantic, accessor, target } of all) {
      if (target < 0 && semantic === 'POSITION') continue;
      const tolerance = semantic === 'POSITION' ? radius : toleranceOf(semantic, o.tolerances);
      if (tolerance === Infinity) continue; // carried, not compared
      const name = target < 0 ? semantic : `morph target ${target} ${semantic}`;
      const size = accessor.getElementSize();
      attributes[name] = { array: finite(shaderValues(accessor, used), size, name), itemSize: size };
      tolerances[name] = tolerance;
    }
    let welded;
    try {
      // the kept vertices: the first of each cluster, back in the accessors' numbering; the
      // accessors are gathered from those, so the weld returns neither positions nor attributes
      const keepOf = (first) => {
        const keep = new Uint32Array(first.length);
        for (let k = 0; k < keep.length; k++) keep[k] = used === null ? first[k] : used[first[k]];
        return keep;
      };
      welded = weldMeshAs(who, points, mode === POINTS ? null : elements, {
        radius,
        method: o.method,
        primitive: mode === TRIANGLES ? 'triangles' : mode === LINES ? 'lines' : 'points',
        attributes,
        ...(Object.keys(tolerances).length > 0 ? { tolerances } : {}), // positions alone: the plain weld
        removeDegenerate: o.removeDegenerate,
        removeDuplicates: o.removeDuplicates,
      }, 'vertex', { positions: false, compact: false, remap: false, gather: keepOf, number: used });
    } catch (error) {
      const text = error.message.startsWith(`meshweld: ${who}: `) ? error.message.slice(`meshweld: ${who}: `.length) : error.message.replace(/^meshweld: /, '');
      throw failure(error.constructor, who, `${label(primitive, run)}: ${text}`);
    }
    const keep = welded.gathered;
    // points: each kept vertex once, unindexed
    const out = mode === POINTS ? null : welded.indices;
    const degenerate = mode === POINTS ? 0 : welded.degenerateRemoved;
    const duplicates = mode === POINTS ? 0 : welded.duplicatesRemoved;
    result = { key, keep, out, degenerate, duplicates, radius, replaced: new Map(), indices: undefined };
    sameArrays.push(result);
  }

  // each accessor gathered in its own type: in place where this primitive (or its morph target) is
  // the one user it had when the run began, else into a new accessor, one per source accessor
  // (sharing is kept); creating and disposing accessors is what costs on a document of thousands
  // of small meshes
  const old = [primitive.getIndices(), ...all.map((s) => s.accessor)].filter(Boolean);
  const alone = (accessor, owner) => !run.met.has(accessor) && accessor.listParents().every((p) => p === owner || p.propertyType === PropertyType.ROOT);
  const replace = (accessor, owner) => {
    if (!result.replaced.has(accessor)) {
      const array = gatherItems(accessor.getArray(), accessor.getElementSize(), result.keep);
      const copy = alone(accessor, owner) ? accessor.setArray(array) : document
        .createAccessor(accessor.getName())
        .setType(accessor.getType())
        .setArray(array)
        .setNormalized(accessor.getNormalized())
        .setSparse(accessor.getSparse())
        .setBuffer(accessor.getBuffer())
        .setExtras(structuredClone(accessor.getExtras()));
      result.replaced.set(accessor, copy);
    }
    return result.replaced.get(accessor);
  };
  for (const { semantic, accessor, target, owner } of all) {
    const user = target < 0 ? primitive : owner;
    user.setAttribute(semantic, replace(accessor, user));
  }
  if (result.out === null) {
    primitive.setIndices(null);
  } else {
    if (result.indices === undefined) {
      const Type = fitsUint16(result.keep.length) ? Uint16Array : Uint32Array;
      const array = result.out instanceof Type ? result.out : new Type(result.out);
      const before = primitive.getIndices();
      // (in place unless it is also one of the attributes just gathered)
      result.indices = before && alone(before, primitive) && !result.replaced.has(before) ? before.setArray(array) : document
        .createAccessor(before?.getName() ?? '')
        .setType('SCALAR')
        .setArray(array)
        .setBuffer(before?.getBuffer() ?? position.getBuffer())
        .setExtras(structuredClone(before?.getExtras() ?? {}));
    }
    primitive.setIndices(result.indices);
  }
  primitive.setMode(mode);
  if (draw.converted) logger.info(`${NAME}: ${label(primitive, run)}: ${draw.converted}`);
  for (const accessor of old) {
    run.met.add(accessor);
    run.left.add(accessor);
  }

  const elementsAfter = result.out === null ? result.keep.length : result.out.length / per;
  const report = {
    mode: MODE_NAMES[mode],
    radius: result.radius,
    vertices: [vertexCount, result.keep.length],
    elements: [elementsBefore, elementsAfter],
    degenerateRemoved: result.degenerate,
    duplicatesRemoved: result.duplicates,
    converted: draw.converted ?? null,
    disposed: false,
  };
  if (elementsAfter === 0) {
    // its index, attributes and morph targets' attributes go too, where nothing else uses them
    const dropped = [primitive.getIndices(), ...primitive.listAttributes(), ...primitive.listTargets().flatMap((t) => t.listAttributes())];
    const where = label(primitive, run);
    for (const target of primitive.listTargets()) target.dispose();
    primitive.dispose();
    for (const accessor of dropped) if (accessor) run.left.add(accessor);
    report.disposed = true;
    logger.info(`${NAME}: ${where}: every ${report.mode === 'POINTS' ? 'point' : 'element'} collapsed; the primitive was removed`);
  }
  return report;
}

const figure = (n) => String(n).replace(/\B(?=(\d{3})+$)/g, ','); // 1234567 → 1,234,567

// Removes a mesh left with no primitive, and what glTF allows only with a mesh: the skin and the
// morph weights of the nodes that drew it, and the animation channels that moved those weights
// (their samplers and animations too, where nothing else is left in them; the samplers' accessors
// at the end of the run, where nothing else uses them).
function removeMesh(mesh, run) {
  const nodes = mesh.listParents().filter((p) => p.propertyType === PropertyType.NODE);
  mesh.dispose();
  for (const node of nodes) {
    node.setSkin(null).setWeights([]);
    for (const animation of run.document.getRoot().listAnimations()) {
      for (const channel of animation.listChannels()) {
        if (channel.getTargetNode() !== node || channel.getTargetPath() !== 'weights') continue;
        const sampler = channel.getSampler();
        channel.dispose();
        if (sampler && !animation.listChannels().some((c) => c.getSampler() === sampler)) {
          for (const accessor of [sampler.getInput(), sampler.getOutput()]) if (accessor) run.left.add(accessor);
          sampler.dispose();
        }
      }
      if (animation.listChannels().length === 0) animation.dispose();
    }
  }
}

/**
 * A glTF-Transform transform that welds every primitive of the document:
 * `await document.transform(weld({ radius: 1e-4 }))`.
 */
export function weld(options) {
  const o = parseOptions(options, 'weld');
  const transform = async (document) => {
    await ready;
    const run = runOf(document, o, 'weld');
    const meshes = document.getRoot().listMeshes();
    run.numbers = new Map(meshes.map((mesh, i) => [mesh, i]));
    run.primitives = new Map();
    for (const mesh of meshes) mesh.listPrimitives().forEach((p, i) => run.primitives.has(p) || run.primitives.set(p, i));
    const had = new Map(meshes.map((mesh) => [mesh, mesh.listPrimitives().length]));
    try {
      for (const mesh of meshes) await weldEachPrimitive(mesh, had.get(mesh), run);
    } finally {
      disposeUnused(run); // (also where a primitive rejects: what the primitives before it left)
    }
  };
  Object.defineProperty(transform, 'name', { value: NAME });
  return transform;
}

// The weld() transform's work on one mesh: each primitive, a line for the log, and the mesh
// removed where it had primitives and has none left (one it shared with a mesh before it may have
// gone already).
async function weldEachPrimitive(mesh, had, run) {
  const { o, document } = run;
  const logger = document.getLogger();
  const total = { vertices: [0, 0], triangles: [0, 0], lines: [0, 0], points: [0, 0], skipped: 0, degenerate: 0, duplicates: 0 };
  const primitives = mesh.listPrimitives();
  for (const primitive of primitives) {
    const r = weldOne(primitive, run);
    if (o.onPrimitive) await o.onPrimitive(r, primitive);
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
  if (primitives.length > 0) {
    const parts = [`vertices ${figure(total.vertices[0])} → ${figure(total.vertices[1])}`];
    for (const [name, [a, b]] of [['triangles', total.triangles], ['lines', total.lines], ['points', total.points]]) {
      if (a > 0) parts.push(`${name} ${figure(a)} → ${figure(b)}`);
    }
    if (total.degenerate) parts.push(`${total.degenerate} degenerate removed`);
    if (total.duplicates) parts.push(`${total.duplicates} duplicates removed`);
    if (total.skipped) parts.push(`${total.skipped} primitive${total.skipped === 1 ? '' : 's'} skipped`);
    logger.info(`${NAME}: ${meshLabel(mesh, run)}: ${parts.join(', ')}`);
  }
  if (had > 0 && mesh.listPrimitives().length === 0) {
    logger.info(`${NAME}: ${meshLabel(mesh, run)} has no primitive left; it was removed`);
    removeMesh(mesh, run);
  }
}
