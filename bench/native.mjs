// meshweld native: bench/native/bench.c built by CMake (target meshweld_bench, in build-bench/),
// run as a child process on the same points, written to a file. In --serve mode it answers one
// command per line, so its runs interleave with the WebAssembly runs of this process.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const buildDir = `${root}build-bench`;
const binary = `${buildDir}/meshweld_bench`;

function tail(text, lines = 8) {
  return text.trim().split('\n').slice(-lines).join('\n');
}

function sh(command, args) {
  const result = spawnSync(command, args, { cwd: root, encoding: 'utf8' });
  if (result.error) return { ok: false, log: String(result.error.message) };
  return { ok: result.status === 0, log: `${result.stdout}\n${result.stderr}` };
}

/**
 * Configures and builds the native benchmark, Release, in build-bench/ (configured every time:
 * CMakeLists.txt globs c/*.c, so a new source file needs it). Returns { path, note, log }: path
 * null when there is no usable binary, note a line saying what happened, log the end of the
 * build's output when it failed.
 */
export function buildNative() {
  const configure = sh('cmake', ['-S', '.', '-B', 'build-bench', '-DCMAKE_BUILD_TYPE=Release']);
  if (!configure.ok && !existsSync(binary)) return { path: null, note: 'native skipped: cmake configure failed', log: tail(configure.log) };
  const build = sh('cmake', ['--build', 'build-bench', '--target', 'meshweld_bench']);
  if (build.ok && existsSync(binary)) return { path: binary, note: 'native: build-bench/meshweld_bench (CMake Release), rebuilt when its sources changed' };
  if (existsSync(binary)) return { path: binary, note: 'native: the build failed, the existing (stale) build-bench/meshweld_bench runs', log: tail(build.log) };
  return { path: null, note: 'native skipped: the build failed', log: tail(build.log) };
}

const datasetArgs = (file, ds) => ['--file', file, '--dim', String(ds.dim), '--radius', String(ds.radius)];

/** A --serve child for one dataset; command() resolves with the JSON answer of one line. */
export async function openSession(path, file, ds) {
  const child = spawn(path, [...datasetArgs(file, ds), '--serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const waiting = [];
  const queued = [];
  lines.on('line', (line) => {
    const value = JSON.parse(line);
    if (waiting.length) waiting.shift()(value);
    else queued.push(value);
  });
  const exited = new Promise((resolve) => child.on('close', resolve));
  const next = () =>
    queued.length
      ? Promise.resolve(queued.shift())
      : Promise.race([
          new Promise((resolve) => waiting.push(resolve)),
          exited.then((code) => {
            throw new Error(`native benchmark exited (${code})`);
          }),
        ]);
  await next(); // {"ready": true}
  return {
    async command(method, store, reps = 1) {
      child.stdin.write(`${method} ${store} ${reps}\n`);
      const answer = await next();
      if (answer.error) throw new Error(`native ${method} ${store}: ${answer.error}`);
      return answer;
    },
    close() {
      child.stdin.end('quit\n');
      return exited;
    },
  };
}

export const NATIVE_NOTE =
  'bench/native/bench.c, the C library without WebAssembly (CMake Release), on the same points from a file, ' +
  "through meshweld_weldKept (weld()'s own call: the remap and the kept positions), " +
  'with freed scratch kept in the process as the WebAssembly memory keeps it (glibc: mmap and trim thresholds raised), ' +
  'runs interleaved with the WebAssembly ones through a pipe (each a single call with no warm-up of its own, as every contestant of a pair), ' +
  'timed by its own clock; auto in both stores';

/** A contestant whose time comes from the native program's own clock. */
export function nativeContestant(session, method, store) {
  return {
    id: `native:${method}:${store}`,
    label: `meshweld native ${method}`,
    group: 'native',
    method,
    store,
    exact: false,
    note: NATIVE_NOTE,
    async time() {
      // one run, no warm-up of its own: in a pair it follows the other call, as every contestant does
      const raw = await session.command(method, store, -1);
      return { ms: raw.times[0], raw };
    },
  };
}

/** Peak memory of one cold native weld in a fresh process: { peakKB, exact } or { error }. */
export function nativeMemory(path, file, ds, method, store) {
  const result = spawnSync(path, [...datasetArgs(file, ds), '--method', method, '--store', store, '--memory'], {
    encoding: 'utf8',
  });
  try {
    const answer = JSON.parse(result.stdout.trim().split('\n').pop());
    if (answer.error) return { error: answer.error };
    return { peakKB: answer.peak_kb - answer.rss_before_kb, exact: answer.exact };
  } catch {
    return { error: `native memory run failed: ${tail(result.stderr || String(result.error))}` };
  }
}
