// Hostile inputs through the JavaScript API: the rows of the table in README.md (Robustness), each
// with the outcome it must get, a specific error or a specific result checked by brute force
// (tests/soak.mjs, weldProblems), for every method and store. tests/c/test_hostile.c has the same
// rows for the C library. The last test fills the WebAssembly memory: keep it last.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ready, weld, Welder, PointBuffer, weldMesh, countClosePairs, memoryBytes, methods, stores, bound, boundaryEdges } from '../../js/index.js';
import { weldProblems, naiveRemap } from '../soak.mjs';

await ready;

const FLT_MAX = 3.4028234663852886e38;
const FLT_MIN = 1.1754943508222875e-38;
const DENORM_MIN = 1.401298464324817e-45;
const AXES = ['x', 'y', 'z'];
const methodsFor = (dim) => methods.filter((m) => !(m === 'hex' && dim !== 2) && !(m === 'bcc' && dim !== 3));
const CELL_GRIDS = new Set(['grid-r', 'grid-2r', 'hex', 'bcc']); // the grids whose range is known exactly
const isPrecise = (result, store, dim, radius) => bound({ method: result.method, store, dim, radius }) <= Math.fround(radius);
// what auto may run on coordinates beyond a 2r grid's range: the kd-tree, or a precise grid sized to the data
const autoBeyond = (method) =>
  method === 'kdtree' || (method !== 'auto' && !CELL_GRIDS.has(method) && bound({ method, store: 'loose', dim: 3, radius: 1 }) === 1);

/** Every method and store in both dimensions. */
function* everyWeld() {
  for (const dim of [2, 3]) for (const method of methodsFor(dim)) for (const store of stores) yield { dim, method, store };
}

/** weld() that must succeed and pass the checker; returns the result. */
function weldChecked(points, options) {
  const result = weld(points, options);
  const problems = weldProblems(points, result, options);
  assert.deepEqual(problems, [], `${options.method}/${options.store} dim ${options.dim}: ${problems.join('; ')}`);
  return result;
}

function throwsNaming(fn, type, pattern) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof type, `expected a ${type.name}, got ${e.constructor.name}: ${e.message}`);
    assert.match(e.message, pattern);
    assert.ok(e.message.startsWith('meshweld: '), e.message);
    return true;
  });
}

test('empty input: no outputs, from every entry point', () => {
  for (const { dim, method, store } of everyWeld()) {
    const r = weld(new Float32Array(0), { dim, radius: 1, method, store });
    assert.equal(r.count, 0);
    assert.equal(r.remap.length, 0);
    assert.equal(weld([], { dim, radius: 0, method, store }).count, 0);
  }
  const w = new Welder({ radius: 1 });
  assert.equal(w.add([]).length, 0);
  assert.equal(w.count, 0);
  assert.equal(w.positions().length, 0);
  w.dispose();
  assert.equal(countClosePairs([], { radius: 1 }), 0);
  const soup = weldMesh(new Float32Array(0), null, { radius: 1 });
  assert.equal(soup.vertexCount, 0);
  assert.equal(soup.triangleCount, 0);
  assert.equal(weldMesh(new Float32Array(9), new Uint32Array(0), { radius: 1 }).triangleCount, 0);
});

test('one point: one output, the point itself', () => {
  for (const { dim, method, store } of everyWeld())
    for (const radius of [0, 0.5, 1e6]) {
      const r = weldChecked([1.5, -2.25, 1e-3].slice(0, dim), { dim, radius, method, store });
      assert.deepEqual([...r.remap], [0]);
      assert.deepEqual([...r.positions], [1.5, -2.25, Math.fround(1e-3)].slice(0, dim));
    }
});

test('all points identical: one output, every radius', () => {
  const points = new Float32Array(3 * 1000);
  for (let i = 0; i < 1000; i++) points.set([0.1, -7, 3e5], 3 * i);
  for (const { dim, method, store } of everyWeld())
    for (const radius of [0, 1e-3, 1e3]) {
      const r = weldChecked(points, { dim, stride: 3, radius, method, store });
      assert.equal(r.count, 1);
      assert.ok(r.remap.every((v) => v === 0));
    }
  const w = new Welder({ radius: 0.01 });
  for (let at = 0; at < 3000; at += 300) w.add(points.subarray(at, at + 300));
  assert.equal(w.count, 1);
  w.dispose();
});

