// Peak memory of one call, measured in a fresh process so that nothing another contestant grew
// (WebAssembly memory never shrinks, V8 keeps its heap pages) hides this one's needs.
//
// The child loads the points from the dataset file, imports and prepares the contestant, collects
// garbage, resets the kernel's resident-set high-water mark (writing 5 to /proc/self/clear_refs),
// reads the resident set, makes one cold call and reads the high-water mark again. Peak = mark
// after - resident before: every byte the call touched, its result included (WebAssembly heap
// growth, the input copy, V8 heap, garbage not yet collected). Where the reset is not allowed, the
// process's maxRSS stands in (an upper bound: loading may have peaked higher).
//
//   node bench/memory.mjs --file F --dim D --radius R --id CONTESTANT   (prints one JSON line)
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

function statusKB(name) {
  const match = readFileSync('/proc/self/status', 'utf8').match(new RegExp(`^${name}:\\s+(\\d+)`, 'm'));
  return match ? Number(match[1]) : NaN;
}

function resetHighWater() {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

async function child(argv) {
  const option = (name) => argv[argv.indexOf(name) + 1];
  const { contestantById } = await import('./contestants.mjs');
  const ds = { dim: Number(option('--dim')), radius: Number(option('--radius')) };
  const bytes = readFileSync(option('--file'));
  const points =
    bytes.byteOffset % 4 === 0
      ? new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4)
      : new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  ds.n = points.length / ds.dim;
  const contestant = contestantById(option('--id'));
  await contestant.load();
  const ctx = contestant.prepare(points, ds);
  const input = contestant.fresh ? contestant.fresh(ctx) : ctx;
  globalThis.gc();
  globalThis.gc();
  const exact = resetHighWater();
  const before = exact ? statusKB('VmRSS') : process.memoryUsage.rss() / 1024;
  const raw = contestant.async ? await contestant.run(input) : contestant.run(input);
  const peak = exact ? statusKB('VmHWM') : process.resourceUsage().maxRSS;
  process.stdout.write(`${JSON.stringify({ peakKB: peak - before, exact, alive: raw != null })}\n`);
}

/**
 * Runs one measurement in a child process: resolves { peakKB, exact } or { error }. A child that
 * outlives timeoutMs is killed.
 */
export function measureInChild(file, ds, id, timeoutMs) {
  const script = fileURLToPath(import.meta.url);
  const args = ['--expose-gc', script, '--file', file, '--dim', String(ds.dim), '--radius', String(ds.radius), '--id', id];
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      proc.kill();
    }, timeoutMs);
    proc.stdout.on('data', (d) => (out += d));
    proc.stderr.on('data', (d) => (err += d));
    proc.on('close', (code) => {
      clearTimeout(timer);
      if (timedOut) return resolve({ error: `memory child killed after ${(timeoutMs / 1000).toFixed(0)} s` });
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()));
      } catch {
        resolve({ error: `memory child exited ${code}: ${err.trim().split('\n').slice(-3).join(' ')}` });
      }
    });
  });
}

/** Runs jobs ({ run: () => Promise }) with at most `parallel` at a time. */
export async function runPool(jobs, parallel) {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) await jobs[next++].run();
  };
  await Promise.all(Array.from({ length: Math.max(1, parallel) }, worker));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await child(process.argv.slice(2));
