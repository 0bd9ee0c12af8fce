// The soak test: hundreds of thousands of welds of random sizes, methods, stores and data (most of
// them tiny), interleaved with every kind of error and with incremental welders created, fed and
// dropped (half of them without dispose(): the FinalizationRegistry frees those), all in one
// process. Every result passes the brute-force checker below, and the WebAssembly memory must not
// grow after the warm-up: a leak of a few bytes per call would show within a few thousand calls.
//
//   node --expose-gc tests/soak.mjs [--welds N] [--seconds S] [--seed K]   (npm run soak)
//
// tests/js/soak.test.js runs a short one in `npm test`; the exported check functions are shared
// with tests/js/hostile.test.js.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { pathToFileURL } from 'node:url';
import { ready, weld, Welder, weldMesh, countClosePairs, bound, cells, memoryBytes, methods, stores, PointBuffer } from '../js/index.js';
import { collector, mulberry32 } from './js/helpers.js';

// ---- the checker: the guarantees of README.md, by brute force ----

const f32 = Math.fround;

/** Squared distance in double of points i of a and j of b, as the C core computes it. */
function d2(a, i, as, b, j, bs, dim) {
  const dx = f32(a[i * as]) - f32(b[j * bs]);
  const dy = f32(a[i * as + 1]) - f32(b[j * bs + 1]);
  let d = dx * dx + dy * dy;
  if (dim === 3) {
    const dz = f32(a[i * as + 2]) - f32(b[j * bs + 2]);
    d += dz * dz;
  }
  return d;
}

/** The precise rule by brute force: each point merges into the earliest representative within r. */
export function naiveRemap(points, dim, stride, radius) {
  const n = points.length / stride;
  const r = f32(radius);
  const reps = [];
  const remap = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    let q = 0;
    while (q < reps.length && !(d2(points, i, stride, points, reps[q], stride, dim) <= r * r)) q++;
    if (q === reps.length) reps.push(i);
    remap[i] = q;
  }
  return remap;
}

const keyOf = (points, i, stride, dim) => {
  let key = '';
  for (let a = 0; a < dim; a++) key += `${f32(points[i * stride + a]) + 0},`; // -0 + 0 = +0
  return key;
};

/** The loose store by its definition, from the cells the module says a method searches. */
export function looseRemap(points, dim, stride, radius, method) {
  const n = points.length / stride;
  const exact = new Map();
  const stored = new Map();
  const remap = new Uint32Array(n);
  let count = 0;
  for (let i = 0; i < n; i++) {
    const key = keyOf(points, i, stride, dim);
    if (exact.has(key)) {
      remap[i] = exact.get(key);
      continue;
    }
    const point = Array.from({ length: dim }, (_, a) => f32(points[i * stride + a]));
    const { keys } = cells(point, { method, dim, radius });
    let rep;
    for (let k = 0; k < keys.length / 3 && rep === undefined; k++) rep = stored.get(`${keys[3 * k]},${keys[3 * k + 1]},${keys[3 * k + 2]}`);
    if (rep === undefined) {
      rep = count++;
      stored.set(`${keys[0]},${keys[1]},${keys[2]}`, rep);
    }
    exact.set(key, rep);
    remap[i] = rep;
  }
  return remap;
}

const CELL_METHODS = new Set(['grid-r', 'grid-2r', 'hex', 'bcc']);

/**
 * Checks a weld result against guarantees 1-4 and, where one exists, against the exact reference
 * of its method (the naive result when R = r; the loose store rebuilt from cells()). Returns the
 * problems found, at most 5 (an empty array when all hold).
 */
