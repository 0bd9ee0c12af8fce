import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ready, weld, Welder, PointBuffer, countClosePairs, bound, lookups, methods, cells, memoryBytes } from '../../js/index.js';
import { expected, fixtures, fnv1a, mulberry32, violations } from './helpers.js';

await ready;

test('the WebAssembly build gives the native results on every fixture, method and store', () => {
  const table = expected();
  let compared = 0;
  for (const f of fixtures()) {
    for (const row of table.filter((e) => e.fixture === f.file)) {
      const r = weld(f.points, { dim: f.dim, radius: f.radius, method: row.method, store: row.store });
      assert.equal(r.count, row.count, `${f.file} ${row.method}/${row.store}`);
      assert.equal(fnv1a(r.remap), row.hash, `${f.file} ${row.method}/${row.store} remap`);
      compared++;
    }
  }
  assert.ok(compared >= 70, `compared ${compared}`);
});

test('every method keeps the guarantees on the fixtures', () => {
  for (const f of fixtures()) {
    for (const method of methods) {
      if ((method === 'hex' && f.dim !== 2) || (method === 'bcc' && f.dim !== 3)) continue;
      for (const store of ['loose', 'precise']) {
        const r = weld(f.points, { dim: f.dim, radius: f.radius, method, store });
        const R = bound({ method: r.method, store, dim: f.dim, radius: f.radius });
        assert.deepEqual(violations(f.points, f.dim, f.radius, r, R), [], `${f.file} ${method}/${store}`);
        assert.equal(countClosePairs(r.positions, { dim: f.dim, radius: f.radius }), 0);
      }
    }
  }
});

test('weld returns remap, count, positions and the method that ran', () => {
  const points = new Float32Array([0, 0, 0, 0.0005, 0, 0, 1, 1, 1, 1, 1, 1.0002]);
  const r = weld(points, { dim: 3, radius: 0.001 });
  assert.deepEqual([...r.remap], [0, 0, 1, 1]);
  assert.equal(r.count, 2);
  assert.deepEqual([...r.positions], [0, 0, 0, 1, 1, 1]);
  assert.ok(r.remap instanceof Uint32Array && r.positions instanceof Float32Array);
  assert.notEqual(r.method, 'auto');
  const c = weld(points, { dim: 3, radius: 0.001, position: 'centroid' });
  assert.ok(Math.abs(c.positions[0] - 0.00025) < 1e-9 && Math.abs(c.positions[5] - 1.0001) < 1e-6);
});

test('interleaved buffers with a stride, 2D and 3D', () => {
  // x, y, z, u, v per vertex: only x, y, z are welded
  const data = new Float32Array([0, 0, 0, 9, 9, 5, 5, 5, 0, 0, 0, 0, 1e-6, 7, 7]);
  const r = weld(data, { dim: 3, radius: 1e-4, stride: 5 });
  assert.deepEqual([...r.remap], [0, 1, 0]);
  assert.deepEqual([...r.positions], [0, 0, 0, 5, 5, 5]);
  const flat = weld(new Float32Array([0, 0, 10, 10, 0, 1e-3]), { dim: 2, radius: 0.01, method: 'hex' });
  assert.deepEqual([...flat.remap], [0, 1, 0]);
  assert.equal(flat.method, 'hex');
});

test('plain arrays and Float64Array are converted to float32', () => {
  const values = [0, 0, 0, 0.1, 0, 0, 5, 5, 5];
  const a = weld(values, { radius: 0.2, method: 'kdtree' });
  const b = weld(new Float64Array(values), { radius: 0.2, method: 'kdtree' });
  const c = weld(new Float32Array(values), { radius: 0.2, method: 'kdtree' });
  assert.deepEqual([...a.remap], [0, 0, 1]);
  assert.deepEqual(a, b);
  assert.deepEqual(a, c);
});

test('-0 and +0 are the same position', () => {
  const r = weld(new Float32Array([0, -0, 0, 0, 0, -0]), { radius: 1e-30, method: 'grid-r' });
  assert.equal(r.count, 1);
});