test('NaN, +Infinity, -Infinity in any coordinate: a RangeError naming the point, the axis and the value', () => {
  for (const dim of [2, 3])
    for (const bad of [NaN, Infinity, -Infinity])
      for (const point of [0, 5, 9])
        for (let axis = 0; axis < dim; axis++) {
          const points = new Float32Array(10 * dim).map((_, i) => (i % 5) * 0.1);
          points[point * dim + axis] = bad;
          const named = new RegExp(`point ${point} has a non-finite coordinate ${AXES[axis]} = ${bad};`);
          for (const method of methodsFor(dim))
            for (const store of stores) throwsNaming(() => weld(points, { dim, radius: 0.1, method, store }), RangeError, named);
          throwsNaming(() => weld(points, { dim, radius: 0 }), RangeError, named);
          const w = new Welder({ dim, radius: 0.1 });
          w.add(new Float32Array(dim));
          throwsNaming(() => w.add(points), RangeError, new RegExp(`Welder.add: ${named.source}`));
          assert.equal(w.count, 1, 'a refused batch changed the welder');
          w.dispose();
          if (dim === 3 && point < 9) throwsNaming(() => weldMesh(points.subarray(0, 27), null, { radius: 0.1 }), RangeError, new RegExp(`weldMesh: vertex ${named.source.slice('point '.length)}`));
          // proposed: countClosePairs names the point too (today: "countClosePairs: non-finite coordinate")
          throwsNaming(() => countClosePairs(points, { dim, radius: 0.1 }), RangeError, named);
        }
});

test('-0 next to +0: one position; the output keeps the first input, sign and all', () => {
  const zeros = [0, 0, 0, -0, 0, 0, 0, -0, 0, 0, 0, -0, -0, -0, -0];
  const reversed = [-0, -0, -0, 0, 0, -0, 0, -0, 0, -0, 0, 0, 0, 0, 0];
  for (const { dim, method, store } of everyWeld())
    for (const radius of [0, 1]) {
      assert.equal(weldChecked(zeros, { dim, stride: 3, radius, method, store }).count, 1);
      const r = weldChecked(reversed, { dim, stride: 3, radius, method, store });
      assert.ok(Object.is(r.positions[0], -0) && Object.is(r.positions[1], -0));
    }
  assert.equal(countClosePairs(zeros, { radius: 0 }), 10);
  const w = new Welder({ radius: 0 });
  w.add([0, 0, 0]);
  assert.deepEqual([...w.add([-0, -0, -0])], [0]);
  w.dispose();
  const mesh = weldMesh(new Float32Array(zeros.slice(0, 9)), null, {
    radius: 0,
    attributes: { normal: { array: new Float32Array([0, 0, 1, -0, 0, 1, 0, -0, 1]), itemSize: 3 } },
    tolerances: { normal: 0 },
  });
  assert.equal(mesh.vertexCount, 1);
});

test('denormals: radius 0 keeps distinct ones apart, the smallest radius merges them, coordinates of 1 leave every grid', () => {
  const row = new Float32Array([0, 0, 0, -0, 0, 0, DENORM_MIN, 0, 0, 2 * DENORM_MIN, 0, 0, -DENORM_MIN, 0, 0]);
  for (const { dim, method, store } of everyWeld()) {
    const exact = weldChecked(row, { dim, stride: 3, radius: 0, method, store });
    assert.equal(exact.count, 4);
    const smallest = weldChecked(row, { dim, stride: 3, radius: DENORM_MIN, method, store });
    if (isPrecise(smallest, store, dim, DENORM_MIN)) assert.deepEqual([...smallest.remap], [0, 0, 0, 1, 0]);
    assert.equal(weldChecked(row, { dim, stride: 3, radius: 1e-3, method, store }).count, 1);
  }
  // Float64Array values below the float32 range round to (signed) zero
  assert.equal(weld(new Float64Array([1e-46, 0, 0, 0, 0, 0, -1e-46, 0, 0]), { radius: 0 }).count, 1);
  for (const method of ['grid-r', 'grid-2r', 'bcc'])
    throwsNaming(() => weld([1, 1, 1], { radius: DENORM_MIN, method }), RangeError, /point 0 coordinate x = 1 is too large for the radius/);
  const auto = weldChecked([1, 1, 1, 1, 1, 1.0000001], { radius: DENORM_MIN });
  assert.equal(auto.count, 2);
});

test('coordinates near FLT_MAX with r tiny: grid methods refuse them by name, auto and grid (on the kd-tree) and the kd-tree weld them', () => {
  const points = [1, 2, 3, FLT_MAX, -FLT_MAX, 0, FLT_MAX, -FLT_MAX, 0, -FLT_MAX, FLT_MAX, FLT_MAX, 0.5, 0.5, 3e38];
  for (const { dim, method, store } of everyWeld()) {
    const options = { dim, stride: 3, radius: 1e-3, method, store };
    if (CELL_GRIDS.has(method)) {
      throwsNaming(() => weld(points, options), RangeError, /point 1 coordinate x = 3.4028234663852886e\+38 is too large for the radius: grid cell indices would overflow; use method 'kdtree' or 'auto'/);
      continue;
    }
    let r;
    try {
      r = weldChecked(points, options);
    } catch (e) {
      if (method === 'auto' || method === 'naive' || method === 'kdtree' || !/too large for the radius/.test(e.message)) throw e;
      continue; // another grid asked by name may refuse them too
    }
    assert.deepEqual([...r.remap], [0, 1, 1, 2, 3]);
    if (method === 'auto') assert.notEqual(r.method, 'auto');
  }
  assert.ok(autoBeyond(weld(points, { radius: 1e-3 }).method));
  const w = new Welder({ radius: 1e-3 });
  w.add([1, 2, 3]);
  assert.notEqual(w.method, 'kdtree');
  assert.deepEqual([...w.add(points.slice(3))], [1, 1, 2, 3]);
  assert.ok(autoBeyond(w.method), w.method);
  w.dispose();
  // a grid welder, asked by name, leaves for the kd-tree as auto does (the same result)
  const grid = new Welder({ radius: 1e-3, method: 'grid' });
  grid.add([1, 2, 3]);
  assert.equal(grid.method, 'grid');
  assert.deepEqual([...grid.add(points.slice(3))], [1, 1, 2, 3]);
  assert.equal(grid.method, 'kdtree');
  grid.dispose();
  const g = new Welder({ radius: 1e-3, method: 'grid-r' });
  g.add([1, 2, 3]);
  throwsNaming(() => g.add(points.slice(3)), RangeError, /Welder.add: point 0 coordinate x/);
  assert.equal(g.count, 1);
  g.dispose();
  assert.ok(autoBeyond(weldMesh(new Float32Array(points.slice(0, 9)), null, { radius: 1e-3 }).method));
});

