// The short soak (a few seconds): thousands of welds of random sizes, methods and stores, errors,
// and welders created and dropped, in one process. `npm run soak` runs the long one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { soak, LEAK_SLACK } from '../soak.mjs';

test('a short soak: every result passes the checker, errors leave the module working, memory stays flat', async () => {
  const stats = await soak({ welds: 6000, warmup: 2000, seed: 20251202 });
  assert.ok(stats.welds > 4000 && stats.checked === stats.welds, `only ${stats.welds} welds checked`);
  assert.ok(stats.errors > 300, `only ${stats.errors} errors tried`);
  assert.ok(stats.welders > 300 && stats.dropped > 100, `only ${stats.welders} welders, ${stats.dropped} dropped`);
  assert.ok(stats.meshes > 50, `only ${stats.meshes} meshes`);
  assert.equal(stats.memoryAtEnd, stats.memoryAfterWarmup, 'the WebAssembly memory grew after the warm-up');
  // finer: the bytes in use, to within fragmentation (a leak of 10 bytes a call shows)
  assert.ok(
    stats.inUseAtEnd - stats.inUseAfterWarmup <= LEAK_SLACK,
    `${stats.inUseAtEnd - stats.inUseAfterWarmup} more bytes in use at the end than after the warm-up`,
  );
});
