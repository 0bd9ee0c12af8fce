import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ready, weld, Welder, PointBuffer, countClosePairs } from '../../js/index.js';

await ready;
const ok = new Float32Array([0, 0, 0, 1, 1, 1]);

function throwsNaming(fn, type, pattern) {
  assert.throws(fn, (e) => e instanceof type && pattern.test(e.message) && e.message.startsWith('meshweld: '));
}

test('bad options throw errors that name the bad value', () => {
  throwsNaming(() => weld(ok, { radius: -1 }), RangeError, /got -1/);
  throwsNaming(() => weld(ok, { radius: NaN }), RangeError, /got NaN/);
  throwsNaming(() => weld(ok, { radius: Infinity }), RangeError, /got Infinity/);
  throwsNaming(() => weld(ok, { radius: 1e-50 }), RangeError, /radius 1e-50 rounds to 0 as a float32; use radius 0/);
  throwsNaming(() => weld(ok, { radius: -Number.MIN_VALUE }), RangeError, /got -5e-324/);
  throwsNaming(() => weld(ok, { radius: 1e39 }), RangeError, /got 1e\+39/);
  throwsNaming(() => weld(ok, { radius: '1' }), TypeError, /radius must be a finite number >= 0, got the string "1"/);
  throwsNaming(() => weld(ok, {}), TypeError, /radius must be a finite number >= 0, got undefined/);
  throwsNaming(() => weld(ok), TypeError, /radius must be a finite number >= 0/);
  throwsNaming(() => weld(ok, null), TypeError, /options must be an object, got null/);
  throwsNaming(() => weld(ok, { radius: 1, dim: 4 }), RangeError, /dim must be 2 or 3, got 4/);
  throwsNaming(() => weld(ok, { radius: 1, method: 'hexagon' }), RangeError, /method must be .* got the string "hexagon"/);
  throwsNaming(() => weld(ok, { radius: 1, method: 'hex' }), RangeError, /'hex' is 2D only, got dim 3/);
  throwsNaming(() => weld(ok, { radius: 1, dim: 2, method: 'bcc' }), RangeError, /'bcc' is 3D only, got dim 2/);
  throwsNaming(() => weld(ok, { radius: 1, store: 'exact' }), RangeError, /store must be 'loose' or 'precise', got the string "exact"/);
  throwsNaming(() => weld(ok, { radius: 1, stride: 2 }), RangeError, /stride .* got 2/);
  throwsNaming(() => weld(ok, { radius: 1, stride: 3.5 }), RangeError, /got 3.5/);
  throwsNaming(() => weld(ok, { radius: 1, position: 'mean' }), RangeError, /position .* "mean"/);
  throwsNaming(() => new Welder({ radius: -2 }), RangeError, /got -2/);
});

test('bad points throw errors that name them', () => {
  throwsNaming(() => weld(new Float32Array(7), { radius: 1 }), RangeError, /length 7 is not a multiple of the stride 3/);
  throwsNaming(() => weld(new BigInt64Array(6), { radius: 1 }), TypeError, /got a BigInt64Array of 6 values/);
  throwsNaming(() => weld('0,0,0', { radius: 1 }), TypeError, /got the string "0,0,0"/);
  throwsNaming(() => weld([0, 0, 'x'], { radius: 1 }), TypeError, /points\[2\] must be a number, got the string "x"/);
  throwsNaming(() => weld([0, 0, 0, 0, NaN, 0], { radius: 1 }), RangeError, /point 1 has a non-finite coordinate y = NaN/);
  throwsNaming(() => weld([Infinity, 0, 0], { radius: 1 }), RangeError, /point 0 has a non-finite coordinate x = Infinity/);
  throwsNaming(() => weld(new Float64Array([0, 0, 1e300]), { radius: 1 }), RangeError, /z = 1e\+300 \(beyond the float32 range\)/);
  throwsNaming(() => weld([0, 0, 3e38], { radius: 1e-6, method: 'grid-2r' }), RangeError, /coordinate z = 3e\+38 is too large for the radius/);
  const detached = new Float32Array(6);
  structuredClone(detached.buffer, { transfer: [detached.buffer] });
  throwsNaming(() => weld(detached, { radius: 1 }), TypeError, /detached ArrayBuffer/);
  const w = new Welder({ radius: 1 });
  throwsNaming(() => w.add([0, 0, -Infinity]), RangeError, /Welder.add: point 0 has a non-finite coordinate z = -Infinity/);
  assert.equal(w.count, 0);
  assert.deepEqual([...w.add([0, 0, 0])], [0]);
  w.dispose();
  throwsNaming(() => new PointBuffer(-1), RangeError, /got -1/);
  throwsNaming(() => countClosePairs(ok, { radius: -0.5 }), RangeError, /got -0.5/);
});

test('the module keeps working after every kind of error', () => {
  const attempts = [
    () => weld(ok, { radius: -1 }),
    () => weld([NaN, 0, 0], { radius: 1 }),
    () => weld([0, 0, 3e38], { radius: 1e-6, method: 'bcc' }),
    () => weld(new Float32Array(5), { radius: 1 }),
  ];
  for (let round = 0; round < 100; round++)
    for (const attempt of attempts) assert.throws(attempt);
  const r = weld(new Float32Array([0, 0, 0, 0, 0, 1e-4, 1, 1, 1]), { radius: 1e-3 });
  assert.deepEqual([...r.remap], [0, 0, 1]);
});

test('SharedArrayBuffer-backed arrays are welded like any other', () => {
  const shared = new Float32Array(new SharedArrayBuffer(24));
  shared.set([0, 0, 0, 0, 0, 1e-5]);
  assert.deepEqual([...weld(shared, { radius: 1e-3 }).remap], [0, 0]);
});

test('empty input and a single point', () => {
  const empty = weld(new Float32Array(0), { radius: 1 });
  assert.equal(empty.count, 0);
  assert.equal(empty.remap.length, 0);
  assert.equal(empty.positions.length, 0);
  const one = weld([1, 2, 3], { radius: 1 });
  assert.deepEqual([...one.positions], [1, 2, 3]);
});
