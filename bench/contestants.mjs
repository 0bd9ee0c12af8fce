// The contestants run in this process: meshweld's WebAssembly build (every method and store)
// and the peers. Each contestant:
//   id, label, group ('meshweld' | 'peer'), method, store
//   exact: true for welders that merge bitwise-identical positions only (a different job)
//   note: what it does (differently), for the report's header
//   load(): imports its library (so a memory child loads only what it measures)
//   prepare(points, ds): untimed set-up once per dataset (a geometry, a padded copy)
//   fresh(ctx): untimed set-up before every run (a new glTF document: weld() mutates it)
//   run(input): the timed call; async: true when it returns a promise
//   collect(raw, points, ds): untimed, { count, remap, positions (count * ds.dim floats), method }
import { articleWeld } from './article.mjs';
import { meshweldModule } from './module.mjs';

export const NAIVE_LIMIT = 20000; // naive is quadratic: skipped on larger datasets

let meshweld = null;
async function loadMeshweld() {
  meshweld ??= await meshweldModule();
  return meshweld;
}

function wasmContestant(method, store) {
  return {
    id: `wasm:${method}:${store}`,
    label: `meshweld ${method}`,
    group: 'meshweld',
    method,
    store,
    exact: false,
    load: loadMeshweld,
    prepare: (points, ds) => ({ points, options: { dim: ds.dim, radius: ds.radius, method, store } }),
    run: (ctx) => meshweld.weld(ctx.points, ctx.options),
    collect: (raw) => raw,
  };
}

/**
 * meshweld's WebAssembly configurations for a dataset, as [contestant, reason to skip or null]:
 * every method the module lists that exists in this dimension, in both stores where the store
 * changes the bound (a method whose loose bound is r is precise only: it runs once). auto comes
 * in both stores whatever it is: loose is the default a user gets, the anchor of every ratio.
 */
export async function wasmContestants(ds) {
  const { methods, bound } = await loadMeshweld();
  const list = [];
  for (const method of methods) {
    let loose;
    try {
      loose = bound({ method, store: 'loose', dim: ds.dim, radius: 1 });
    } catch {
      continue; // hex in 3D, bcc in 2D
    }
    const stores = method === 'auto' || loose > 1 ? ['loose', 'precise'] : ['precise'];
    for (const store of stores) {
      const skip = method === 'naive' && ds.n > NAIVE_LIMIT ? `skipped: quadratic, n > ${NAIVE_LIMIT.toLocaleString('en-US')}` : null;
      list.push([wasmContestant(method, store), skip]);
    }
  }
  return list;
}

/** Whether auto's result depends on the store (it does not when auto is always precise). */
export async function autoHasStores(dim) {
  const { bound } = await loadMeshweld();
  return bound({ method: 'auto', store: 'loose', dim, radius: 1 }) > 1;
}

// meshoptimizer's remap points each vertex at the first vertex with the same position; turn
// it into meshweld's dense numbering (outputs in order of first appearance) and gather.
function denseFromCanonical(canonical, points, dim) {
  const n = canonical.length;
  const remap = new Uint32Array(n);
  let count = 0;
  for (let i = 0; i < n; i++) remap[i] = canonical[i] === i ? count++ : remap[canonical[i]];
  return { count, remap, positions: gather(remap, count, points, dim) };
}

function gather(remap, count, points, dim) {
  const positions = new Float32Array(count * dim);
  const seen = new Uint8Array(count);
  for (let i = 0; i < remap.length; i++) {
    const k = remap[i];
    if (!seen[k]) {
      seen[k] = 1;
      for (let a = 0; a < dim; a++) positions[k * dim + a] = points[i * dim + a];
    }
  }
  return positions;
}

function padTo3(points, dim) {
  if (dim === 3) return points;
  const n = points.length / dim;
  const out = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) for (let a = 0; a < dim; a++) out[i * 3 + a] = points[i * dim + a];
  return out;
}

let meshopt = null;
const meshoptContestant = {
  id: 'meshopt',
  label: 'meshoptimizer generatePositionRemap',
  group: 'peer',
  exact: true,
  note:
    '`MeshoptSimplifier.generatePositionRemap(positions, 3)`: bitwise-equal positions only, a different job (no tolerance); ' +
    "returns each vertex's first twin (no dense numbering, no positions gathered: done untimed here); 2D data padded with z = 0 beforehand, untimed",
  async load() {
    if (!meshopt) {
      ({ MeshoptSimplifier: meshopt } = await import('meshoptimizer'));
      await meshopt.ready;
    }
  },
  prepare: (points, ds) => ({ points3: padTo3(points, ds.dim) }),
  run: (ctx) => meshopt.generatePositionRemap(ctx.points3, 3),
  collect: (raw, points, ds) => ({ ...denseFromCanonical(raw, points, ds.dim), method: 'exact' }),
};

