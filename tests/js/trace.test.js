// traceWeld: what the spatial engine does, checked against the weld and a brute force.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ready, weld } from 'meshweld';
import { traceWeld } from 'meshweld/inspect';
import { mulberry32 } from '../../bench/prng.mjs';

await ready;

function cloud(n, dim, size, seed) {
  const random = mulberry32(seed);
  const points = new Float32Array(n * dim);
  for (let i = 0; i < points.length; i++) points[i] = Math.fround(random() * size);
  for (let i = 0; i < n; i += 17) points.copyWithin(i * dim, 0, dim); // exact copies of point 0
  return points;
}

test('traceWeld: cells as wide as the median gap between consecutive points, times 1.236', () => {
  // a row of 201 points whose 200 gaps are 1..150 and fifty of 1000, in a shuffled order: the
  // median gap is 101, below the row's mean spacing (305), so it sets the cells
  const gaps = [...Array.from({ length: 150 }, (_, k) => k + 1), ...new Array(50).fill(1000)];
  const random = mulberry32(11);
  for (let k = gaps.length - 1; k > 0; k--) {
    const j = Math.floor(random() * (k + 1));
    [gaps[k], gaps[j]] = [gaps[j], gaps[k]];
  }
  const points = new Float32Array(201 * 3);
  for (let k = 0; k < gaps.length; k++) points[(k + 1) * 3] = points[k * 3] + gaps[k];
  const t = traceWeld(points, { radius: 0.25 });
  assert.equal(t.engine, 'spatial');
  assert.equal(t.cellSize, 101 * 1.2360679774997896);
});

for (const dim of [2, 3]) {
  test(`traceWeld ${dim}D: the weld's remap, the distinct points sorted by cell, every pair within r once`, () => {
    const points = cloud(1500, dim, 40, 7 + dim);
    const radius = 1.25;
    const t = traceWeld(points, { dim, radius });
    const w = weld(points, { dim, radius, method: 'grid' });
    assert.deepEqual(t.remap, w.remap);
    assert.equal(t.count, w.count);
    assert.equal(t.engine, 'spatial');
    assert.ok(t.cellSize >= 2 * radius);
    // distinct: the first appearance of each position
    const seen = new Map();
    for (let i = 0; i < points.length / dim; i++) {
      const key = Array.from(points.subarray(i * dim, i * dim + dim)).join();
      if (!seen.has(key)) seen.set(key, i);
    }
    assert.deepEqual([...t.distinct], [...seen.values()]);
    // order: a permutation of distinct, each cell's points inside its cell
    assert.deepEqual([...t.order].sort((a, b) => a - b), [...t.distinct].sort((a, b) => a - b));
    assert.equal(t.cellStart.length, t.cellKeys.length / 3 + 1);
    for (let c = 0; c + 1 < t.cellStart.length; c++) {
      for (let k = t.cellStart[c]; k < t.cellStart[c + 1]; k++) {
        for (let a = 0; a < dim; a++) {
          assert.equal(Math.floor(points[t.order[k] * dim + a] / t.cellSize), t.cellKeys[3 * c + a]);
        }
      }
    }
    // pairs: exactly the distinct pairs within r, each once, earlier first
    const expected = new Set();
    const d = t.distinct;
    for (let x = 0; x < d.length; x++) {
      for (let y = x + 1; y < d.length; y++) {
        let s = 0;
        for (let a = 0; a < dim; a++) s += (points[d[x] * dim + a] - points[d[y] * dim + a]) ** 2;
        if (s <= radius * radius) expected.add(`${d[x]},${d[y]}`);
      }
    }
    const found = new Set();
    for (let k = 0; k < t.pairs.length; k += 2) {
      assert.ok(t.pairs[k] < t.pairs[k + 1]);
      found.add(`${t.pairs[k]},${t.pairs[k + 1]}`);
    }
    assert.equal(found.size, t.pairs.length / 2, 'a pair found twice');
    assert.deepEqual([...found].sort(), [...expected].sort());
    assert.ok(t.tests >= found.size);
    assert.deepEqual(t.phases.map((p) => p.name), ['duplicates', 'sort', 'pairs', 'graph', 'walk']);
    assert.ok(t.phases.every((p) => p.ms >= 0));
  });
}