test('r near FLT_MIN: accepted; a radius that rounds to 0 as a float32 is refused', () => {
  const row = [0, 0, 0, FLT_MIN, 0, 0, 2 * FLT_MIN, 0, 0, -FLT_MIN, 0, 0];
  for (const { dim, method, store } of everyWeld()) {
    const r = weldChecked(row, { dim, stride: 3, radius: FLT_MIN, method, store });
    if (isPrecise(r, store, dim, FLT_MIN)) assert.deepEqual([...r.remap], [0, 0, 1, 0]);
  }
  throwsNaming(() => weld(row, { radius: 1e-46 }), RangeError, /radius 1e-46 rounds to 0 as a float32; use radius 0/);
  throwsNaming(() => weld([1, 0, 0], { radius: FLT_MIN, method: 'hex', dim: 2, stride: 3 }), RangeError, /too large for the radius/);
  assert.equal(weldChecked([1, 0, 0, 1, 0, 0], { radius: FLT_MIN }).count, 1);
});

test('r larger than the whole extent: one output, the first point', () => {
  const points = new Float32Array(3 * 500).map((_, i) => Math.sin(i * 12.9898) * 0.999);
  const wide = points.map((v) => v * 1e37);
  for (const { dim, method, store } of everyWeld())
    for (const [data, radius] of [[points, 4], [wide, 1e38], [wide, FLT_MAX]]) {
      const r = weldChecked(data, { dim, stride: 3, radius, method, store });
      assert.equal(r.count, 1, `${method}/${store} r ${radius}`);
    }
  throwsNaming(() => weld(points, { radius: 3.5e38 }), RangeError, /radius must be a finite number >= 0 within the float32 range, got 3.5e\+38/);
});

test('the boundary of "within r": exactly r merges, a float step beyond does not, nor does a distance that only rounds to r', () => {
  const rounding = [0, 0, 2 ** -26 * 1.15625, 1]; // squared distance 1 + 2^-52 > 1, its square root rounds to 1
  for (const { dim, method, store } of everyWeld()) {
    assert.equal(weldChecked([0, 0, 0, 0.25, 0, 0], { dim, stride: 3, radius: 0.25, method, store }).count, 1);
    const beyond = weldChecked([0, 0, 0, Math.fround(0.25 + 2 ** -25), 0, 0], { dim, stride: 3, radius: 0.25, method, store });
    if (isPrecise(beyond, store, dim, 0.25)) assert.equal(beyond.count, 2);
    if (dim === 2) {
      const r = weldChecked(rounding, { dim, radius: 1, method, store });
      if (isPrecise(r, store, dim, 1)) assert.equal(r.count, 2);
    }
  }
  assert.equal(countClosePairs(rounding, { dim: 2, radius: 1 }), 0);
});

test('strides: smaller than dim or not an integer a RangeError, not a number a TypeError, naming it; padding is never read', () => {
  for (const stride of [0, 1, 2, -3, 2.5, NaN, Infinity, '3', null]) {
    const Type = typeof stride === 'number' ? RangeError : TypeError;
    throwsNaming(() => weld(new Float32Array(12), { radius: 1, stride }), Type, /stride must be an integer number of values >= dim \(3\)/);
    throwsNaming(() => new Welder({ radius: 1, stride }), Type, /stride/);
    throwsNaming(() => countClosePairs(new Float32Array(12), { radius: 1, stride }), Type, /stride/);
  }
  // interleaved vertices whose padding is NaN weld like the packed positions
  const packed = [0, 0, 0, 1, 2, 3, 0, 0, 0, 1, 2, 3.05];
  const interleaved = new Float32Array(4 * 8).fill(NaN);
  for (let i = 0; i < 4; i++) interleaved.set(packed.slice(3 * i, 3 * i + 3), 8 * i);
  for (const { dim, method, store } of everyWeld()) {
    if (dim !== 3) continue;
    const a = weldChecked(interleaved, { radius: 0.1, stride: 8, method, store });
    assert.deepEqual([...a.remap], [...weld(packed, { radius: 0.1, method, store }).remap]);
  }
  // a float32 view cannot be misaligned in JS; other element types are refused by name
  throwsNaming(() => weld(new BigUint64Array(12), { radius: 1 }), TypeError, /got a BigUint64Array of 12 values/);
  throwsNaming(() => weld(new DataView(new ArrayBuffer(12)), { radius: 1 }), TypeError, /got a DataView/);
});

