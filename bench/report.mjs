// Markdown output: the header, one table per dataset (and weldGeometry's on the STL soups), the
// speed targets.
import { PAIR_LIMIT } from './quality.mjs';

const int = (v) => Math.round(v).toLocaleString('en-US');

function ms(v) {
  if (!Number.isFinite(v)) return '';
  if (v >= 100) return v.toFixed(0);
  if (v >= 10) return v.toFixed(1);
  if (v >= 1) return v.toFixed(2);
  return v.toFixed(3);
}

function sig(v, digits = 3) {
  if (!Number.isFinite(v)) return '';
  if (v === 0) return '0';
  return Number(v.toPrecision(digits)).toString();
}

const row = (cells) => `| ${cells.join(' | ')} |`;

function pairsText(r) {
  if (r.pairs === undefined) return '';
  return r.pairsCapped ? `>= ${int(PAIR_LIMIT)}` : int(r.pairs);
}

function memoryText(r) {
  if (!r.memory) return '';
  if (r.memory.error) return 'error';
  if (r.memory.skipped) return '–';
  const mb = Math.max(0, r.memory.peakKB) / 1024;
  const text = mb >= 10 ? mb.toFixed(0) : mb.toFixed(1);
  return r.memory.exact ? text : `<= ${text}`;
}

function storeText(r) {
  if (r.group === 'peer') return r.exact ? 'exact only' : 'tolerance';
  return r.store;
}

function labelText(r) {
  let label = r.label;
  if (r.method === 'auto' && r.resolved) label = `${label} (${r.resolved})`;
  return label;
}

function ratioText(r) {
  if (r.anchor) return '1';
  if (!r.ratio) return '';
  const v = r.ratio.median;
  return v < 1 ? `${sig(v)} (${sig(1 / v)}x faster)` : `${sig(v)}`;
}

export function header(info) {
  const unmeasured = info.quick
    ? "with --quick, datasets under 1e5 points and meshweld's methods other than auto"
    : "meshweld's methods other than auto above 1M points";
  return [
    '# meshweld benchmark',
    '',
    `- command: \`${info.command}\``,
    `- machine: ${info.cpu}, ${info.cores} cores (${info.os}), ${info.memoryGB} GB`,
    `- Node ${info.node} (V8 ${info.v8})${info.commit ? `, meshweld at ${info.commit}` : ''}`,
    `- ${info.nativeNote}`,
    `- times: median and min over the timed runs, after one untimed warm-up on the first ${int(info.warmPoints)} points; ` +
      `runs: ${info.rules}; a full garbage collection, untimed, before any run that follows 32 MB or more of garbage`,
    "- meshweld auto ÷ it: time of meshweld auto (loose, WebAssembly) over the contestant's, the median of pairs run " +
      'back to back (A B, B A, ...) in this process; below 1 meshweld is faster',
    "- on the STL soups, meshweld/three's `weldGeometry` against `weld()` on the same positions, in a table after the " +
      "dataset's (interleaved pairs; a uv attribute added untimed beforehand)",
    '- pairs <= r: output points still within r of each other (exact kd-tree validator, untimed); ' +
      'max shift / r: largest |input - its output| in units of r',
    '- peak MB: memory one cold call touches (resident-set high-water mark above the resident set before it) in a fresh ' +
      `process per contestant and dataset, result included; – where not measured (to keep the run short): runs over ` +
      `${info.memoryCapMs / 1000} s; ${unmeasured}`,
    '',
    'Contestants (all in this process; the native program is its child):',
    '',
    ...info.contestants.map((c) => `- ${c.label}: ${c.note}`),
    '',
  ].join('\n');
}

