import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ready, weld, Welder, memoryBytes, methods } from '../../js/index.js';
import { collector, mulberry32 } from './helpers.js';

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
  const dropped = collector(gc);
  const drop = () => {
    const welder = new Welder({ radius: 1e-4 });
    welder.add(chunk);
    dropped.drop(welder);
  };
  // warm up: the first one sizes the heap
  drop();
  await dropped.settle();
  const before = memoryBytes();
  // 300 welders of ~8 MB each would need 2.4 GB if none were freed
  for (let i = 0; i < 300; i++) {
    drop();
    if (i % 10 === 9) await dropped.settle();
  }
  assert.equal(dropped.collected, dropped.dropped, 'the collector kept welders that nothing refers to');
  assert.ok(memoryBytes() < before + 256 * 1024 * 1024, `memory grew from ${before} to ${memoryBytes()}`);
});
