import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ready, weld, Welder, memoryBytes, methods } from '../../js/index.js';
import { mulberry32 } from './helpers.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
await ready;

test('ten thousand welds of assorted sizes leave the memory where the first large one left it', () => {
  const random = mulberry32(9);
  const large = new Float32Array(3 * 200000).map(() => random());
  weld(large, { radius: 0.002 });
  const after = memoryBytes();
  for (let i = 0; i < 10000; i++) {
    const n = 1 + Math.floor(random() ** 3 * 20000);
    const points = large.subarray(0, 3 * n);
    const method = methods[i % methods.length] === 'hex' ? 'bcc' : methods[i % methods.length];
    const store = i % 2 ? 'loose' : 'precise';
    const r = weld(points, { radius: 0.002 + random() * 0.01, method: method === 'naive' && n > 2000 ? 'kdtree' : method, store });
    assert.equal(r.remap.length, n);
    if (i % 7 === 0) assert.throws(() => weld([NaN, 0, 0], { radius: 1 }));
    if (i % 11 === 0) {
      const w = new Welder({ radius: 0.01 });
      w.add(points);
      w.add(points);
      w.dispose();
    }
  }
  assert.equal(memoryBytes(), after);
});

test('a Welder dropped without dispose() is freed by the garbage collector', async () => {
  const random = mulberry32(3);
  const chunk = new Float32Array(3 * 100000).map(() => random());
  // The package frees a dropped welder from a FinalizationRegistry callback, which runs in a task
  // some time after the collection. This test's own registry, on the same welders, says when the
  // collector has let them go; a few more turns of the event loop let the package's callbacks run.
  let dropped = 0;
  let collected = 0;
  const watch = new FinalizationRegistry(() => collected++);
  const drop = () => {
    const welder = new Welder({ radius: 1e-4 });
    welder.add(chunk);
    watch.register(welder, null);
    dropped++;
  };
  const settle = async () => {
    gc();
    for (let turn = 0; turn < 1000 && collected < dropped; turn++) await new Promise((resolve) => setTimeout(resolve, 2));
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
  };
  // warm up: the first one sizes the heap
  drop();
  await settle();
  const before = memoryBytes();
  // 300 welders of ~8 MB each would need 2.4 GB if none were freed
  for (let i = 0; i < 300; i++) {
    drop();
    if (i % 10 === 9) await settle();
  }
  assert.equal(collected, dropped, 'the collector kept welders that nothing refers to');
  assert.ok(memoryBytes() < before + 256 * 1024 * 1024, `memory grew from ${before} to ${memoryBytes()}`);
});