test('lengths that cannot be allocated: a RangeError naming the bytes, before anything is allocated', () => {
  const before = memoryBytes();
  const huge = new Array(3 * 2 ** 30); // 2^30 points, sparse: costs nothing here, 12 GiB there
  throwsNaming(() => weld(huge, { radius: 1 }), RangeError, /out of memory: 12884901888 bytes of WebAssembly memory needed, more than the 4 GiB address space/);
  throwsNaming(() => new Welder({ radius: 1 }).add(huge), RangeError, /out of memory: 12884901888 bytes/);
  throwsNaming(() => countClosePairs(huge, { radius: 1 }), RangeError, /out of memory: 12884901888 bytes/);
  throwsNaming(() => weld(new Array(2 ** 32 - 1), { radius: 1, stride: 3 }), RangeError, /out of memory: 17179869180 bytes/);
  throwsNaming(() => new PointBuffer(2 ** 30), RangeError, /out of memory: 4294967296 bytes/);
  throwsNaming(() => new PointBuffer(2 ** 53), RangeError, /out of memory/);
  throwsNaming(() => new PointBuffer(-1), RangeError, /got -1/);
  assert.equal(memoryBytes(), before, 'memory grew for a request refused up front');
  assert.equal(weld([0, 0, 0, 0, 0, 1e-4], { radius: 1e-3 }).count, 1);
});

test('index buffers: out-of-range indices and counts not divisible by 3 are refused by name', () => {
  const positions = new Float32Array(12).map((_, i) => i);
  for (const [indices, at, value] of [
    [new Uint32Array([0, 1, 2, 1, 2, 4]), 5, 4],
    [new Uint32Array([0, 1, 2 ** 32 - 1]), 2, 2 ** 32 - 1],
    [new Uint16Array([9, 1, 2]), 0, 9],
    [[0, 1, 2, 3, 3, 1000], 5, 1000],
  ])
    throwsNaming(() => weldMesh(positions, indices, { radius: 0.1 }), RangeError, new RegExp(`indices\\[${at}\\] = ${value} is out of range \\(4 vertices\\)`));
  for (const length of [1, 2, 4, 5, 7])
    throwsNaming(() => weldMesh(positions, new Uint32Array(length), { radius: 0.1 }), RangeError, new RegExp(`index count ${length} is not a multiple of 3`));
  throwsNaming(() => weldMesh(positions, null, { radius: 0.1 }), RangeError, /unindexed vertex count 4 is not a multiple of 3/);
  throwsNaming(() => weldMesh(positions, [0, -1, 2], { radius: 0.1 }), RangeError, /indices\[1\] must be a vertex index \(an integer >= 0\), got -1/);
  throwsNaming(() => weldMesh(positions, [0, 1.5, 2], { radius: 0.1 }), RangeError, /indices\[1\] must be a vertex index \(an integer >= 0\), got 1.5/);
  throwsNaming(() => weldMesh(positions, [0, 1, 2 ** 32], { radius: 0.1 }), RangeError, /indices\[2\] must be a vertex index/);
  throwsNaming(() => weldMesh(positions, [0, '1', 2], { radius: 0.1 }), TypeError, /indices\[1\] must be a vertex index \(an integer >= 0\), got the string "1"/);
  throwsNaming(() => weldMesh(positions, new Int32Array(3), { radius: 0.1 }), TypeError, /got an Int32Array/);
  throwsNaming(() => weldMesh(positions, new Float32Array(3), { radius: 0.1 }), TypeError, /got a Float32Array of 3 values/);
  const ok = weldMesh(positions, new Uint16Array([0, 1, 2, 2, 1, 0, 3, 3, 3]), { radius: 0.1 });
  assert.deepEqual([...ok.indices], [0, 1, 2, 2, 1, 0]);
  assert.equal(ok.degenerateRemoved, 1);
  assert.ok(ok.indices instanceof Uint16Array);
});

test('Float64Array: rounded to float32, the same weld; values beyond the float32 range are non-finite by name', () => {
  const random = Float64Array.from({ length: 300 }, (_, i) => Math.sin(i) * 10);
  for (const { dim, method, store } of everyWeld()) {
    const a = weld(random, { dim, stride: 3, radius: 0.3, method, store });
    const b = weld(Float32Array.from(random), { dim, stride: 3, radius: 0.3, method, store });
    assert.deepEqual([...a.remap], [...b.remap]);
    assert.deepEqual(weldProblems(Float32Array.from(random), a, { dim, stride: 3, radius: 0.3, store }), []);
  }
  throwsNaming(() => weld(new Float64Array([0, 0, 0, 0, -1e39, 0]), { radius: 1 }), RangeError, /point 1 has a non-finite coordinate y = -1e\+39 \(beyond the float32 range\)/);
  assert.ok(Object.is(weld(new Float64Array([-0, 0, 0]), { radius: 0 }).positions[0], -0));
});

