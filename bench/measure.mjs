// Everything measured on one dataset: the timings (meshweld's WebAssembly configurations one
// after the other, the native program and the peers each interleaved with meshweld auto), the
// quality of each result (right after its timing, so that only one result is alive at a time),
// and the peak memory of each in fresh processes.
import { peers, wasmContestants } from './contestants.mjs';
import { measureInChild, runPool } from './memory.mjs';
import { nativeContestant, nativeMemory, openSession } from './native.mjs';
import { assess, clearPairCache } from './quality.mjs';
import { median, minimum, pairs, series } from './timing.mjs';

// Warm-up runs use at most this many points: on the large sets a full-size warm-up of the slow
// contestants would cost minutes, and the JIT and the WebAssembly tiers warm up on a prefix.
export const WARM_POINTS = 65536;

// Display order of the rows of a table.
const ORDER = ['wasm:auto:loose', 'wasm:auto:precise', 'wasm:', 'native:auto:loose', 'native:auto:precise', 'meshopt', 'gltf', 'three', 'article'];
const rank = (id) => ORDER.findIndex((prefix) => id.startsWith(prefix));

function newRow(c, extra = {}) {
  const { id, label, group, method, store, exact } = c;
  return { id, label, group, method, store, exact, times: [], ...extra };
}

/** Times, then assesses, every contestant on one dataset. Returns the table's rows. */
export async function benchDataset(ds, points, { file, nativePath, rules, progress }) {
  const rows = [];
  const fail = (row, error) => {
    row.error = String(error?.message ?? error).split('\n')[0];
    progress(`  ${row.label} ${row.store ?? ''}: ${row.error}`);
  };
  const settle = async (row, contestant, raw) => {
    const result = contestant.collect(raw, points, ds);
    Object.assign(row, await assess(result, points, ds));
    if (row.method === 'auto') row.resolved = result.method;
  };

  const prefix = { points: points.subarray(0, WARM_POINTS * ds.dim), ds: { ...ds, n: Math.min(ds.n, WARM_POINTS) } };
  const warmCtx = (c, ctx) => (ds.n <= WARM_POINTS || c.time ? ctx : c.prepare(prefix.points, prefix.ds));

  const wasm = (await wasmContestants(ds)).filter(([c]) => ds.sweep !== false || c.method === 'auto');
  const anchor = wasm.find(([c]) => c.method === 'auto' && c.store === 'loose')[0];
  const anchorCtx = anchor.prepare(points, ds);
  const anchorRow = newRow(anchor, { anchor: true });
  rows.push(anchorRow);
  progress(`  ${anchor.label} loose`);
  const first = await series(anchor, anchorCtx, warmCtx(anchor, anchorCtx), rules);
  anchorRow.times.push(...first.times);
  await settle(anchorRow, anchor, first.raw);

  // A contestant run pair by pair against the anchor; the anchor's runs join its own.
  const paired = async (c, ctx, assessWith = c) => {
    const row = newRow(c);
    rows.push(row);
    progress(`  ${c.label} ${c.store ?? ''} (interleaved with meshweld auto)`);
    try {
      const fullCtx = ctx ?? c.prepare(points, ds);
      const result = await pairs(anchor, anchorCtx, c, fullCtx, warmCtx(c, fullCtx), rules);
      row.times = result.times;
      row.ratio = { median: median(result.ratios), values: result.ratios };
      anchorRow.times.push(...result.anchorTimes);
      await assessWith(row, result.raw);
    } catch (error) {
      fail(row, error);
    }
  };
  const alone = async (c, ctx, assessWith) => {
    const row = newRow(c);
    rows.push(row);
    progress(`  ${c.label} ${c.store ?? ''}`);
    try {
      const result = await series(c, ctx, warmCtx(c, ctx), rules);
      row.times = result.times;
      await assessWith(row, result.raw);
    } catch (error) {
      fail(row, error);
    }
  };

  for (const [c, skip] of wasm) {
    if (c === anchor) continue;
    const assessWasm = (row, raw) => settle(row, c, raw);
    if (skip) rows.push(newRow(c, { skip }));
    else if (c.method === 'auto') await paired(c, undefined, assessWasm); // precise against loose, interleaved
    else await alone(c, c.prepare(points, ds), assessWasm);
  }

  if (nativePath) {
    // Same remap as the WebAssembly twin (same hash): the same pairs and displacement.
    const assessNative = async (row, raw) => {
      const twin = rows.find((r) => r.group === 'meshweld' && r.method === row.method && r.store === row.store);
      Object.assign(row, { count: raw.count, resolved: raw.resolved, hash: raw.hash, sameAsWasm: twin?.hash === raw.hash });
      if (row.sameAsWasm) Object.assign(row, { pairs: twin.pairs, pairsCapped: twin.pairsCapped, displacement: twin.displacement });
      else row.remark = 'its remap DIFFERS from the WebAssembly one (pairs and shift not shown)';
    };
    let session = null;
    try {
      session = await openSession(nativePath, file, ds);
      await paired(nativeContestant(session, 'auto', 'loose'), {}, assessNative);
      await alone(nativeContestant(session, 'auto', 'precise'), {}, assessNative);
    } catch (error) {
      progress(`  native: ${error.message}`);
    } finally {
      await session?.close();
    }
  }

  for (const peer of peers) await paired(peer, undefined, (row, raw) => settle(row, peer, raw));

  clearPairCache();
  for (const row of rows) {
    if (!row.skip && !row.error) {
      row.medianMs = median(row.times);
      row.minMs = minimum(row.times);
    }
  }
  return rows.sort((a, b) => rank(a.id) - rank(b.id));
}

/**
 * Peak memory of each row's contestant, one cold call in a fresh process each (not timed, so
 * `parallel` at a time). Skipped where a run takes over capMs, for meshweld's methods other than
 * auto above 1M points, and with quick on the datasets under 1e5 points and for those methods.
 */
export async function measureMemory(rows, ds, { file, nativePath, parallel, capMs, quick, progress }) {
  const measured = rows.filter((r) => !r.skip && !r.error && r.times.length);
  for (const row of measured) {
    if (row.medianMs > capMs) row.memory = { skipped: `a run takes over ${capMs / 1000} s` };
    else if (quick && (ds.n < 1e5 || (row.group !== 'peer' && row.method !== 'auto'))) row.memory = { skipped: 'not in --quick' };
    else if (ds.n > 1.1e6 && row.group === 'meshweld' && row.method !== 'auto') row.memory = { skipped: 'methods other than auto: up to 1M points' };
  }
  const jobs = measured
    .filter((row) => !row.memory)
    .map((row) => ({
      run: async () => {
        row.memory =
          row.group === 'native'
            ? nativeMemory(nativePath, file, ds, row.method, row.store)
            : await measureInChild(file, ds, row.id, 60000 + 20 * row.medianMs);
      },
    }));
  progress(`  peak memory: ${jobs.length} fresh processes`);
  await runPool(jobs, parallel);
}
