// In its own file (its own process): a failed huge weld leaves the memory grown.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ready, weld, PointBuffer } from '../../js/index.js';

await ready;

test('a buffer beyond the 4 GiB address space is refused before anything is allocated', () => {
  assert.throws(() => new PointBuffer(1.2e9), (e) => e instanceof RangeError && /out of memory: 4800000000 bytes/.test(e.message));
});

test('a weld that needs more memory than WebAssembly can have says so, and the module works after it', () => {
  // 1.5 GB of distinct points: the copy fits, the remap, kept positions and tables do not
  // (identical points would need almost no table at all)
  const points = new Float32Array(375e6);
  for (let i = 0; i < points.length; i++) points[i] = i;
  assert.throws(
    () => weld(points, { radius: 1e-3 }),
    (e) => e instanceof RangeError && /out of memory: WebAssembly memory cannot grow/.test(e.message),
  );
  const r = weld(new Float32Array([0, 0, 0, 0, 0, 1e-4]), { radius: 1e-3 });
  assert.deepEqual([...r.remap], [0, 0]);
});
