// The README's performance table and speed-target table from a full run's bench/data/results.json:
//   node bench/readme-table.mjs [results.json]
import { readFileSync } from 'node:fs';
import { targets, targetsTable } from './report.mjs';

const file = process.argv[2] ?? new URL('./data/results.json', import.meta.url);
const run = JSON.parse(readFileSync(file, 'utf8'));
const fmt = (v) => (v >= 100 ? Math.round(v).toLocaleString('en-US') : v >= 1 ? v.toPrecision(3) : v.toPrecision(2));
const columns = [['native:auto:loose', 'native `auto`'], ['meshopt', 'meshoptimizer (exact)'], ['gltf', 'glTF-Transform (exact)'],
  ['three', 'three.js `mergeVertices`'], ['article', 'article port (JS `Map`)']];
const lines = [
  `| dataset | points | meshweld \`auto\` | ${columns.map(([, t]) => t).join(' | ')} | pairs within \`r\` left by \`mergeVertices\` |`,
  `|---|---:|---:|${columns.map(() => '---:').join('|')}|---:|`,
];
for (const d of run.datasets) {
  const row = (id) => d.rows.find((r) => r.id === id);
  const auto = row('wasm:auto:loose');
  if (!auto?.medianMs) continue;
  const cells = columns.map(([id]) => {
    const r = row(id);
    if (!r?.medianMs) return '–';
    return r.ratio?.median ? `${fmt(r.medianMs)} (${r.ratio.median.toFixed(2)})` : fmt(r.medianMs);
  });
  const three = row('three');
  const left = three ? (three.pairsCapped ? `≥ ${three.pairs.toLocaleString('en-US')}` : three.pairs.toLocaleString('en-US')) : '–';
  lines.push(`| ${d.name} | ${d.n.toLocaleString('en-US')} | ${fmt(auto.medianMs)} | ${cells.join(' | ')} | ${left} |`);
}
console.log(`${run.cpu}, ${run.cores} cores, Node ${run.node}, commit ${run.commit}, ${Math.round(run.wallSeconds)} s\n`);
console.log(lines.join('\n'));
console.log(`\nThe speed targets, this run (ratios of back-to-back pairs, medians; WebAssembly, \`auto\`):\n`);
console.log(targetsTable(targets(run.datasets, { quick: false })));
