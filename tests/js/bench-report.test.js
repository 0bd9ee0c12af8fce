// The benchmark's speed targets (bench/report.mjs): each bound checked on every set a run has, the
// worst set named, and the table the README shows written from them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { targets, targetsTable } from '../../bench/report.mjs';

// A run's results as bench/run.mjs keeps them: rows of ratios (time of meshweld auto over the
// contestant's) and medians, and weldGeometry's ratios on the soups.
const set = (name, n, { family = 'other', dim = 3, ratios = {}, auto = 10, geometry } = {}) => ({
  name, n, family, dim,
  rows: [{ id: 'wasm:auto:loose', medianMs: auto }, ...Object.entries(ratios).map(([id, median]) => ({ id, medianMs: 1, ratio: { median } }))],
  ...(geometry ? { weldGeometry: { positionOverWeld: { median: geometry[0] }, tolerancesOverPosition: { median: geometry[1] } } } : {}),
});
const peers = (meshopt, native, three = 0.02, gltf = 0.1) => ({ meshopt, 'native:auto:loose': native, three, gltf });

test('the speed targets table: a row per bound, the range, the worst set and whether every set meets it', () => {
  const results = [
    set('stl-bunny-1e-5', 208353, { ratios: peers(0.9, 1.2), geometry: [1.1, 1.4] }),
    set('tiles', 1048576, { family: 'tiles', ratios: peers(1.2, 1.25) }),
    set('uniform-3d-1M', 1e6, { family: 'uniform', ratios: peers(1.4, 1.1, 1 / 30), auto: 100 }),
    set('uniform-3d-4M', 4e6, { family: 'uniform', ratios: peers(1.5, 1.2), auto: 420 }),
  ];
  const list = targets(results, { quick: false });
  assert.deepEqual(list.map((t) => t.ok), [false, true, false, true, true, true]);
  const rows = targetsTable(list).split('\n');
  assert.deepEqual(rows.slice(0, 2), ['| target | bound | this run | worst | met |', '|---|---|---|---|---|']);
  assert.equal(rows[2], '| 1. bunny soup and tiles: time ÷ meshoptimizer | ≤ 1.0 | 0.9 to 1.2 | tiles 1.2 | no |');
  assert.equal(rows[3], '| 2. uniform 3D, 30% merged: time ÷ meshoptimizer | ≤ 1.5 | 1.4 | uniform-3d-1M 1.4 | yes |');
  // speed-ups: the smallest is the worst (three.js 30x on uniform 3D 1M, 50x elsewhere)
  assert.equal(rows[4], '| 3. speed-up over three.js `mergeVertices`, sets ≥ 1e5 points | ≥ 40 | 30 to 50 | uniform-3d-1M 30 | no |');
  assert.equal(rows[5], '| 3. speed-up over glTF-Transform `weld()`, sets ≥ 1e5 points | ≥ 5.0 | 10 | stl-bunny-1e-5 10 | yes |');
  assert.equal(rows[6], '| 4. uniform points: time(4M) ÷ time(1M) | ≤ 4.4 | 4.2 | 3D 1M -> 4M 4.2 | yes |');
  assert.equal(rows[9], '| 6. WebAssembly ÷ native C, every set | ≤ 1.3 | 1.1 to 1.25 | tiles 1.25 | yes |');
  assert.equal(rows.length, 10);
});

test('a target without the sets it needs is neither met nor failed', () => {
  const list = targets([set('row', 100000, { ratios: peers(3, 1.1) })], { quick: false });
  assert.deepEqual(list.map((t) => t.ok), [undefined, undefined, true, undefined, undefined, true]);
  const rows = targetsTable(list).split('\n');
  assert.equal(rows[2], '| 1. bunny soup and tiles: time ÷ meshoptimizer | ≤ 1.0 | – | – | – |');
});