test('plain arrays: numbers weld; holes, strings, BigInts and nested arrays are refused by index', () => {
  const list = Array.from({ length: 90 }, (_, i) => Math.cos(i) * 3);
  for (const { dim, method, store } of everyWeld()) weldChecked(list, { dim, stride: 3, radius: 0.5, method, store });
  throwsNaming(() => weld([0, , 0], { radius: 1 }), TypeError, /points\[1\] must be a number, got undefined/);
  throwsNaming(() => weld([0, '1', 0], { radius: 1 }), TypeError, /points\[1\] must be a number, got the string "1"/);
  throwsNaming(() => weld([0, 0, 1n], { radius: 1 }), TypeError, /points\[2\] must be a number, got the bigint 1/);
  throwsNaming(() => weld([[0, 0, 0]], { radius: 1 }), RangeError, /length 1 is not a multiple of the stride 3/);
  throwsNaming(() => weld([[0], [0], [0]], { radius: 1 }), TypeError, /points\[0\] must be a number, got an array of 1 value/);
  throwsNaming(() => weld([0, null, 0], { radius: 1 }), TypeError, /points\[1\] must be a number, got null/);
  throwsNaming(() => weld([0, NaN, 0], { radius: 1 }), RangeError, /point 0 has a non-finite coordinate y = NaN/);
});

test('SharedArrayBuffer-backed arrays weld like any others, in every entry point', () => {
  const values = Array.from({ length: 60 }, (_, i) => Math.sin(i * 7) * 2);
  const f32 = new Float32Array(new SharedArrayBuffer(4 * 60));
  const f64 = new Float64Array(new SharedArrayBuffer(8 * 60));
  f32.set(values);
  f64.set(values);
  const expect = weld(Float32Array.from(values), { radius: 0.4 });
  assert.deepEqual([...weld(f32, { radius: 0.4 }).remap], [...expect.remap]);
  assert.deepEqual([...weld(f64, { radius: 0.4 }).remap], [...expect.remap]);
  const w = new Welder({ radius: 0.4 });
  assert.deepEqual([...w.add(f32)], [...expect.remap]);
  w.dispose();
  assert.equal(countClosePairs(f32, { radius: 0.4 }), countClosePairs(Float32Array.from(values), { radius: 0.4 }));
  const indices = new Uint32Array(new SharedArrayBuffer(4 * 18));
  indices.set(Array.from({ length: 18 }, (_, i) => (i * 7) % 20));
  const mesh = weldMesh(f32, indices, { radius: 0.4 });
  assert.deepEqual([...mesh.indices], [...weldMesh(Float32Array.from(values), Uint32Array.from(indices), { radius: 0.4 }).indices]);
});

test('detached buffers: a TypeError that says so, in every entry point, and nothing changes', () => {
  const detach = (array) => {
    structuredClone(array.buffer, { transfer: [array.buffer] });
    return array;
  };
  throwsNaming(() => weld(detach(new Float32Array(6)), { radius: 1 }), TypeError, /weld: points are a Float32Array over a detached ArrayBuffer/);
  throwsNaming(() => weld(detach(new Float64Array(6)), { radius: 1 }), TypeError, /weld: points are a Float64Array over a detached ArrayBuffer/);
  const w = new Welder({ radius: 1 });
  w.add([0, 0, 0]);
  throwsNaming(() => w.add(detach(new Float32Array(6))), TypeError, /Welder.add: points are a Float32Array over a detached ArrayBuffer/);
  assert.equal(w.count, 1);
  w.dispose();
  throwsNaming(() => countClosePairs(detach(new Float32Array(6)), { radius: 1 }), TypeError, /countClosePairs: points are a Float32Array over a detached/);
  throwsNaming(() => weldMesh(detach(new Float32Array(9)), null, { radius: 1 }), TypeError, /detached ArrayBuffer/);
  // the mesh's other buffers are named too
  throwsNaming(() => weldMesh(new Float32Array(9), detach(new Uint32Array(3)), { radius: 1 }), TypeError, /weldMesh: indices are a Uint32Array over a detached ArrayBuffer/);
  throwsNaming(
    () => weldMesh(new Float32Array(9), null, { radius: 1, attributes: { normal: { array: detach(new Float32Array(9)), itemSize: 3 } } }),
    TypeError,
    /weldMesh: attribute 'normal' is a Float32Array over a detached ArrayBuffer/,
  );
  // a fixed-length view of a resizable buffer shrunk below its end reads as empty: named too
  const shrunk = (Type, length) => {
    const buffer = new ArrayBuffer(length * Type.BYTES_PER_ELEMENT, { maxByteLength: 2 * length * Type.BYTES_PER_ELEMENT });
    const array = new Type(buffer, 0, length);
    buffer.resize(Type.BYTES_PER_ELEMENT);
    return array;
  };
  throwsNaming(() => weld(shrunk(Float32Array, 6), { radius: 1 }), TypeError, /^meshweld: weld: points are a Float32Array past the end of its resizable ArrayBuffer$/);
  throwsNaming(() => weldMesh(new Float32Array(9), shrunk(Uint32Array, 3), { radius: 1 }), TypeError, /weldMesh: indices are a Uint32Array past the end of its resizable ArrayBuffer/);
  throwsNaming(
    () => weldMesh(new Float32Array(9), null, { radius: 1, attributes: { normal: { array: shrunk(Float32Array, 9), itemSize: 3 } } }),
    TypeError,
    /weldMesh: attribute 'normal' is a Float32Array past the end of its resizable ArrayBuffer/,
  );
});