test('traceWeld: dense clusters fall back to the sequential search, with the same remap', () => {
  const points = new Float32Array(3 * 3000);
  for (let i = 0; i < 3000; i++) points[3 * i] = Math.fround(i * 1e-4); // all within r of each other
  const t = traceWeld(points, { radius: 1 });
  assert.equal(t.engine, 'sequential');
  assert.equal(t.pairs.length, 0);
  assert.deepEqual(t.remap, weld(points, { radius: 1, method: 'grid' }).remap);
});

test('traceWeld: a lattice denser than r goes to the sequential search before its pair search, with the same remap', () => {
  // spacing r / 2: twelve neighbours within r each, crowded cells; the search's tests, counted
  // before it makes any, are about 31 per point against a budget of 17.6: no test is made
  const side = 200;
  const radius = 2 ** -8;
  const points = new Float32Array(side * side * 2);
  for (let j = 0, k = 0; j < side; j++) for (let i = 0; i < side; i++) points.set([(i * radius) / 2, (j * radius) / 2], 2 * k++);
  const t = traceWeld(points, { dim: 2, radius });
  assert.equal(t.engine, 'sequential');
  assert.equal(t.tests, 0);
  assert.ok(t.sortedCells > 0, `${t.sortedCells} cells sorted`); // (40,000 points: no sample weighs the tries)
  // its search compares about five representatives per point (a 2r cell holds about four)
  assert.ok(t.steps > side * side && t.steps < 32 * side * side, `${t.steps} steps`);
  assert.deepEqual(t.remap, weld(points, { dim: 2, radius, method: 'kdtree' }).remap);
});

test('traceWeld: 100,000 points of dense clusters in random order: a sample shows their pairs, and no cell is sorted', () => {
  // clusters of 100 points within about r of each other: some 50 pairs a point, where the engine's
  // budget is 4; a sample of about 1,800 points finds more than 256 pairs among them
  const n = 100000;
  const radius = 1e-3;
  const random = mulberry32(23);
  const points = new Float32Array(n * 2);
  for (let c = 0; c < n / 100; c++) {
    const [x, y] = [random(), random()];
    for (let k = 0; k < 100; k++) points.set([x + (random() - 0.5) * radius, y + (random() - 0.5) * radius], 2 * (c * 100 + k));
  }
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const [x, y] = [points[2 * i], points[2 * i + 1]];
    points.copyWithin(2 * i, 2 * j, 2 * j + 2);
    points.set([x, y], 2 * j);
  }
  const t = traceWeld(points, { dim: 2, radius });
  assert.equal(t.engine, 'sequential');
  assert.equal(t.tests, 0);
  assert.equal(t.sortedCells, 0);
  assert.ok(t.steps > 0);
  assert.deepEqual(t.remap, weld(points, { dim: 2, radius, method: 'kdtree' }).remap);
});

test('traceWeld: a 3D cloud with 3.5 neighbours within r per point keeps the spatial engine', () => {
  // about 27 tests per point: past the 2D budget, within the 3D one (where the sequential search
  // looks at 8 cells per point and costs 2.5-3 times the engine on such clouds)
  const n = 20000;
  const radius = Math.cbrt(3.5 / (n * (4 / 3) * Math.PI));
  const random = mulberry32(5);
  const points = new Float32Array(n * 3).map(() => random());
  const t = traceWeld(points, { radius });
  assert.equal(t.engine, 'spatial');
  assert.equal(t.steps, 0);
  assert.ok(t.tests > 16 * n, `${t.tests} tests`);
  assert.deepEqual(t.remap, weld(points, { radius, method: 'kdtree' }).remap);
});

