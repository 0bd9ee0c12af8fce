// Timing: one untimed warm-up, then repetitions; a garbage collection (untimed) before a run
// whenever earlier runs left garbage, so that no contestant pays for another's; a sink so that
// no result is dead code; and interleaved pairs (A B, B A, A B, ...) whose ratios cancel the
// drift of a shared machine.
import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--expose-gc');
/** A full garbage collection (exposed without a command-line flag, so `npm run bench` works). */
export const gc = vm.runInNewContext('gc');

// A full collection costs 5-50 ms: run one before a timed run only when the earlier runs left
// enough behind (JS heap and array buffers) to make a collection during the run likely.
const GARBAGE_BYTES = 32 * 2 ** 20;
let afterLastGc = 0;
function allocated() {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}
function collectIfNeeded() {
  if (allocated() - afterLastGc > GARBAGE_BYTES) {
    gc();
    afterLastGc = allocated();
  }
}

let sinkValue = 0;
/** Folds something of every result into a value printed at the end. */
export function sink(raw) {
  const v = raw?.count ?? raw?.length ?? (typeof raw === 'object' && raw !== null ? 1 : 0);
  sinkValue = (sinkValue * 31 + (Number(v) | 0)) | 0;
}
export const sinkResult = () => sinkValue;

/**
 * Repetition policy. The first timed run sets the count: as many runs as fit in the budget,
 * at least 3 (2 for a run over 1 s, 1 for a run over 3 s: the 4M sets of slow contestants would
 * not fit in ten minutes otherwise), at most maxReps. Peak memory is measured (one more cold run
 * in a child process) only where a run takes at most memoryCapMs.
 */
export function policy(quick) {
  return quick ? { budgetMs: 200, maxReps: 5, memoryCapMs: 1000 } : { budgetMs: 1000, maxReps: 11, memoryCapMs: 3000 };
}

function repsFor(firstMs, { budgetMs, maxReps }) {
  const least = firstMs > 3000 ? 1 : firstMs > 1000 ? 2 : 3;
  return Math.max(least, Math.min(maxReps, Math.round(budgetMs / Math.max(firstMs, 1e-3))));
}

/** One timed run: { ms, raw }. Contestants that time themselves (native) provide time(). */
export async function timeOnce(contestant, ctx) {
  if (contestant.time) return contestant.time(ctx);
  const input = contestant.fresh ? contestant.fresh(ctx) : ctx;
  collectIfNeeded();
  let raw;
  const t0 = performance.now();
  if (contestant.async) raw = await contestant.run(input);
  else raw = contestant.run(input);
  const ms = performance.now() - t0;
  sink(raw);
  return { ms, raw };
}

/**
 * An untimed warm-up on warmCtx (the dataset, or its first points when it is large), then the
 * timed runs. Returns { times, raw } (raw of the last run).
 */
export async function series(contestant, ctx, warmCtx, rules) {
  await timeOnce(contestant, warmCtx);
  const first = await timeOnce(contestant, ctx);
  const times = [first.ms];
  let raw = first.raw;
  const reps = repsFor(first.ms, rules);
  for (let k = 1; k < reps; k++) {
    raw = null; // let the previous result be collected
    const run = await timeOnce(contestant, ctx);
    times.push(run.ms);
    raw = run.raw;
  }
  return { times, raw };
}

/**
 * Interleaved pairs of the anchor (meshweld auto, already warm) and a contestant: after the
 * contestant's warm-up, pairs alternate which of the two runs first (A B, B A, ...). Returns
 * both series and the ratio anchor / contestant of each pair.
 */
export async function pairs(anchor, anchorCtx, contestant, ctx, warmCtx, rules) {
  await timeOnce(contestant, warmCtx);
  const a = [];
  const b = [];
  let raw = null;
  let anchorRaw = null;
  let reps = 1;
  for (let k = 0; k < reps; k++) {
    for (const who of k % 2 === 0 ? ['a', 'b'] : ['b', 'a']) {
      if (who === 'a') {
        anchorRaw = null;
        const run = await timeOnce(anchor, anchorCtx);
        a.push(run.ms);
        anchorRaw = run.raw;
      } else {
        raw = null;
        const run = await timeOnce(contestant, ctx);
        b.push(run.ms);
        raw = run.raw;
      }
    }
    if (k === 0) reps = repsFor(a[0] + b[0], rules);
  }
  return { anchorTimes: a, times: b, ratios: a.map((t, k) => t / b[k]), raw, anchorRaw };
}

export function median(values) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export const minimum = (values) => (values.length ? Math.min(...values) : NaN);