export function datasetTable(ds, rows) {
  const lines = [
    `### ${ds.name}: ${int(ds.n)} points, ${ds.dim}D, r = ${sig(ds.radius, 4)}`,
    '',
    ds.description,
    '',
    row(['contestant', 'store', 'runs', 'median ms', 'min ms', 'ns/point', 'outputs', 'pairs <= r', 'max shift / r', 'peak MB', 'meshweld auto ÷ it']),
    row(['---', '---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
  ];
  for (const r of rows) {
    if (r.skip || r.error) {
      lines.push(row([labelText(r), storeText(r), '', '', '', '', '', '', '', '', r.skip ?? `error: ${r.error}`]));
      continue;
    }
    lines.push(
      row([
        labelText(r),
        storeText(r),
        String(r.times.length),
        ms(r.medianMs),
        ms(r.minMs),
        int((r.medianMs * 1e6) / ds.n),
        r.count === undefined ? '' : int(r.count),
        pairsText(r),
        r.displacement === undefined ? '' : sig(r.displacement),
        memoryText(r),
        ratioText(r),
      ]),
    );
  }
  const notes = rows.filter((r) => r.remark).map((r) => `- ${r.label} ${r.store}: ${r.remark}`);
  for (const r of rows) if (r.memory?.error) notes.push(`- ${r.label} ${r.store ?? ''}: peak memory not measured: ${r.memory.error}`);
  return [...lines, '', ...[...new Set(notes)], ''].join('\n');
}

const find = (results, name) => results.find((d) => d.name === name);
const rowOf = (d, id) => d?.rows.find((r) => r.id === id && !r.skip && !r.error);
const peerRatio = (d, id) => rowOf(d, id)?.ratio?.median;

function verdict(ok) {
  return ok === undefined ? 'not measured' : ok ? 'met' : 'NOT met';
}

/** The weldGeometry measurements on one soup. */
export function geometryTable(ds, g) {
  const title = `#### weldGeometry (meshweld/three) on ${ds.name}`;
  if (g.error) return [title, '', `error: ${g.error}`, ''].join('\n');
  const ratios = [`${sig(g.positionOverWeld.median)} (÷ \`weld()\`)`, `${sig(g.tolerancesOverPosition.median)} (÷ by position)`];
  const lines = [
    title,
    '',
    `The soup as a BufferGeometry: its positions (the points above), ${ds.normals}, and a uv attribute added ` +
      `untimed beforehand (the positions projected on the ${g.uvAxes} plane, scaled to [0, 1]). ` +
      'Ratios: medians of interleaved pairs (A B, B A, ...) of the call against the one above it.',
    '',
    row(['call', 'runs', 'median ms', 'min ms', 'ns/point', 'vertices out', 'ratio']),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:']),
  ];
  g.rows.forEach((r, k) => {
    lines.push(row([r.label, String(r.times.length), ms(r.medianMs), ms(r.minMs), int((r.medianMs * 1e6) / ds.n), int(r.outputs), k ? ratios[k - 1] : '1']));
  });
  return [...lines, ''].join('\n');
}

const size = (n) => (n >= 1e6 ? `${sig(n / 1e6)}M` : `${sig(n / 1e3)}k`);
const named = (list) => list.map((d) => `${d.name} (${size(d.n)})`).join(', ');
const worstOf = (cases, higherIsWorse = true) =>
  cases.reduce((w, c) => (!w || (higherIsWorse ? c.value > w.value : c.value < w.value) ? c : w), null);
const allText = (cases, digits = 2) => cases.map((c) => `${c.name} ${sig(c.value, digits)}`).join(', ');

/**
 * The six speed targets, from the results of this run: WebAssembly, auto, the default (loose)
 * store. With quick, each is computed on the sets the quick run has (named in its text).
 */
export function targets(results, { quick }) {
  const out = [];
  const meshoptRatio = (d) => ({ name: d.name, value: peerRatio(d, 'meshopt') });

  // 1. the bunny soup at r = 1e-5 of the diagonal and the 1M procedural tiles: at most 1.0x meshopt
  const d1 = results.filter((d) => d.name === 'stl-bunny-1e-5' || d.family === 'tiles');
  const c1 = d1.map(meshoptRatio).filter((c) => c.value !== undefined);
  const w1 = worstOf(c1);
  out.push({
    n: 1,
    text:
      'bunny soup (r = 1e-5 of the diagonal) and procedural tiles: time(meshweld auto) / time(meshoptimizer generatePositionRemap, exact) <= 1.0' +
      ` (sets: ${named(d1) || 'none in this run'})`,
    cases: w1 ? [`worst ${sig(w1.value)} (${w1.name}); all: ${allText(c1, 3)}`] : [],
    parts: [{ what: 'bunny soup and tiles: time ÷ meshoptimizer', limit: 1.0, values: c1 }],
  });

  // 2. 1M uniform 3D points, 30% merged: at most 1.5x meshopt (quick: the largest uniform 3D set)
  const uniform3 = results.filter((d) => d.family === 'uniform' && d.dim === 3).sort((a, b) => b.n - a.n);
  const d2 = find(results, 'uniform-3d-1M') ?? (quick ? uniform3[0] : undefined);
  const v2 = d2 && peerRatio(d2, 'meshopt');
  out.push({
    n: 2,
    text: `uniform 3D points, ~30% merged: time(meshweld auto) / time(meshoptimizer exact remap) <= 1.5 (set: ${d2 ? named([d2]) : 'uniform-3d-1M, not in this run'})`,
    cases: v2 === undefined ? [] : [`${d2.name} ${sig(v2)}`],
    parts: [{ what: 'uniform 3D, 30% merged: time ÷ meshoptimizer', limit: 1.5, values: v2 === undefined ? [] : [{ name: d2.name, value: v2 }] }],
  });

  // 3. >= 40x faster than three.js and >= 5x faster than glTF-Transform on every dataset >= 1e5 points
  const big = results.filter((d) => d.n >= 1e5);
  const speedups = (id) => big.map((d) => ({ name: d.name, value: 1 / peerRatio(d, id) })).filter((c) => Number.isFinite(c.value));
  const three = speedups('three');
  const gltf = speedups('gltf');
  const w3 = worstOf(three, false);
  const wg = worstOf(gltf, false);
  out.push({
    n: 3,
    text:
      'every dataset of 1e5 points or more: speed-up over three.js mergeVertices >= 40 and over glTF-Transform weld() >= 5' +
      ` (sets: ${named(big) || 'none in this run'})`,
    cases: [
      w3 && `three.js: worst ${sig(w3.value)}x (${w3.name}); all: ${allText(three)}`,
      wg && `glTF-Transform: worst ${sig(wg.value)}x (${wg.name}); all: ${allText(gltf)}`,
    ].filter(Boolean),
    parts: [
      { what: 'speed-up over three.js `mergeVertices`, sets ≥ 1e5 points', limit: 40, values: three, higherIsBetter: true },
      { what: 'speed-up over glTF-Transform `weld()`, sets ≥ 1e5 points', limit: 5, values: gltf, higherIsBetter: true },
    ],
  });

  // 4. time(4M uniform) <= 4.4 time(1M uniform); quick: the largest uniform set of a dimension and
  // its 4x smaller one
  const growth = [];
  for (const dim of [2, 3]) {
    const sets = results.filter((d) => d.family === 'uniform' && d.dim === dim).sort((a, b) => b.n - a.n);
    const pairsOf = sets
      .map((large) => [sets.find((d) => d.n * 4 === large.n), large])
      .filter(([small, large]) => small && (quick || large.n === 4e6));
    const [small, large] = pairsOf[0] ?? [];
    const a = rowOf(small, 'wasm:auto:loose');
    const b = rowOf(large, 'wasm:auto:loose');
    if (a && b) growth.push({ name: `${dim}D ${size(small.n)} -> ${size(large.n)}`, value: b.medianMs / a.medianMs, sets: [small, large] });
  }
  const w4 = worstOf(growth);
  out.push({
    n: 4,
    text:
      'uniform points: time(4n) / time(n) <= 4.4, medians of meshweld auto' +
      ` (sets: ${growth.length ? growth.map((c) => named(c.sets)).join('; ') : quick ? 'no uniform set with one 4x smaller in this run' : 'uniform 1M and 4M, not in this run'})`,
    cases: w4 ? [`worst ${sig(w4.value)} (${w4.name}); all: ${allText(growth, 3)}`] : [],
    parts: [{ what: 'uniform points: time(4M) ÷ time(1M)', limit: 4.4, values: growth }],
  });

  // 5. weldGeometry by position <= 1.15 weld(); with normal and uv tolerances <= 1.5 by position
  const soups = results.filter((d) => d.weldGeometry && !d.weldGeometry.error);
  const overWeld = soups.map((d) => ({ name: d.name, value: d.weldGeometry.positionOverWeld.median }));
  const overPosition = soups.map((d) => ({ name: d.name, value: d.weldGeometry.tolerancesOverPosition.median }));
  const w5a = worstOf(overWeld);
  const w5b = worstOf(overPosition);
  out.push({
    n: 5,
    text:
      "STL soups: time(weldGeometry, attributes: 'position') / time(weld(), same positions) <= 1.15, and " +
      "time(weldGeometry, attributes: { normal: 0.05, uv: 1e-4 }) / time(weldGeometry, 'position') <= 1.5, interleaved pairs" +
      ` (sets: ${named(soups) || 'none in this run'})`,
    cases: [
      w5a && `by position ÷ weld(): worst ${sig(w5a.value)} (${w5a.name}); all: ${allText(overWeld, 3)}`,
      w5b && `with tolerances ÷ by position: worst ${sig(w5b.value)} (${w5b.name}); all: ${allText(overPosition, 3)}`,
    ].filter(Boolean),
    parts: [
      { what: "STL soups: `weldGeometry` by position ÷ `weld()`", limit: 1.15, values: overWeld },
      { what: 'STL soups: `weldGeometry` with normal and uv tolerances ÷ by position', limit: 1.5, values: overPosition },
    ],
  });

  // 6. WebAssembly within 1.3x of native (auto, same data), every dataset with a native run
  const native = results.map((d) => ({ name: d.name, n: d.n, value: peerRatio(d, 'native:auto:loose') })).filter((c) => c.value !== undefined);
  const w6 = worstOf(native);
  out.push({
    n: 6,
    text:
      'time(WebAssembly) / time(native C), meshweld auto on the same data, interleaved pairs: <= 1.3 on every dataset' +
      ` (sets: ${native.length ? `all ${native.length} of this run` : 'none: native not run'})`,
    cases: w6 ? [`worst ${sig(w6.value)} (${w6.name}); all: ${allText(native)}`] : [],
    parts: [{ what: 'WebAssembly ÷ native C, every set', limit: 1.3, values: native }],
  });
  // met when every bound of a target holds on every set; unknown when a bound has no set
  for (const t of out) {
    const met = t.parts.map(partMet);
    t.ok = met.includes(undefined) ? undefined : met.every(Boolean);
  }
  return out;
}

// Whether every set meets a target's bound (values at most its limit, or at least it where higher
// is better); undefined without sets.
function partMet(part) {
  if (part.values.length === 0) return undefined;
  return part.values.every((c) => (part.higherIsBetter ? c.value >= part.limit : c.value <= part.limit));
}

/**
 * The targets as one Markdown table, a row per bound: the range this run measured over its sets,
 * the worst set, and whether every set meets the bound.
 */
export function targetsTable(list) {
  const lines = ['| target | bound | this run | worst | met |', '|---|---|---|---|---|'];
  for (const t of list) {
    for (const part of t.parts) {
      const values = part.values.map((c) => c.value);
      const worst = worstOf(part.values, !part.higherIsBetter);
      const [lo, hi] = [Math.min(...values), Math.max(...values)];
      const range = !worst ? '–' : lo === hi ? sig(lo) : `${sig(lo)} to ${sig(hi)}`;
      const met = { true: 'yes', false: 'no', undefined: '–' }[partMet(part)];
      const bound = `${part.higherIsBetter ? '≥' : '≤'} ${Number.isInteger(part.limit) && part.limit < 10 ? part.limit.toFixed(1) : part.limit}`;
      lines.push(row([`${t.n}. ${part.what}`, bound, range, worst ? `${worst.name} ${sig(worst.value)}` : '–', met]));
    }
  }
  return lines.join('\n');
}

export function targetsText(list) {
  const lines = ['## Speed targets (WebAssembly, auto, the default loose store)', ''];
  for (const t of list) {
    lines.push(`${t.n}. ${t.text}: **${verdict(t.ok)}**`);
    for (const c of t.cases) lines.push(`   - ${c}`);
  }
  return `${lines.join('\n')}\n`;
}
