#!/usr/bin/env node
// meshweld: weld an STL, OBJ, PLY or glTF file with a guaranteed tolerance.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { INPUTS, OUTPUTS, UserError, formatOf } from '../kinds.js';

// glTF-Transform, the module and the file formats load once the options are read: --version,
// --help and a mistake in the options do not wait for them.
const load = () => Promise.all([import('@gltf-transform/core'), import('meshweld'), import('meshweld/gltf-transform'), import('../formats.js')])
  .then(([{ Logger }, { methods }, { weld }, { measure, readMesh, writeMesh }]) => ({ Logger, methods, weld, measure, readMesh, writeMesh }));

const methodNames = (methods) => methods.filter((m) => m !== 'hex');

const help = (methods) => `Usage: meshweld <input> <output> [options]

Welds the vertices of a mesh that lie within a radius of each other, with meshweld's guarantee:
no two output vertices within the radius (and within each attribute tolerance).

Input:  ${INPUTS.join(' ')} (STL binary or ASCII)
Output: ${OUTPUTS.join(' ')} (by the output name; STL and PLY are written binary)

Options:
  --radius <r>            absolute radius, in the model's units
  --relative <f>          radius as a fraction of each mesh's bounding-box diagonal (default 1e-4)
  --relative-to <what>    'primitive' (default) or 'scene' for --relative
  --normal-tolerance <t>  normals within t (Euclidean) may merge (default 0.05, about 2.9 degrees)
  --uv-tolerance <t>      texture coordinates within t may merge (default 1e-4)
  --color-tolerance <t>   vertex colours within t (0..1) may merge (default 1e-3)
  --method <m>            ${methodNames(methods).join(', ')} (default auto)
  --keep-degenerate       keep triangles whose corners weld together
  --remove-duplicates     remove repeated triangles (same corners, same winding)
  --quiet                 print nothing but errors
  --version, --help

STL normals are per face: they are dropped, and corners weld by position alone.`;

const OPTIONS = {
  radius: { type: 'string' },
  relative: { type: 'string' },
  'relative-to': { type: 'string' },
  'normal-tolerance': { type: 'string' },
  'uv-tolerance': { type: 'string' },
  'color-tolerance': { type: 'string' },
  method: { type: 'string' },
  'keep-degenerate': { type: 'boolean' },
  'remove-duplicates': { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
};

class UsageError extends Error {}

// A decimal number, as a user writes one: digits with an optional point and exponent (not the hex,
// binary or octal forms Number also reads, so '0x10' is not 16).
const DECIMAL = /^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i;

function number(values, name) {
  const text = values[name];
  if (text === undefined) return undefined;
  const value = DECIMAL.test(text) ? Number(text) : NaN;
  if (!Number.isFinite(value) || value < 0) throw new UsageError(`--${name} must be a finite decimal number >= 0, got ${JSON.stringify(text)}`);
  return value;
}

function parse(argv) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true, tokens: true });
  } catch (error) {
    const ambiguous = /^Option '(--[\w-]+)' argument is ambiguous/.exec(error.message);
    if (ambiguous) throw new UsageError(`${ambiguous[1]} needs a value; write ${ambiguous[1]}=-1 for a value that starts with a dash`);
    const line = error.message.split('\n')[0].replace(/\. To specify a positional.*$/, '');
    throw new UsageError(`${line[0].toLowerCase()}${line.slice(1)} (meshweld --help lists the options)`);
  }
  const { values, positionals, tokens } = parsed;
  // an option given twice is a mistake (parseArgs would keep the last silently): --radius 1e-4 ... --radius 1e-3
  const seen = new Set();
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    if (seen.has(token.name) && OPTIONS[token.name].type === 'string') throw new UsageError(`--${token.name} is given twice; give it once`);
    seen.add(token.name);
  }
  if (values.help || values.version) return { values };
  if (positionals.length !== 2) {
    throw new UsageError(`expected an input and an output file, got ${positionals.length} name${positionals.length === 1 ? '' : 's'}: meshweld <input> <output> [options]`);
  }
  const options = { tolerances: {}, removeDegenerate: !values['keep-degenerate'], removeDuplicates: !!values['remove-duplicates'] };
  const radius = number(values, 'radius');
  const relative = number(values, 'relative');
  if (radius !== undefined && relative !== undefined) throw new UsageError('give --radius or --relative, not both');
  if (radius !== undefined) options.radius = radius;
  if (relative !== undefined) options.relative = relative;
  const to = values['relative-to'];
  if (to !== undefined) {
    if (to !== 'primitive' && to !== 'scene') throw new UsageError(`--relative-to must be 'primitive' or 'scene', got ${JSON.stringify(to)}`);
    if (radius !== undefined) throw new UsageError('--relative-to goes with --relative, not --radius');
    options.relativeTo = to;
  }
  for (const [flag, family] of [['normal-tolerance', 'NORMAL'], ['uv-tolerance', 'TEXCOORD'], ['color-tolerance', 'COLOR']]) {
    const t = number(values, flag);
    if (t !== undefined) options.tolerances[family] = t;
  }
  if (values.method !== undefined) options.method = values.method; // checked by checkMethod once the module is loaded
  const [input, output] = positionals;
  formatOf(input, INPUTS, 'input');
  formatOf(output, OUTPUTS, 'output');
  return { values, input, output, options };
}