test('a view of the module\'s own memory (PointBuffer.array) welds like any Float32Array, even when the call grows the memory, and leaks nothing', () => {
  // points 1024 floats apart: few points, but a copy larger than the module's whole memory, so
  // that staging it must grow the memory (which detaches the view's buffer)
  const stride = 1024;
  const length = (Math.ceil(memoryBytes() / 4 / stride) + 1) * stride;
  const sizes = [];
  for (let round = 0; round < 3; round++) {
    const buffer = new PointBuffer(length);
    const view = buffer.array;
    for (let i = 0; i < length; i += stride) view.set([(i / stride) % 7, 0, 0], i);
    const direct = weld(buffer, { radius: 0.5, stride, store: 'precise' });
    const viaView = weld(view, { radius: 0.5, stride, store: 'precise' });
    assert.deepEqual([...viaView.remap], [...direct.remap]);

    assert.equal(direct.count, 7);
    buffer.free();
    sizes.push(memoryBytes());
  }
  assert.equal(sizes[2], sizes[1], `memory grew from ${sizes[1]} to ${sizes[2]} bytes: each call leaks`);
  // the same memory seen through another type (quantized values made in place): copied out before
  // the call allocates; its staged float32 copy is twice its bytes, more than the whole memory
  const shorts = Math.ceil(memoryBytes() / 2 / stride + 1) * stride;
  const buffer = new PointBuffer(shorts / 2);
  const int16 = new Int16Array(buffer.array.buffer, buffer.array.byteOffset, shorts);
  for (let i = 0; i < shorts; i += stride) int16.set([((i / stride) % 5) * 8000, 0, 0], i);
  const copy = int16.slice();
  const viaInt16 = weld(int16, { radius: 0.1, stride, normalized: true });
  assert.equal(int16.length, 0, 'the call grew the memory, which detached the view');
  assert.equal(viaInt16.count, 5);
  assert.deepEqual([...viaInt16.remap], [...weld(copy, { radius: 0.1, stride, normalized: true }).remap]);
  buffer.free();
  // a mesh's attributes in the module's memory, compared and carried, while the call grows it
  const n = Math.ceil(memoryBytes() / 12) + 1000;
  const values = new PointBuffer(n * 3);
  for (let i = 0; i < n * 3; i++) values.array[i] = (i % 7) * 0.25;
  const plain = values.array.slice();
  const positions = new Float32Array(n * 3).map((_, i) => i % 5);
  const mesh = (array) => weldMesh(positions, null, { radius: 0.1, primitive: 'points', attributes: { n: { array, itemSize: 3 }, m: { array: array.subarray(0, n), itemSize: 1 } }, tolerances: { n: 0.1 } });
  const inMemory = mesh(values.array);
  const expected = mesh(plain);
  assert.equal(inMemory.count, expected.count);
  assert.deepEqual([...inMemory.attributes.n.array], [...expected.attributes.n.array]);
  assert.deepEqual([...inMemory.attributes.m.array], [...expected.attributes.m.array]);
  values.free();
});