export function weldProblems(points, result, { dim = 3, stride = dim, radius, store = 'loose', reference = true }) {
  const problems = [];
  const n = points.length / stride;
  const r = f32(radius);
  const { remap, count, positions, method } = result;
  if (remap.length !== n) return [`remap has ${remap.length} entries for ${n} points`];
  if (positions.length !== count * dim) problems.push(`${positions.length} position values for ${count} outputs`);
  // 4: dense, first appearance; kept positions are the first inputs, bit for bit (the sign of 0 too)
  let next = 0;
  for (let i = 0; i < n && problems.length < 5; i++) {
    if (remap[i] > next) problems.push(`remap[${i}] = ${remap[i]} skips ahead of ${next}`);
    if (remap[i] === next) {
      for (let a = 0; a < dim; a++)
        if (!Object.is(positions[next * dim + a], f32(points[i * stride + a]))) problems.push(`output ${next} is not input ${i}`);
      next++;
    }
  }
  if (next !== count) problems.push(`count ${count}, but ${next} outputs used`);
  if (problems.length) return problems.slice(0, 5);
  // 1: no two outputs within r
  if (count <= 3000) {
    for (let a = 0; a < count && problems.length < 5; a++)
      for (let b = a + 1; b < count; b++)
        if (d2(positions, a, dim, positions, b, dim, dim) <= r * r) problems.push(`outputs ${a} and ${b} within r`);
  } else if (countClosePairs(positions, { dim, radius: r, limit: 1 }) !== 0) problems.push('outputs within r');
  // 2: every input within R of its output
  const R = bound({ method, store, dim, radius: r });
  for (let i = 0; i < n && problems.length < 5; i++)
    if (Math.sqrt(d2(points, i, stride, positions, remap[i], dim, dim)) > R) problems.push(`point ${i} moved farther than R = ${R}`);
  // 3: identical positions share an output
  const seen = new Map();
  for (let i = 0; i < n && problems.length < 5; i++) {
    const key = keyOf(points, i, stride, dim);
    if (seen.has(key) && seen.get(key) !== remap[i]) problems.push(`identical points ${seen.get(key)} and ${i} split`);
    if (!seen.has(key)) seen.set(key, remap[i]);
  }
  // the reference
  if (reference && problems.length === 0) {
    const precise = R <= r;
    const ref = precise ? naiveRemap(points, dim, stride, r) : CELL_METHODS.has(method) && r > 0 ? looseRemap(points, dim, stride, r, method) : null;
    if (ref) for (let i = 0; i < n && problems.length < 5; i++) if (ref[i] !== remap[i]) problems.push(`remap[${i}] = ${remap[i]}, the ${precise ? 'precise' : 'loose'} reference gives ${ref[i]}`);
  }
  return problems.slice(0, 5);
}

// ---- random data ----

const methodsFor = (dim) => methods.filter((m) => !(m === 'hex' && dim !== 2) && !(m === 'bcc' && dim !== 3));

/** Points of one of several shapes, stride floats apart (the padding is NaN: never read). */
function makePoints(random, n, dim, stride, r) {
  const points = new Float32Array(n * stride).fill(NaN);
  const shape = Math.floor(random() * 6);
  const extent = [1, 10, 1000][Math.floor(random() * 3)] * r;
  for (let i = 0; i < n; i++) {
    const at = i * stride;
    const earlier = i > 0 ? Math.floor(random() * i) * stride : -1;
    for (let a = 0; a < dim; a++) {
      let v;
      if (shape === 0) v = random() * extent; // uniform
      else if (shape === 1) v = Math.round(random() * 16) * r * 0.5; // lattice at r/2: points exactly r apart
      else if (shape === 2 && earlier >= 0) v = random() < 0.5 ? points[earlier + a] : (random() - 0.5) * 4 * r; // duplicates
      else if (shape === 3 && earlier >= 0) v = points[earlier + a] + (random() - 0.5) * r; // clusters
      else if (shape === 4) v = (random() < 0.5 ? -0 : 0) + (random() < 0.3 ? 0 : Math.round(random() * 3) * r); // signed zeros
      else v = random() * extent + 1e4 * r; // away from the origin
      points[at + a] = v;
    }
    if (shape === 2 && earlier >= 0 && random() < 0.3) for (let a = 0; a < dim; a++) if (points[at + a] === 0) points[at + a] = -0;
  }
  return points;
}

// ---- the soak ----

/** Bytes in use that the end of a soak may exceed its warm-up by: fragmentation, not leaks. */
export const LEAK_SLACK = 64 * 1024;

const gcFunction = (() => {
  if (typeof globalThis.gc === 'function') return globalThis.gc;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc');
})();

/**
 * The bytes of the module's memory in use, to within its fragmentation: the memory's size less
 * what can be allocated in it, in 1 KiB blocks, before it has to grow. The memory's size alone
 * shows only leaks larger than the free space the largest call left behind; this shows a leak of
 * a few bytes a call within a few thousand calls. The probe grows the memory once (by the block
 * that did not fit), which changes neither its size nor the bytes in use seen next time.
 */