test('the incremental Welder equals the one-shot weld, for every method', () => {
  const random = mulberry32(5);
  const points = new Float32Array(3 * 3000).map(() => random());
  for (const method of methods.filter((m) => m !== 'hex')) {
    for (const store of ['loose', 'precise']) {
      const whole = weld(points, { radius: 0.03, method, store });
      const w = new Welder({ dim: 3, radius: 0.03, method, store });
      const parts = [w.add(points.subarray(0, 300)), w.add(points.subarray(300, 4500)), w.add(points.subarray(4500))];
      const joined = new Uint32Array(3000);
      joined.set(parts[0], 0);
      joined.set(parts[1], 100);
      joined.set(parts[2], 1500);
      assert.deepEqual(joined, whole.remap, `${method}/${store}`);
      assert.equal(w.count, whole.count);
      assert.deepEqual(w.positions(), whole.positions);
      assert.equal(w.method, whole.method);
      w.dispose();
    }
  }
});

test('a disposed Welder throws a clear error, and dispose twice is harmless', () => {
  const w = new Welder({ dim: 2, radius: 1 });
  w.add([0, 0, 0.5, 0]);
  w.dispose();
  w.dispose();
  assert.throws(() => w.add([0, 0]), /Welder was disposed/);
  assert.throws(() => w.count, /Welder was disposed/);
  assert.throws(() => w.positions(), /Welder was disposed/);
});

test('PointBuffer welds in place and its array survives memory growth', () => {
  const buffer = new PointBuffer(9);
  buffer.array.set([0, 0, 0, 1, 1, 1, 0, 0, 1e-7]);
  const grow = new PointBuffer(4 * 1024 * 1024); // forces the memory to grow
  assert.deepEqual([...buffer.array], [0, 0, 0, 1, 1, 1, 0, 0, Math.fround(1e-7)]);
  assert.deepEqual([...weld(buffer, { radius: 1e-3 }).remap], [0, 1, 0]);
  const w = new Welder({ radius: 1e-3 });
  assert.deepEqual([...w.add(buffer)], [0, 1, 0]);
  w.dispose();
  grow.free();
  buffer.free();
  buffer.free();
  assert.throws(() => buffer.array, /PointBuffer was freed/);
});

test('calls before and after the memory grows read and write the same structs and arrays', () => {
  const points = [0, 0, 0, 1, 1, 1, 0, 0, 1e-7, 1, 1, 1.0000001];
  const before = weld(points, { radius: 1e-3 });
  const w = new Welder({ radius: 1e-3 });
  assert.deepEqual([...w.add(points.slice(0, 6))], [0, 1]);
  const size = memoryBytes();
  const grow = new PointBuffer(16 * 1024 * 1024); // 64 MB: the memory has to grow
  assert.ok(memoryBytes() > size, 'the memory did not grow');
  const after = weld(points, { radius: 1e-3 });
  assert.deepEqual([...after.remap], [...before.remap]);
  assert.deepEqual([...after.positions], [...before.positions]);
  assert.equal(after.count, 2);
  assert.deepEqual([...w.add(points.slice(6))], [0, 1]);
  assert.equal(w.count, 2);
  assert.deepEqual([...w.positions()], [0, 0, 0, 1, 1, 1]);
  assert.throws(() => weld([0, 0, NaN], { radius: 1 }), /point 0 has a non-finite coordinate z = NaN/);
  w.dispose();
  grow.free();
});

test('bound and lookups describe each method', () => {
  assert.equal(bound({ method: 'kdtree', radius: 1 }), 1);
  assert.equal(bound({ method: 'grid-2r', store: 'precise', radius: 1 }), 1);
  assert.ok(Math.abs(bound({ method: 'grid-2r', radius: 1 }) - 3 * Math.sqrt(3)) < 1e-3);
  assert.ok(Math.abs(bound({ method: 'hex', dim: 2, radius: 1 }) - 2 * Math.sqrt(7)) < 1e-3);
  assert.equal(lookups('grid-2r', 3), 8);
  assert.equal(lookups('grid-r', 2), 9);
  assert.equal(lookups('hex', 2), 3);
  assert.equal(lookups('bcc', 3), 4);
});