test('options and arguments of the wrong kind are refused by name', () => {
  throwsNaming(() => new Welder({ radius: 1 }).add([0, 0, 0], null), TypeError, /Welder.add: options must be an object, got null/);
  throwsNaming(() => weld([0, 0, 0], { radius: new Number(1) }), TypeError, /radius must be a finite number >= 0, got a Number/);
  // a value of the wrong type is a TypeError, a value of the right type out of range a RangeError
  throwsNaming(() => weld([0, 0, 0], { radius: 1, dim: '3' }), TypeError, /dim must be 2 or 3, got the string "3"/);
  throwsNaming(() => weld([0, 0, 0], { radius: 1, method: 3 }), TypeError, /method must be .* got 3/);
  throwsNaming(() => weld([0, 0, 0], { radius: 1, store: 1 }), TypeError, /store must be .* got 1/);
  throwsNaming(() => weld([0, 0, 0], { radius: 1, position: 1 }), TypeError, /position must be .* got 1/);
  throwsNaming(() => weld([0, 0, 0], { radius: 1, nonFinite: false }), TypeError, /nonFinite must be .* got the boolean false/);
  throwsNaming(() => countClosePairs([0, 0, 0], { radius: 1, limit: '1' }), TypeError, /limit must be an integer >= 0/);
  throwsNaming(() => countClosePairs([0, 0, 0], { radius: 1, limit: 1.5 }), RangeError, /limit must be an integer >= 0/);
  throwsNaming(() => new PointBuffer('3'), TypeError, /new PointBuffer: length must be an integer >= 0, got the string "3"/);
  // normalized is true or false, in every call that takes it (a string was once read as false by
  // weld and as true by Welder.add)
  const int16 = new Int16Array([32767, 0, 0, 0, 0, 0]);
  throwsNaming(() => weld(int16, { radius: 0.5, normalized: 'true' }), TypeError, /weld: normalized must be true or false, got the string "true"/);
  throwsNaming(() => new Welder({ radius: 0.5, normalized: 1 }), TypeError, /new Welder: normalized must be true or false, got 1/);
  throwsNaming(() => new Welder({ radius: 0.5 }).add(int16, { normalized: 'false' }), TypeError, /Welder.add: normalized must be true or false/);
  throwsNaming(() => countClosePairs(int16, { radius: 0.5, normalized: 'true' }), TypeError, /countClosePairs: normalized must be true or false/);
  throwsNaming(() => weldMesh([0, 0, 0], null, null), TypeError, /weldMesh: options must be an object, got null/);
  throwsNaming(() => weldMesh(new Float32Array(9), null, { radius: 1, tolerances: { normal: 0.1 } }), RangeError, /tolerance for 'normal', which is not among the attributes/);
  throwsNaming(
    () => weldMesh(new Float32Array(9), null, { radius: 1, attributes: { n: { array: new Float32Array(9), itemSize: 3 } }, tolerances: { n: NaN } }),
    RangeError,
    /tolerance of 'n' must be a finite number >= 0, got NaN/,
  );
  // a tolerance that rounds to 0 as a float32 would compare exactly without a word, as a radius would weld
  throwsNaming(
    () => weldMesh(new Float32Array(9), null, { radius: 1, attributes: { n: { array: new Float32Array(9), itemSize: 3 } }, tolerances: { n: 1e-50 } }),
    RangeError,
    /weldMesh: tolerance of 'n' 1e-50 rounds to 0 as a float32; use 0 to compare exactly/,
  );
  // null is a value of the wrong type, not a request for the default
  throwsNaming(() => weld([0, 0, 0], { radius: 1, dim: null }), TypeError, /weld: dim must be 2 or 3, got null/);
  throwsNaming(() => countClosePairs([0, 0, 0], { radius: 1, limit: null }), TypeError, /countClosePairs: limit must be an integer >= 0 \(0: no limit\), got null/);
  throwsNaming(() => new Welder({ radius: 1 }).add([0, 0, 0], { stride: null }), TypeError, /Welder.add: stride must be an integer number of values >= dim \(3\), got null/);
  // a limit past 2^32 is not read as its low 32 bits (2^32 + 1 once stopped the count at 1)
  assert.equal(countClosePairs([0, 0, 0, 0, 0, 0, 0, 0, 0], { radius: 1, limit: 2 ** 32 + 1 }), 3);
  // a tolerance names an attribute of the object itself, not one it inherits
  throwsNaming(() => weldMesh(new Float32Array(9), null, { radius: 1, attributes: {}, tolerances: { constructor: 1 } }), RangeError,
    /weldMesh: tolerance for 'constructor', which is not among the attributes \(none given\)/);
  throwsNaming(() => weldMesh(new Float32Array(9), null, { radius: 1, attributes: { n: { array: new BigInt64Array(3), itemSize: 1 } }, tolerances: { n: 0 } }), TypeError,
    /weldMesh: attribute 'n' is a BigInt64Array: a tolerance compares numbers/);
  throwsNaming(() => weldMesh(new Float32Array(9), null, { radius: 1, attributes: { n: { array: new Uint8Array(3), itemSize: 1, normalized: 'yes' } } }), TypeError,
    /weldMesh: attribute 'n': normalized must be true or false, got the string "yes"/);
  throwsNaming(() => boundaryEdges(null, 3e9), RangeError, /boundaryEdges: a soup of 3000000000 vertices has 3000000000 open edges, more than one array can list/);
  const w = new Welder({ radius: 1 });
  w.dispose();
  w.dispose();
  for (const [who, use] of [['Welder.add', () => w.add([0, 0, 0])], ['Welder.count', () => w.count], ['Welder.method', () => w.method], ['Welder.positions', () => w.positions()]]) {
    assert.throws(use, { message: `meshweld: ${who}: this Welder was disposed` });
  }
  const buffer = new PointBuffer(3);
  buffer.free();
  assert.throws(() => weld(buffer, { radius: 1 }), { message: 'meshweld: weld: this PointBuffer was freed' });
  assert.throws(() => buffer.array, { message: 'meshweld: PointBuffer.array: this PointBuffer was freed' });
});

// Keep last: it fills the WebAssembly memory to its 4 GiB limit (address space only: the pages
// are never touched).
/** 2D points whose float bits collide in a multiply-shift hash of known factors (each word times
 * its factor, the high words of the products xored): each x's high word agrees with one y's in its
 * low 16 bits, so all of them would share one slot of any table of up to 2^16 slots. */