function checkMethod(method, methods) {
  const allowed = methodNames(methods);
  if (method !== undefined && !allowed.includes(method)) throw new UsageError(`--method must be one of ${allowed.join(', ')}, got ${JSON.stringify(method)}`);
}

const seconds = (ms) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);
const figure = (n) => n.toLocaleString('en-US');

// Runs a stage; from about a second on, a line on stderr every second says it is still going.
async function stage(name, quiet, work) {
  const start = performance.now();
  const progress = { done: 0, total: 0 };
  const timer = setInterval(() => {
    if (quiet) return;
    const part = progress.total > 1 ? ` ${progress.done}/${progress.total}` : '';
    process.stderr.write(`meshweld: ${name}${part}... ${seconds(performance.now() - start)}\n`);
  }, 1000);
  try {
    const result = await work(progress);
    return [result, performance.now() - start];
  } finally {
    clearInterval(timer);
  }
}

/** A logger that sends glTF-Transform's warnings to stderr (skipped primitives, conversions). */
const notesLogger = (Logger, quiet) => new (class Notes extends Logger {
  constructor(quiet) {
    super(Logger.Verbosity.WARN);
    this.quiet = quiet;
  }
  debug() {}
  info(text) {
    if (!this.quiet && / converted to /.test(text)) process.stderr.write(`${text}\n`);
  }
  warn(text) {
    if (!this.quiet) process.stderr.write(`${text}\n`);
  }
  error(text) {
    process.stderr.write(`${text}\n`);
  }
})(quiet);

async function main(argv) {
  const { values, input, output, options } = parse(argv);
  if (values.help) return void process.stdout.write(`${help((await import('meshweld')).methods)}\n`);
  if (values.version) {
    const version = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
    return void process.stdout.write(`${version}\n`);
  }
  const { Logger, methods, weld, measure, readMesh, writeMesh } = await load();
  checkMethod(options.method, methods);
  const quiet = !!values.quiet;
  const [document, readTime] = await stage('read', quiet, () => readMesh(input));
  document.setLogger(notesLogger(Logger, quiet));
  const before = measure(document);
  const [radii, weldTime] = await stage('weld', quiet, async (progress) => {
    progress.total = document.getRoot().listMeshes().reduce((n, m) => n + m.listPrimitives().length, 0);
    const used = [];
    // one run of the transform over the document (the scene measured once, shared arrays welded
    // once); after each primitive, a turn of the event loop lets the progress line through
    const onPrimitive = (report) => {
      if (!report.skipped) used.push(report.radius);
      progress.done++;
      return new Promise((resolve) => setImmediate(resolve));
    };
    try {
      await document.transform(weld({ ...options, onPrimitive }));
    } catch (error) {
      // a value the weld refuses (a NaN normal, a coordinate past a grid's range) is the file's
      if (!(error instanceof RangeError) || !error.message.startsWith('meshweld: weld: ')) throw error;
      throw new UserError(`${input}: ${error.message.slice('meshweld: weld: '.length)}`);
    }
    return used;
  });
  const after = measure(document);
  const notes = [];
  const [, writeTime] = await stage('write', quiet, () => writeMesh(document, output, notes));
  if (quiet) return;
  const low = Math.min(...radii);
  const high = Math.max(...radii);
  const short = (r) => (r !== 0 && (r < 1e-3 || r >= 1e4) ? r.toExponential(2) : String(Number(r.toPrecision(3))));
  const radius = radii.length === 0 ? 'nothing welded' : low === high ? `radius ${short(low)}` : `radius ${short(low)} to ${short(high)}`;
  const rows = [
    ['vertices', before.vertices, after.vertices],
    ['triangles', before.triangles, after.triangles],
    ['open edges', before.open, after.open],
  ];
  const lines = [`meshweld: ${input} -> ${output} (${radius})`, `${''.padEnd(12)}${'before'.padStart(12)}${'after'.padStart(12)}`];
  for (const [name, a, b] of rows) lines.push(`${name.padEnd(12)}${figure(a).padStart(12)}${figure(b).padStart(12)}`);
  lines.push(`read ${seconds(readTime)}, weld ${seconds(weldTime)}, write ${seconds(writeTime)}, total ${seconds(performance.now())} (with start-up)`);
  for (const note of notes) lines.push(`note: ${note}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

main(process.argv.slice(2)).catch((error) => {
  const usage = error instanceof UsageError || (error instanceof UserError && /^unknown (input|output) format/.test(error.message));
  const known = usage || error instanceof UserError;
  const message = known ? error.message : `unexpected error: ${String(error?.message ?? error).split('\n')[0]}`;
  process.stderr.write(`meshweld: ${message}\n`);
  process.exitCode = usage ? 2 : 1;
});