test('traceWeld: 3D clusters millions of cells apart (cell keys past 64 bits) keep the spatial engine', () => {
  // 16 clusters over +-1e6, points 0.15 apart: the box spans more than 2^63 cells, whose keys the
  // engine squeezes; the trace still lists each cell by its own coordinates
  const n = 20000;
  const radius = 0.05;
  const random = mulberry32(17);
  const centres = Array.from({ length: 16 }, () => [0, 1, 2].map(() => (random() - 0.5) * 2e6));
  const points = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) for (let a = 0; a < 3; a++) points[i * 3 + a] = centres[Math.floor((i * 16) / n)][a] + (random() - 0.5) * 2;
  const t = traceWeld(points, { radius });
  assert.equal(t.engine, 'spatial');
  assert.ok(2e6 / t.cellSize > 2 ** 21, `cells of ${t.cellSize}`);
  assert.deepEqual(t.remap, weld(points, { radius, method: 'kdtree' }).remap);
  for (let c = 0; c + 1 < t.cellStart.length; c++)
    for (let k = t.cellStart[c]; k < t.cellStart[c + 1]; k++)
      for (let a = 0; a < 3; a++)
        assert.equal(Math.floor(points[t.order[k] * 3 + a] / t.cellSize), t.cellKeys[c * 3 + a], `point ${t.order[k]}, cell ${c}`);
});

test('traceWeld: a dense patch among sparse points, first in cell order, keeps the spatial engine', () => {
  // the patch (a lattice at spacing r / 2, 1,600 points) makes the first nodes' tests run far
  // above the budget's rate, but the whole set stays within the budget
  const radius = 0.01;
  const random = mulberry32(3);
  const values = [];
  for (let j = 0; j < 40; j++) for (let i = 0; i < 40; i++) values.push(0.2 + (i * radius) / 2, 0.2 + (j * radius) / 2, 0.0005);
  for (let i = 0; i < 40000; i++) values.push(random(), random(), random());
  const points = new Float32Array(values);
  const t = traceWeld(points, { radius });
  assert.equal(t.engine, 'spatial');
  assert.deepEqual(t.remap, weld(points, { radius, method: 'kdtree' }).remap);
});

test('traceWeld: a dense core in a sparse cloud: the crowded cells leave the pair search, and the walk welds their points', () => {
  // 100,000 points at distance u^4 from the centre: a fifth of them within r of it. A sample sees
  // pairs past the budget, but in a core; the engine runs in cells of 2r and takes the cells of
  // more than 48 points out of its pair search
  const n = 100000;
  const radius = 1e-3;
  const random = mulberry32(41);
  const points = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) {
    let v;
    do v = [2 * random() - 1, 2 * random() - 1, 2 * random() - 1];
    while (Math.hypot(...v) > 1 || Math.hypot(...v) === 0);
    const far = random() ** 4 / Math.hypot(...v);
    points.set(v.map((x) => x * far), 3 * i);
  }
  const t = traceWeld(points, { radius });
  assert.equal(t.engine, 'spatial');
  assert.ok(t.crowded > n / 10 && t.crowded < n / 2, `${t.crowded} points in crowded cells`);
  assert.ok(t.steps > 0 && t.pairs.length > 0);
  assert.deepEqual(t.remap, weld(points, { radius, method: 'kdtree' }).remap);
  // the crowded cells are those of more than 48 points; none of their points has a pair
  const crowded = new Uint8Array(n);
  let count = 0;
  for (let c = 0; c + 1 < t.cellStart.length; c++) {
    if (t.cellStart[c + 1] - t.cellStart[c] <= 48) continue;
    for (let k = t.cellStart[c]; k < t.cellStart[c + 1]; k++) (crowded[t.order[k]] = 1), count++;
  }
  assert.equal(count, t.crowded);
  assert.ok(t.pairs.every((i) => !crowded[i]), 'a pair holds a point of a crowded cell');
});

test('traceWeld: bad input is refused by name', () => {
  assert.throws(() => traceWeld(new Float32Array([0, 0, NaN]), { radius: 1 }), /traceWeld: point 0 has a non-finite coordinate z/);
  assert.throws(() => traceWeld(new Float32Array(3), { radius: 0 }), /traceWeld: radius must be > 0/);
  assert.throws(() => traceWeld(new Float32Array(3), { radius: 1, method: 'grid' }), /traceWeld.*method/);
});
