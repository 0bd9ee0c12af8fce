// The benchmark: meshweld (WebAssembly, every method and store; native) against
// meshoptimizer, glTF-Transform, three.js and a naive JS port of the article, on real and
// synthetic data; on the STL soups also meshweld/three's weldGeometry against weld(), and the
// attribute weld on crowds (bench/crowds.mjs). Markdown on
// stdout (and in bench/data/results.md), progress on stderr, every figure in
// bench/data/results.json.
//
//   npm run bench [-- --quick] [--only NAME,NAME] [--no-memory] [--no-native] [--memory-jobs N]
//
//   --quick          smaller datasets and fewer runs (under a minute)
//   --only           datasets whose name contains one of the given words
//   --no-memory      skip the peak-memory children
//   --no-native      skip building and running the C program
//   --memory-jobs N  memory children run at once (default 2; they are not timed)
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { contestantNotes, loadAll } from './contestants.mjs';
import { datasets } from './datasets.mjs';
import { benchCrowds, crowdsTable } from './crowds.mjs';
import { benchGeometry } from './geometry.mjs';
import { benchDataset, measureMemory, WARM_POINTS } from './measure.mjs';
import { snapshotModule } from './module.mjs';
import { buildNative, NATIVE_NOTE } from './native.mjs';
import { datasetTable, geometryTable, header, targets, targetsText } from './report.mjs';
import { policy, sinkResult } from './timing.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dataDir = `${root}bench/data`;
const USAGE = 'usage: npm run bench [-- --quick] [--only NAME,NAME] [--no-memory] [--no-native] [--memory-jobs N]';

function parseArgs(argv) {
  const options = { quick: false, only: null, memory: true, native: true, memoryJobs: 2 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') options.quick = true;
    else if (a === '--only' && i + 1 < argv.length) options.only = argv[++i].split(',');
    else if (a === '--no-memory') options.memory = false;
    else if (a === '--no-native') options.native = false;
    else if (a === '--memory-jobs' && Number(argv[i + 1]) >= 1) options.memoryJobs = Number(argv[++i]);
    else {
      console.error(`unknown argument ${a}\n${USAGE}`);
      process.exit(2);
    }
  }
  return options;
}

function machine(argv, options, rules, nativeNote) {
  let cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  try {
    cpu = readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.*)$/m)?.[1] ?? cpu;
  } catch {}
  const git = (args) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  const head = git(['rev-parse', '--short', 'HEAD']);
  const dirty = git(['status', '--porcelain', '--', 'c', 'js']).stdout?.trim();
  const args = argv.join(' ');
  return {
    command: process.env.npm_lifecycle_event === 'bench' ? `npm run bench${args ? ` -- ${args}` : ''}` : `node bench/run.mjs ${args}`.trim(),
    cpu,
    cores: os.availableParallelism?.() ?? os.cpus().length,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    memoryGB: Math.round(os.totalmem() / 2 ** 30),
    node: process.versions.node,
    v8: process.versions.v8,
    commit: head.status === 0 ? `${head.stdout.trim()}${dirty ? ' (with uncommitted changes in c/ or js/)' : ''}` : null,
    nativeNote,
    rules: `as many as fit in ${rules.budgetMs} ms, at least 3 (2 when a run takes over 1 s, 1 over 3 s), at most ${rules.maxReps}`,
    warmPoints: WARM_POINTS,
    memoryCapMs: rules.memoryCapMs,
    quick: options.quick,
  };
}

const started = performance.now();
const markdown = [];
const out = (text) => {
  console.log(text);
  markdown.push(text);
};
const progress = (text) => process.stderr.write(`${((performance.now() - started) / 1e3).toFixed(1).padStart(6)} ${text}\n`);

const options = parseArgs(process.argv.slice(2));
const rules = policy(options.quick);
mkdirSync(dataDir, { recursive: true });
snapshotModule(`${dataDir}/js`); // one meshweld build for the whole run, children included
let nativePath = null;
let nativeNote = 'native: not run (--no-native)';
if (options.native) {
  progress('building the native benchmark (cmake, build-bench/)');
  const build = buildNative();
  ({ path: nativePath, note: nativeNote } = build);
  if (build.log) progress(`${nativeNote}:\n${build.log}`);
}
await loadAll();
const info = machine(process.argv.slice(2), options, rules, nativeNote);
info.contestants = await contestantNotes(NATIVE_NOTE);
out(header(info));

const results = [];
const plan = datasets(options).filter((ds) => !options.only || options.only.some((word) => ds.name.includes(word)));
for (const ds of plan) {
  const t0 = performance.now();
  progress(`${ds.name} (${ds.n.toLocaleString('en-US')} points)`);
  const points = ds.build();
  const file = `${dataDir}/${ds.name}.f32`; // for the native program and the memory children
  writeFileSync(file, new Uint8Array(points.buffer, points.byteOffset, points.byteLength));
  const rows = await benchDataset(ds, points, { file, nativePath, rules, progress });
  if (options.memory) {
    await measureMemory(rows, ds, { file, nativePath, parallel: options.memoryJobs, capMs: rules.memoryCapMs, quick: options.quick, progress });
  }
  let weldGeometry;
  if (ds.geometry) {
    try {
      weldGeometry = await benchGeometry(ds, { rules, progress });
    } catch (error) {
      weldGeometry = { error: String(error?.message ?? error).split('\n')[0] };
      progress(`  weldGeometry: ${weldGeometry.error}`);
    }
  }
  const { build, geometry, ...meta } = ds;
  results.push({ ...meta, seconds: (performance.now() - t0) / 1e3, rows, ...(weldGeometry && { weldGeometry }) });
  out(datasetTable(ds, rows));
  if (weldGeometry) out(geometryTable(ds, weldGeometry));
  progress(`  ${((performance.now() - t0) / 1e3).toFixed(1)} s`);
}

let crowds = null;
if (!options.only) {
  progress('crowds: the attribute weld where the attributes keep vertices apart');
  crowds = await benchCrowds({ quick: options.quick, rules, progress });
  out(crowdsTable(crowds));
}

const summary = targets(results, { quick: options.quick });
out(targetsText(summary));
const wallSeconds = (performance.now() - started) / 1e3;
out(`Wall time: ${wallSeconds.toFixed(0)} s. Sink: ${sinkResult()}.`);
const json = { ...info, date: new Date().toISOString(), wallSeconds, datasets: results, crowds, targets: summary, sink: sinkResult() };
writeFileSync(`${dataDir}/results.json`, `${JSON.stringify(json, null, 1)}\n`);
writeFileSync(`${dataDir}/results.md`, `${markdown.join('\n')}\n`);
progress('results: bench/data/results.md and results.json');