export function bytesInUse() {
  const size = memoryBytes();
  const held = [];
  for (;;) {
    const block = new PointBuffer(256); // 1 KiB
    if (memoryBytes() !== size) {
      block.free();
      break;
    }
    held.push(block);
  }
  for (const block of held) block.free();
  return size - held.length * 1024;
}

/**
 * Runs `welds` operations (or for `seconds`, whichever ends first) after a warm-up of
 * `warmup` operations, and returns the statistics. Throws on the first problem.
 */
export async function soak({ welds = 300000, seconds = Infinity, warmup = Math.max(2000, Math.floor(welds / 10)), seed = 1, log = () => {} } = {}) {
  await ready;
  const random = mulberry32(seed);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const stats = { welds: 0, points: 0, errors: 0, welders: 0, dropped: 0, meshes: 0, checked: 0, memoryAfterWarmup: 0, memoryAtEnd: 0, inUseAfterWarmup: 0, inUseAtEnd: 0 };
  const dropped = collector(gcFunction); // welders dropped without dispose()
  const fail = (what, problems, extra) => {
    throw new Error(`soak: ${what}: ${problems.join('; ')} ${extra ? JSON.stringify(extra) : ''}`);
  };
  const expectThrow = (what, fn, type, pattern) => {
    try {
      fn();
    } catch (e) {
      if (!(e instanceof type) || !pattern.test(e.message)) fail(what, [`threw ${e.constructor.name}: ${e.message}`]);
      stats.errors++;
      return;
    }
    fail(what, ['did not throw']);
  };
  // the largest weld first, with every method and store: the memory the rest needs
  const largest = new Float32Array(3 * 50000).map(random);
  for (const method of methodsFor(3).filter((m) => m !== 'naive'))
    for (const store of stores) weld(largest, { radius: 0.001, method, store });
  const start = Date.now();
  for (let i = 0; i < warmup + welds; i++) {
    if (i === warmup) {
      await dropped.settle();
      stats.inUseAfterWarmup = bytesInUse();
      stats.memoryAfterWarmup = memoryBytes();
    }
    if (i > warmup && Date.now() - start > seconds * 1000) break;
    if (i % 1000 === 999) await dropped.settle();
    const roll = random();
    const dim = random() < 0.5 ? 2 : 3;
    const r = pick([1e-4, 0.01, 0.25, 1, 40]);
    if (roll < 0.8) {
      // a weld, most of them tiny; a few large ones checked without the quadratic reference
      const size = random();
      const n = size < 0.75 ? Math.floor(random() * 12) : size < 0.97 ? 12 + Math.floor(random() * 200) : 200 + Math.floor(random() * 20000);
      const stride = random() < 0.8 ? dim : dim + 1 + Math.floor(random() * 3);
      const method = pick(methodsFor(dim));
      const store = pick(stores);
      const points = makePoints(random, n, dim, stride, r);
      const options = { dim, radius: r, method: method === 'naive' && n > 2000 ? 'kdtree' : method, store, stride };
      const result = weld(points, options);
      const problems = weldProblems(points, result, { dim, stride, radius: r, store, reference: n <= 400 });
      if (problems.length) fail(`weld of ${n} points`, problems, options);
      stats.welds++;
      stats.points += n;
      stats.checked++;
    } else if (roll < 0.87) {
      // an error of some kind; the module must keep working
      const kind = Math.floor(random() * 8);
      if (kind === 0) expectThrow('NaN', () => weld([0, 0, 0, 1, NaN, 1], { radius: r }), RangeError, /point 1 has a non-finite coordinate y = NaN/);
      else if (kind === 1) expectThrow('radius', () => weld([0, 0, 0], { radius: -r }), RangeError, /radius/);
      else if (kind === 2) expectThrow('stride', () => weld(new Float32Array(7), { radius: r }), RangeError, /not a multiple of the stride/);
      else if (kind === 3) expectThrow('range', () => weld([0, 0, 3e38], { radius: 1e-6, method: 'grid-2r' }), RangeError, /too large for the radius/);
      else if (kind === 4) expectThrow('type', () => weld(new BigInt64Array(3), { radius: r }), TypeError, /points must be a Float32Array, .* got a BigInt64Array/);
      else if (kind === 5) expectThrow('size', () => weld(new Array(3 * 2 ** 30), { radius: r }), RangeError, /out of memory/);
      else if (kind === 6) expectThrow('index', () => weldMesh(new Float32Array(9), [0, 1, 5], { radius: r }), RangeError, /indices\[2\] = 5 is out of range/);
      else {
        const w = new Welder({ dim: 3, radius: r });
        w.add([0, 0, 0]);
        expectThrow('welder NaN', () => w.add([1, 1, 1, Infinity, 0, 0]), RangeError, /Welder.add: point 1 has a non-finite coordinate x = Infinity/);
        if (w.count !== 1) fail('welder after error', [`count ${w.count}`]);
        w.dispose();
      }
    } else if (roll < 0.97) {
      // an incremental welder fed a few batches: the concatenation is the one-shot weld
      const method = pick(methodsFor(dim));
      const store = pick(stores);
      const w = new Welder({ dim, radius: r, method, store });
      stats.welders++;
      const all = [];
      const remaps = [];
      const batches = 1 + Math.floor(random() * 4);
      for (let b = 0; b < batches; b++) {
        const points = makePoints(random, Math.floor(random() * 40), dim, dim, r);
        remaps.push(...w.add(points));
        all.push(...points);
      }
      const one = weld(all, { dim, radius: r, method, store });
      if (one.remap.length !== remaps.length || one.remap.some((v, k) => v !== remaps[k]) || w.count !== one.count) {
        fail('welder', ['concatenated remaps differ from the one-shot weld'], { method, store, dim, r });
      }
      if (random() < 0.5) w.dispose();
      else dropped.drop(w); // the garbage collector frees it
    } else {
      // a mesh: a soup or an indexed buffer, with attributes and tolerances
      const n = 3 * (1 + Math.floor(random() * 30));
      const positions = makePoints(random, n, 3, 3, r);
      const normal = new Float32Array(n * 3).map(() => Math.round(random() * 2) / 2);
      const indices = random() < 0.5 ? null : Uint32Array.from({ length: 3 * Math.floor(random() * 20) }, () => Math.floor(random() * n));
      const mesh = weldMesh(positions, indices, { radius: r, attributes: { normal: { array: normal, itemSize: 3 } }, tolerances: random() < 0.5 ? { normal: 0.1 } : undefined });
      const triangles = (indices ? indices.length : n) / 3;
      if (mesh.triangleCount + mesh.degenerateRemoved !== triangles || mesh.indices.some((v) => v >= mesh.vertexCount)) {
        fail('weldMesh', ['triangles lost or indices out of range']);
      }
      stats.meshes++;
    }
  }
  await dropped.settle();
  stats.dropped = dropped.dropped;
  stats.memoryAtEnd = memoryBytes();
  stats.inUseAtEnd = bytesInUse();
  stats.seconds = (Date.now() - start) / 1000;
  log(stats);
  return stats;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const at = args.indexOf(`--${name}`);
    return at >= 0 ? Number(args[at + 1]) : fallback;
  };
  const welds = option('welds', 500000);
  const seconds = option('seconds', Infinity);
  const seed = option('seed', 1);
  console.log(`soak: ${welds} operations (seed ${seed}${Number.isFinite(seconds) ? `, at most ${seconds} s` : ''})`);
  const stats = await soak({ welds, seconds, seed });
  console.log(
    `${stats.welds} welds of ${stats.points} points checked, ${stats.errors} errors thrown as expected, ` +
      `${stats.welders} welders (${stats.dropped} dropped without dispose), ${stats.meshes} meshes, in ${stats.seconds} s`,
  );
  console.log(`WebAssembly memory: ${stats.memoryAfterWarmup} bytes after the warm-up, ${stats.memoryAtEnd} at the end`);
  console.log(`in use: ${stats.inUseAfterWarmup} bytes after the warm-up, ${stats.inUseAtEnd} at the end`);
  const flat = stats.memoryAtEnd === stats.memoryAfterWarmup;
  const kept = stats.inUseAtEnd - stats.inUseAfterWarmup <= LEAK_SLACK;
  console.log(flat && kept ? 'memory flat: 1 passed, 0 failed' : 'memory GREW: 0 passed, 1 failed');
  process.exit(flat && kept ? 0 : 1);
}