function floodPoints(n) {
  // bits 32 to 47 of the 64-bit product of a 32-bit word and a factor given as its two words
  const bits32to47 = (x, [low, high]) => {
    const a = (x & 0xffff) * low, b = (x >>> 16) * low; // both below 2^48: exact
    return (Math.floor((b + Math.floor(a / 65536)) / 65536) + Math.imul(x, high)) & 0xffff;
  };
  const kx = [0x7f4a7c15, 0x9e3779b9], ky = [0x27d4eb4f, 0xc2b2ae3d];
  const yOf = new Map(); // low 16 bits of a y's high word -> that y's bits
  const word = new Uint32Array(1), float = new Float32Array(word.buffer);
  for (let k = 0; yOf.size < 64; k++) {
    float[0] = 1 + k;
    const u = bits32to47(word[0], ky);
    if (!yOf.has(u)) yOf.set(u, word[0]);
  }
  const bits = new Uint32Array(2 * n);
  for (let x = 1, m = 0; m < n; x++) {
    const y = yOf.get(bits32to47(x, kx));
    if (y !== undefined) bits[2 * m] = x, bits[2 * m + 1] = y, m++;
  }
  return new Float32Array(bits.buffer);
}

test('points crafted to collide in a hash of known factors weld as any others; the module draws its tables\' factors from a random source', async () => {
  const points = floodPoints(8192);
  for (const method of methodsFor(2).filter((m) => m !== 'naive')) {
    const once = weld(points, { dim: 2, radius: 0, method });
    assert.equal(once.count, 8192, method);
    assert.ok(once.remap.every((o, i) => o === i), method);
    const welder = new Welder({ dim: 2, radius: 0, method });
    welder.add(points);
    assert.ok(welder.add(points).every((o, i) => o === i), method);
    welder.dispose();
  }
  // by y alone at r = 0.5: every x is below 2^-100
  weldChecked(points, { dim: 2, radius: 0.5, method: 'auto', store: 'precise' });
  // a second instance of the module, loaded with the random source watched
  const real = globalThis.crypto.getRandomValues;
  const asked = [];
  globalThis.crypto.getRandomValues = function (array) {
    asked.push(array.constructor.name, array.length);
    return real.call(this, array);
  };
  try {
    const fresh = await import('../../js/heap.js?random-source');
    await fresh.ready;
  } finally {
    globalThis.crypto.getRandomValues = real;
  }
  assert.deepEqual(asked, ['Uint32Array', 2]);
});

test('a weld that needs more memory than can be had fails with a clear RangeError, changes nothing, leaks nothing', () => {
  const fill = () => {
    const held = [];
    for (let length = 2 ** 28; length >= 2 ** 14; ) {
      try {
        held.push(new PointBuffer(length));
      } catch (e) {
        assert.ok(e instanceof RangeError && /^meshweld: out of memory: /.test(e.message), e.message);
        length /= 2;
      }
    }
    return held;
  };
  const w = new Welder({ radius: 1e-3 });
  w.add(new Float32Array([0, 0, 0, 1, 1, 1]));
  const hole = new PointBuffer(16); // 64 bytes: room for a welder's options, not for the welder
  const held = fill();
  for (let length = 2 ** 13; length >= 1; length /= 2)
    for (;;) {
      try {
        held.push(new PointBuffer(length));
      } catch {
        break;
      }
    }
  hole.free();
  // the core's own allocation fails: its error code (not the options) names what happened
  throwsNaming(() => new Welder({ radius: 1 }), RangeError, /^meshweld: out of memory: WebAssembly memory cannot grow enough for new Welder/);

  assert.ok(memoryBytes() > 2 ** 32 - 2 ** 27, `memory reached only ${memoryBytes()} bytes`);
  // make about 3 MiB of room: enough to copy the points, not for the weld's tables
  const freed = [];
  while (freed.reduce((s, b) => s + b.length * 4, 0) < 3 * 2 ** 20) {
    const b = held.pop();
    freed.push(b.length);
    b.free();
  }
  const points = new Float32Array(3 * 200000).map((_, i) => i * 0.01);
  for (const method of ['auto', 'grid-r', 'kdtree']) {
    throwsNaming(() => weld(points, { radius: 1e-3, method }), RangeError, /^meshweld: out of memory: /);
    throwsNaming(() => w.add(points), RangeError, /^meshweld: out of memory: /);
    assert.equal(w.count, 2, 'a batch that ran out of memory changed the welder');
  }
  // everything the failed calls took was given back: the room freed can be taken again, exactly
  const retaken = freed.map((length) => new PointBuffer(length));
  assert.deepEqual(retaken.map((b) => b.length), freed);
  for (const b of retaken) b.free();
  for (const b of held) b.free();
  // and the module works
  const r = weldChecked(points.subarray(0, 3000), { radius: 0.05 });
  assert.ok(r.count > 0);
  assert.deepEqual([...w.add([0, 0, 0, 2, 2, 2])], [0, 2]);
  w.dispose();
});