test('auto sizes its cells to the data, and falls back to kdtree when one cell would hold crowds', () => {
  const far = weld(new Float32Array([3e38, 0, 0, 3e38, 0, 0, -3e38, 0, 0]), { radius: 1e-3 });
  assert.equal(far.method, 'grid');
  assert.deepEqual([...far.remap], [0, 0, 1]);
  // a fine lattice and one point at 3e38: cells large enough for 3e38 would hold the whole lattice
  const points = new Float32Array(3 * 1001);
  for (let i = 0; i < 1000; i++) points[3 * i] = i * 0.01;
  points[3 * 1000] = 3e38;
  const mixed = weld(points, { radius: 1e-3 });
  assert.equal(mixed.method, 'kdtree');
  assert.equal(mixed.count, 1001);
  const tiny = weld(points.subarray(0, 3000), { radius: 1e-3 });
  assert.equal(tiny.method, 'grid');
});

test('radius 0 welds bitwise-identical positions only, -0 equal to +0, with every method', () => {
  const points = new Float32Array([0, 0, 0, -0, 0, -0, 1e-30, 0, 0, 1, 2, 3, 1, 2, 3, 1, 2, Math.fround(3 + 2 ** -22)]);
  for (const method of ['naive', 'grid-r', 'grid-2r', 'bcc', 'kdtree', 'auto'])
    for (const store of ['loose', 'precise']) {
      const r = weld(points, { radius: 0, method, store });
      assert.deepEqual([...r.remap], [0, 0, 1, 2, 2, 3], `${method}/${store}`);
    }
  assert.equal(bound({ radius: 0 }), 0);
  assert.equal(countClosePairs(points, { radius: 0 }), 2);
});

test('cells reports the cells each grid method searches, store cell first', () => {
  const radius = 0.1;
  for (const [method, dim] of [['grid-r', 2], ['grid-r', 3], ['grid-2r', 2], ['grid-2r', 3], ['hex', 2], ['bcc', 3]]) {
    const c = cells([0.31, 0.72, 0.05].slice(0, dim), { method, dim, radius });
    assert.equal(c.keys.length, 3 * lookups(method, dim), method);
    assert.ok(c.size > 0);
  }
  // grid-r: the store cell of (0.31, 0.72) is floor(p / c) with c = r (1 + 2^-16)
  assert.deepEqual([...cells([0.31, 0.72], { method: 'grid-r', dim: 2, radius }).keys.slice(0, 3)], [3, 7, 0]);
  // grid-2r: the store grid is centred on multiples of 2r: (0.31, 0.72) is nearest (0.4, 0.8)
  assert.deepEqual([...cells([0.31, 0.72], { method: 'grid-2r', dim: 2, radius }).keys.slice(0, 3)], [2, 4, 0]);
  assert.equal(cells([0, 0], { method: 'kdtree', dim: 2, radius }).keys.length, 0);
  assert.throws(() => cells([0, NaN], { dim: 2, radius }), /^RangeError: meshweld: cells: point\[1\] must be finite as a float32, got NaN$/);
  // the default method and the others whose cells follow the data have no fixed cells
  for (const method of [undefined, 'auto', 'grid', 'kdtree', 'naive']) {
    const none = cells([0, 0, 0], { radius, method });
    assert.deepEqual([none.keys.length, none.size], [0, 0], `method ${method}`);
  }
  assert.throws(() => cells([1e39, 0, 0], { radius }), /^RangeError: meshweld: cells: point\[0\] must be finite as a float32, got 1e\+39$/);
  assert.throws(() => cells(['a', 'b', 'c'], { radius }), /^TypeError: meshweld: cells: point\[0\] must be a number, got the string "a"$/);
  assert.throws(() => cells([0], { dim: 2, radius }), /point must hold 2 numbers/);
});

test('relativeRadius scales the diagonal of the finite points, in 2D and 3D, at any stride', () => {
  // 3D: a 3-4-12 box (diagonal 13); a NaN point and an infinite one left out (nonFinite: 'skip')
  const three = new Float32Array([0, 0, 0, 9, 3, 4, 12, 9, NaN, 50, 50, 9, 1, Infinity, 1, 9]);
  assert.equal(weld(three, { relativeRadius: 0.5, stride: 4, nonFinite: 'skip' }).radius, 6.5);
  // 2D: a 3-4 box (diagonal 5), one point past it on a third axis that 2D does not read
  const two = new Float32Array([0, 0, 100, 3, 4, -100, 1, 1, 0]);
  assert.equal(weld(two, { relativeRadius: 0.2, dim: 2, stride: 3 }).radius, 1);
  assert.equal(weld(new Float32Array([NaN, 0, 0]), { relativeRadius: 1, nonFinite: 'skip' }).radius, 0, 'no finite point: radius 0');
});
