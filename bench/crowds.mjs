// The attribute weld where the attributes keep apart what positions alone would merge: the pole of
// a fan where every corner has its own uv, the same pole smeared over points within r of each
// other, the centre of a disc whose corners differ in one component of the several compared, and
// a dense cluster of points each with its own colour (or all with one). weldMesh with tolerances
// against weld() on the same positions, as interleaved pairs: a crowd of representatives at one
// place should cost about what any other vertices cost.
//
//   node bench/crowds.mjs [--quick]     (npm run bench runs it too, after the datasets)
import { pathToFileURL } from 'node:url';
import { meshweldModule } from './module.mjs';
import { mulberry32 } from './prng.mjs';
import { median, minimum, pairs, policy, timeOnce } from './timing.mjs';

const RADIUS = 1e-5;

/** A fan of k triangles around a pole: each corner its own uv (the pole's corners differ in u). */
function fan(k, smear) {
  const random = mulberry32(7);
  const positions = new Float32Array(k * 9);
  const uv = new Float32Array(k * 6);
  for (let t = 0; t < k; t++) {
    const a = (t / k) * 2 * Math.PI;
    const b = ((t + 1) / k) * 2 * Math.PI;
    // the pole at (0, 0, 1), or a point of a ball of radius r / 2 around it
    const pole = smear ? [(random() - 0.5) * RADIUS * 0.5, (random() - 0.5) * RADIUS * 0.5, 1] : [0, 0, 1];
    positions.set([...pole, Math.cos(a), Math.sin(a), 0, Math.cos(b), Math.sin(b), 0], t * 9);
    uv.set([(t + 0.5) / k, 1, t / k, 0, (t + 1) / k, 0], t * 6);
  }
  return { positions, attributes: { uv: { array: uv, itemSize: 2 } }, tolerances: { uv: 1e-6 }, primitive: 'triangles' };
}

/**
 * A flat disc of k triangles around its centre, with polar uvs (u the distance from the centre, v
 * the angle) and its normal: the centre's corners differ in v alone, and normals are compared too.
 */
function disc(k) {
  const positions = new Float32Array(k * 9);
  const normal = new Float32Array(k * 9);
  const uv = new Float32Array(k * 6);
  for (let t = 0; t < k; t++) {
    const a = (t / k) * 2 * Math.PI;
    const b = ((t + 1) / k) * 2 * Math.PI;
    positions.set([0, 0, 0, Math.cos(a), Math.sin(a), 0, Math.cos(b), Math.sin(b), 0], t * 9);
    for (let c = 0; c < 3; c++) normal.set([0, 0, 1], t * 9 + c * 3);
    uv.set([0, (t + 0.5) / k, 1, t / k, 1, (t + 1) / k], t * 6);
  }
  return {
    positions,
    attributes: { normal: { array: normal, itemSize: 3 }, uv: { array: uv, itemSize: 2 } },
    tolerances: { normal: 0.01, uv: 1e-6 },
    primitive: 'triangles',
  };
}

/** n points in a cube of edge r / 2 (every one within r of every other), with colours. */
function cluster(n, oneColour) {
  const random = mulberry32(11);
  const positions = new Float32Array(n * 3);
  const colour = new Float32Array(n * 3);
  for (let i = 0; i < n * 3; i++) {
    positions[i] = (random() - 0.5) * RADIUS * 0.5;
    colour[i] = oneColour ? 0.5 : random();
  }
  return { positions, attributes: { colour: { array: colour, itemSize: 3 } }, tolerances: { colour: 0.01 }, primitive: 'points' };
}

export function crowdCases(quick) {
  const k = quick ? 6000 : 60000;
  const n = quick ? 20000 : 200000;
  return [
    { name: 'fan, one pole', text: `${k.toLocaleString('en-US')} triangles, every corner its own uv (tolerance 1e-6)`, make: () => fan(k, false) },
    { name: 'fan, smeared pole', text: 'the same, the pole corners spread within r / 2', make: () => fan(k, true) },
    { name: 'disc, polar uvs', text: `${k.toLocaleString('en-US')} triangles around the centre of a flat disc, uv = (distance, angle), normals compared too (tolerances 0.01, 1e-6)`, make: () => disc(k) },
    { name: 'cluster, colours', text: `${n.toLocaleString('en-US')} points within r / 2, random colours (tolerance 0.01)`, make: () => cluster(n, false) },
    { name: 'cluster, one colour', text: 'the same points, all one colour', make: () => cluster(n, true) },
  ];
}

/** Each case: weldMesh with its tolerances ÷ weld() on its positions, interleaved pairs. */
export async function benchCrowds({ quick = false, rules = policy(quick), progress = () => {} } = {}) {
  const { weld, weldMesh } = await meshweldModule();
  const rows = [];
  for (const c of crowdCases(quick)) {
    progress(`  crowds: ${c.name}`);
    const { positions, attributes, tolerances, primitive } = c.make();
    const ctx = { positions };
    const mesh = { run: () => weldMesh(positions, null, { radius: RADIUS, attributes, tolerances, primitive }) };
    const bare = { run: () => weld(positions, { radius: RADIUS }) };
    await timeOnce(mesh, ctx);
    const result = await pairs(mesh, ctx, bare, ctx, ctx, rules);
    rows.push({
      name: c.name,
      text: c.text,
      vertices: positions.length / 3,
      outputs: result.anchorRaw.vertexCount,
      byPosition: result.raw.count,
      meshMs: median(result.anchorTimes),
      meshMinMs: minimum(result.anchorTimes),
      weldMs: median(result.times),
      ratio: median(result.ratios),
      runs: result.times.length,
    });
  }
  return rows;
}

const fixed = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

export function crowdsTable(rows) {
  const lines = [
    '#### Crowds: the attribute weld where the attributes keep vertices apart',
    '',
    `Radius ${RADIUS.toExponential()}. \`weldMesh\` with tolerances against \`weld()\` by position on the same points ` +
      '(which merges each crowd into one or a few outputs): medians of interleaved pairs.',
    '',
    '| case | vertices | runs | weldMesh median ms | min ms | outputs | weld() median ms | outputs | ratio |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of rows) {
    lines.push(`| ${r.name}: ${r.text} | ${r.vertices.toLocaleString('en-US')} | ${r.runs} | ${fixed(r.meshMs)} | ${fixed(r.meshMinMs)} | ` +
      `${r.outputs.toLocaleString('en-US')} | ${fixed(r.weldMs)} | ${r.byPosition.toLocaleString('en-US')} | ${r.ratio.toPrecision(3)} |`);
  }
  return [...lines, ''].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quick = process.argv.includes('--quick');
  console.log(crowdsTable(await benchCrowds({ quick, progress: (t) => process.stderr.write(`${t}\n`) })));
}