let three = null;
const threeContestant = {
  id: 'three',
  label: 'three.js mergeVertices',
  group: 'peer',
  exact: false,
  note:
    '`BufferGeometryUtils.mergeVertices(geometry, r)` on a positions-only geometry (item size = dim): each coordinate rounded ' +
    'to a multiple of r into a string key, so points merge when their rounding agrees: pairs that straddle a rounding border stay apart',
  async load() {
    if (!three) {
      const [core, utils] = await Promise.all([import('three'), import('three/examples/jsm/utils/BufferGeometryUtils.js')]);
      three = { BufferGeometry: core.BufferGeometry, BufferAttribute: core.BufferAttribute, mergeVertices: utils.mergeVertices };
    }
  },
  prepare(points, ds) {
    const geometry = new three.BufferGeometry();
    geometry.setAttribute('position', new three.BufferAttribute(points, ds.dim));
    return { geometry, radius: ds.radius };
  },
  run: (ctx) => three.mergeVertices(ctx.geometry, ctx.radius),
  collect(raw) {
    const remap = Uint32Array.from(raw.index.array);
    const positions = raw.getAttribute('position').array;
    return { count: raw.getAttribute('position').count, remap, positions, method: 'rounding' };
  },
};

let gltf = null;
const gltfContestant = {
  id: 'gltf',
  label: 'glTF-Transform weld()',
  group: 'peer',
  exact: true,
  note:
    '`await document.transform(weld())` on a Document with one triangle primitive holding the points as POSITION (VEC2 in 2D): ' +
    'bitwise-identical vertices only since v4, a different job; the time includes its compaction into new accessors and an index; ' +
    'a new Document per run, built untimed',
  async load() {
    if (!gltf) {
      const [core, functions] = await Promise.all([import('@gltf-transform/core'), import('@gltf-transform/functions')]);
      gltf = { Document: core.Document, weld: functions.weld };
    }
  },
  prepare: (points, ds) => ({ points, type: ds.dim === 3 ? 'VEC3' : 'VEC2' }),
  fresh(ctx) {
    const document = new gltf.Document();
    const position = document.createAccessor().setType(ctx.type).setArray(ctx.points);
    const primitive = document.createPrimitive().setAttribute('POSITION', position); // triangles
    document.createMesh().addPrimitive(primitive);
    return { document, primitive };
  },
  async: true,
  run: async (input) => {
    await input.document.transform(gltf.weld());
    return input.primitive;
  },
  collect(primitive) {
    const remap = Uint32Array.from(primitive.getIndices().getArray());
    const position = primitive.getAttribute('POSITION');
    return { count: position.getCount(), remap, positions: position.getArray(), method: 'exact' };
  },
};

const articleContestant = {
  id: 'article',
  label: 'article 2r grid, JS Map port',
  group: 'peer',
  exact: false,
  note:
    "the reference article's loose 2r grid ported to plain JS as its pseudocode reads (bench/article.mjs): a Map keyed by " +
    "'i,j,k' strings, 2^dim look-ups, one point per cell, no exact-duplicate pass",
  async load() {},
  prepare: (points, ds) => ({ points, dim: ds.dim, radius: ds.radius }),
  run: (ctx) => articleWeld(ctx.points, ctx.dim, ctx.radius),
  collect: (raw) => ({ ...raw, method: 'grid-2r' }),
};

export const peers = [meshoptContestant, gltfContestant, threeContestant, articleContestant];

/** What each contestant does, for the header of the report. */
export async function contestantNotes(nativeNote) {
  const preciseAuto = !(await autoHasStores(2)) && !(await autoHasStores(3));
  return [
    {
      label: 'meshweld (WebAssembly)',
      note:
        '`weld(points, { dim, radius, method, store })` on a plain Float32Array (copied in; a dense remap and the kept positions out): ' +
        'every method the module lists, in both stores where the store changes the bound; `naive` up to 20,000 points (quadratic)' +
        (preciseAuto ? '; `auto` is always precise in this build (its loose bound is r): loose, the default, and precise run the same weld' : ''),
    },
    { label: 'meshweld native', note: nativeNote },
    ...peers.map(({ label, note }) => ({ label, note })),
  ];
}

/** Imports every library of the contestants of this process. */
export async function loadAll() {
  await loadMeshweld();
  for (const peer of peers) await peer.load();
}

/** Every contestant of this process by id (for the memory children). */
export function contestantById(id) {
  const peer = peers.find((c) => c.id === id);
  if (peer) return peer;
  const [kind, method, store] = id.split(':');
  if (kind === 'wasm') return wasmContestant(method, store);
  throw new Error(`unknown contestant ${id}`);
}
