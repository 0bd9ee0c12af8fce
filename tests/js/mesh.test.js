import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { boundaryEdges, ready, weldMesh } from '../../js/index.js';
import { fixtures, mulberry32 } from './helpers.js';

await ready;

// a quad as a soup of two triangles, plus a sliver whose two corners weld together
const soup = new Float32Array([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 5, 5, 5, 5, 5, 5.00001, 6, 6, 6]);

test('a triangle soup becomes an indexed mesh, degenerate triangles removed', () => {
  const uv = new Float32Array(18).map((_, i) => i);
  const r = weldMesh(soup, null, { radius: 1e-3, attributes: { uv: { array: uv, itemSize: 2 } } });
  assert.equal(r.vertexCount, 6);
  assert.equal(r.triangleCount, 2);
  assert.equal(r.degenerateRemoved, 1);
  assert.deepEqual([...r.indices], [0, 1, 2, 0, 2, 3]);
  assert.ok(r.indices instanceof Uint16Array, 'a soup whose vertices fit gets a Uint16 index');
  // each attribute takes the kept vertex's value: vertex 3 of the soup is a duplicate of vertex 0
  assert.deepEqual([...r.attributes.uv.array], [0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 16, 17]);
  const kept = weldMesh(soup, null, { radius: 1e-3, removeDegenerate: false });
  assert.equal(kept.triangleCount, 3);
  assert.equal(kept.degenerateRemoved, 0);
  // the result holds the fields the README lists, and nothing of the wrappers' own plumbing
  const fields = ['positions', 'indices', 'remap', 'vertexCount', 'primitive', 'elementCount', 'triangleCount',
    'degenerateRemoved', 'duplicatesRemoved', 'skipped', 'skippedElements', 'attributes', 'method', 'radius'];
  assert.deepEqual(Object.keys(r), fields);
});

test('the index is Uint16 whenever the vertices fit, whatever the input type; duplicates can be removed', () => {
  const positions = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1e-6]);
  const indices = new Uint16Array([0, 1, 2, 3, 1, 2, 1, 2, 0]);
  const r = weldMesh(positions, indices, { radius: 1e-4, removeDuplicates: true });
  assert.ok(r.indices instanceof Uint16Array);
  assert.deepEqual([...r.indices], [0, 1, 2]);
  assert.equal(r.duplicatesRemoved, 2);
  assert.ok(weldMesh(positions, Uint32Array.from(indices), { radius: 1e-4 }).indices instanceof Uint16Array);
  assert.ok(weldMesh(positions, [...indices], { radius: 1e-4 }).indices instanceof Uint16Array);
  // 65,537 distinct vertices do not fit: Uint32
  const many = new Float32Array(3 * 65537).map((_, i) => (i % 3 === 0 ? Math.floor(i / 3) : 0));
  const wide = weldMesh(many, Uint32Array.from({ length: 65535 * 3 }, (_, i) => i % 65537), { radius: 0.1, removeDegenerate: false });
  assert.equal(wide.vertexCount, 65537);
  assert.ok(wide.indices instanceof Uint32Array);
});

test('bad index buffers are refused with the bad value named', () => {
  const positions = new Float32Array(9);
  assert.throws(() => weldMesh(positions, new Uint32Array([0, 1, 3]), { radius: 1 }), /indices\[2\] = 3 is out of range \(3 vertices\)/);
  assert.throws(() => weldMesh(positions, [0, 1], { radius: 1 }), /index count 2 is not a multiple of 3/);
  assert.throws(() => weldMesh(positions, [0, 1, -1], { radius: 1 }), /indices\[2\] must be a vertex index \(an integer >= 0\), got -1/);
  assert.throws(() => weldMesh(new Float32Array(6), null, { radius: 1 }), /unindexed vertex count 2/);
  assert.throws(() => weldMesh(positions, null, { radius: 1, attributes: { n: { array: new Float32Array(2), itemSize: 3 } } }), /attribute 'n' has 2 values, expected 3 x 3/);
  assert.throws(() => weldMesh(positions, new Int8Array(3), { radius: 1 }), TypeError);
});

test('the sphere soup fixture closes: every edge is shared by exactly two triangles', () => {
  const f = fixtures().find((x) => x.file === 'sphere-soup.f32');
  const r = weldMesh(f.points, null, { radius: f.radius });
  const edges = new Map();
  for (let t = 0; t < r.indices.length; t += 3)
    for (let e = 0; e < 3; e++) {
      const a = r.indices[t + e], b = r.indices[t + ((e + 1) % 3)];
      const key = a < b ? `${a},${b}` : `${b},${a}`;
      edges.set(key, (edges.get(key) ?? 0) + 1);
    }
  const open = [...edges.values()].filter((n) => n !== 2).length;
  assert.equal(open, 0);
  assert.ok(r.degenerateRemoved > 0, 'the pole triangles are degenerate');
});

// a box as a triangle soup with face normals: 36 corners, 8 positions, 24 position+normal pairs
function boxSoup() {
  const positions = [], normals = [];
  for (let axis = 0; axis < 3; axis++)
    for (const sign of [-1, 1]) {
      const u = (axis + 1) % 3, v = (axis + 2) % 3;
      const corner = (a, b) => { const p = [0, 0, 0]; p[axis] = sign; p[u] = a; p[v] = b; return p; };
      const quad = [corner(-1, -1), corner(1, -1), corner(1, 1), corner(-1, 1)];
      for (const k of [0, 1, 2, 0, 2, 3]) {
        positions.push(...quad[k]);
        const n = [0, 0, 0]; n[axis] = sign; normals.push(...n);
      }
    }
  return { positions: new Float32Array(positions), normals: new Float32Array(normals) };
}

test('attribute-aware welding keeps hard edges: a box soup gives 8 positions, or 24 with normals', () => {
  const { positions, normals } = boxSoup();
  const attributes = { normal: { array: normals, itemSize: 3 } };
  const plain = weldMesh(positions, null, { radius: 1e-4, attributes });
  assert.equal(plain.vertexCount, 8);
  assert.equal(plain.triangleCount, 12);
  const hard = weldMesh(positions, null, { radius: 1e-4, attributes, tolerances: { normal: 0.05 } });
  assert.equal(hard.vertexCount, 24);
  assert.equal(hard.triangleCount, 12);
  // each output keeps its own normal, and every corner matches its output's normal
  for (let i = 0; i < 36; i++) {
    const k = hard.remap[i];
    for (let a = 0; a < 3; a++) assert.equal(hard.attributes.normal.array[k * 3 + a], normals[i * 3 + a]);
  }
  const loose = weldMesh(positions, null, { radius: 1e-4, attributes, tolerances: { normal: 2 } });
  assert.equal(loose.vertexCount, 8);
  assert.throws(() => weldMesh(positions, null, { radius: 1e-4, attributes, tolerances: { uv: 1e-4 } }), /'uv', which is not among the attributes/);
  assert.throws(() => weldMesh(positions, null, { radius: 1e-4, attributes, tolerances: { normal: -1 } }), /got -1/);
  const bad = normals.slice();
  bad[7] = NaN;
  // a NaN attribute is compared by its bits: vertex 2 stays apart, the rest welds as before
  const nan = weldMesh(positions, null, { radius: 1e-4, attributes: { normal: { array: bad, itemSize: 3 } }, tolerances: { normal: 0.1 } });
  assert.equal(nan.vertexCount, 25);
  assert.equal(nan.remap.filter((k) => k === nan.remap[2]).length, 1);
});

test('attribute-aware welding at radius 0 and beyond the grid range', () => {
  const { positions, normals } = boxSoup();
  const attributes = { normal: { array: normals, itemSize: 3 } };
  const exact = weldMesh(positions, null, { radius: 0, attributes, tolerances: { normal: 0 } });
  assert.equal(exact.vertexCount, 24);
  assert.equal(exact.method, 'naive'); // radius 0: only the representatives at the same position
  // 1e30 apart: grid cells of 2e-4 cannot index that, a kd-tree takes over with the same result
  const far = positions.map((v, i) => (i % 3 === 0 ? v + 1e30 : v));
  const huge = weldMesh(far, null, { radius: 1e-4, attributes, tolerances: { normal: 0.05 } });
  assert.equal(huge.method, 'kdtree');
  assert.equal(huge.vertexCount, 16, 'x collapses to 1e30: 4 positions, each with the normals ±x, ±y and ±z it had');
  const forced = weldMesh(positions, null, { radius: 1e-4, method: 'kdtree', attributes, tolerances: { normal: 0.05 } });
  assert.equal(forced.method, 'kdtree');
  assert.deepEqual(forced.remap, weldMesh(positions, null, { radius: 1e-4, attributes, tolerances: { normal: 0.05 } }).remap);
});

// The rule by brute force: each vertex takes the earliest representative within radius whose
// attributes are all within their tolerances (finite values), else it becomes one.
function ruleRemap(positions, attributes, tolerances, radius) {
  const n = positions.length / 3;
  const within = (array, size, i, j, t) => {
    let d = 0;
    for (let c = 0; c < size; c++) d += (array[i * size + c] - array[j * size + c]) ** 2;
    return d <= t * t;
  };
  const reps = [];
  const remap = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const k = reps.findIndex((j) => within(positions, 3, i, j, radius) &&
      Object.entries(tolerances).every(([name, t]) => within(attributes[name].array, attributes[name].itemSize, i, j, t)));
    remap[i] = k >= 0 ? k : reps.push(i) - 1;
  }
  return remap;
}

test('crowds that the attributes keep apart weld by the rule: the pole of a fan, a dense coloured cluster', () => {
  // a fan of 400 triangles: the pole's corners (at one point, or spread within r) each with its own u
  const k = 400;
  const random = mulberry32(3);
  for (const spread of [0, 1]) {
    const positions = new Float32Array(k * 9);
    const uv = new Float32Array(k * 6);
    for (let t = 0; t < k; t++) {
      const a = (t / k) * 2 * Math.PI;
      const b = ((t + 1) / k) * 2 * Math.PI;
      positions.set([spread * (random() - 0.5) * 4e-6, spread * (random() - 0.5) * 4e-6, 1, Math.cos(a), Math.sin(a), 0, Math.cos(b), Math.sin(b), 0], t * 9);
      uv.set([(t + 0.5) / k, 1, t / k, 0, (t + 1) / k, 0], t * 6);
    }
    const attributes = { uv: { array: uv, itemSize: 2 } };
    const tolerances = { uv: 1e-6 };
    const welded = weldMesh(positions, null, { radius: 1e-5, attributes, tolerances });
    assert.deepEqual(welded.remap, ruleRemap(positions, attributes, tolerances, 1e-5));
    assert.equal(welded.vertexCount, 2 * k + 1, 'every pole corner apart, the rim corners shared by neighbours but at the seam');
  }
  // 1,500 points within r / 2 of each other, colours on a few levels and a few near a level
  const n = 1500;
  const positions = new Float32Array(n * 3).map(() => (random() - 0.5) * 5e-6);
  const colour = new Float32Array(n * 3).map(() => Math.floor(random() * 8) / 8 + (random() < 0.2 ? (random() - 0.5) * 0.02 : 0));
  const attributes = { colour: { array: colour, itemSize: 3 } };
  const tolerances = { colour: 0.01 };
  const welded = weldMesh(positions, null, { radius: 1e-5, attributes, tolerances, primitive: 'points' });
  const tree = weldMesh(positions, null, { radius: 1e-5, attributes, tolerances, primitive: 'points', method: 'kdtree' });
  assert.deepEqual(welded.remap, ruleRemap(positions, attributes, tolerances, 1e-5));
  assert.deepEqual(tree.remap, welded.remap);
  assert.ok(welded.vertexCount > 512 && welded.vertexCount < n, `${welded.vertexCount} outputs`);
});

test('32-bit integer attributes compared at tolerance 0 match only when equal, past 2^24 too (where float32 rounds them alike)', () => {
  const triangle = [0, 0, 0, 1, 0, 0, 0, 1, 0];
  const positions = new Float32Array([...triangle, ...triangle, ...triangle]);
  for (const [Type, a, b] of [[Uint32Array, 2 ** 24, 2 ** 24 + 1], [Int32Array, -(2 ** 24), -(2 ** 24) - 1], [Uint32Array, 2 ** 32 - 2, 2 ** 32 - 1]]) {
    assert.equal(Math.fround(a), Math.fround(b), 'the two ids round to one float32');
    const id = new Type([a, a, a, b, b, b, a, a, a]);
    const result = weldMesh(positions, null, { radius: 1e-4, attributes: { id: { array: id, itemSize: 1 } }, tolerances: { id: 0 } });
    assert.equal(result.vertexCount, 6, `${Type.name} ${a} and ${b}`);
    assert.deepEqual(Array.from(result.indices), [0, 1, 2, 3, 4, 5, 0, 1, 2]);
    assert.deepEqual(Array.from(result.attributes.id.array), [a, a, a, b, b, b]);
  }
  // two components, and a tolerance above 0: compared as float32, as any other values
  const pairs = new Uint32Array([2 ** 24, 7, 2 ** 24, 7, 2 ** 24, 7, 2 ** 24 + 1, 7, 2 ** 24 + 1, 7, 2 ** 24 + 1, 7]);
  const two = weldMesh(positions.subarray(0, 18), null, { radius: 1e-4, attributes: { id: { array: pairs, itemSize: 2 } }, tolerances: { id: 0 } });
  assert.equal(two.vertexCount, 6);
  const loose = weldMesh(positions.subarray(0, 18), null, { radius: 1e-4, attributes: { id: { array: pairs, itemSize: 2 } }, tolerances: { id: 0.5 } });
  assert.equal(loose.vertexCount, 3);
});

test('attributes of every typed array type are compacted bit for bit, whatever their offset', () => {
  const n = 9; // the soup's vertices: kept are 0, 1, 2, 5, 6 and 8 (the others weld into earlier ones)
  const kept = [0, 1, 2, 5, 6, 8];
  const odd = new Uint8Array(n * 2 + 1).map((_, i) => 200 - i).subarray(1); // byteOffset 1
  const halves = new Uint16Array(n * 3 + 1).map((_, i) => 60000 - i).subarray(1); // byteOffset 2
  const nan = new Float32Array(n).fill(1);
  new Uint32Array(nan.buffer)[6] = 0x7fc01234; // a NaN with a payload, on a kept vertex
  const attributes = {
    i8: { array: new Int8Array(n).map((_, i) => -i), itemSize: 1 },
    odd: { array: odd, itemSize: 2 },
    halves: { array: halves, itemSize: 3 },
    f64: { array: new Float64Array(n * 2).map((_, i) => i / 3), itemSize: 2 },
    big: { array: new BigInt64Array(n).map((_, i) => BigInt(i) * -(2n ** 40n)), itemSize: 1 },
    nan: { array: nan, itemSize: 1 },
    four: { array: new Int32Array(n * 4).map((_, i) => i * 1000), itemSize: 4 },
  };
  const r = weldMesh(soup, null, { radius: 1e-3, attributes });
  assert.deepEqual([...r.remap], [0, 1, 2, 0, 2, 3, 4, 4, 5]);
  for (const [name, { array, itemSize }] of Object.entries(attributes)) {
    const out = r.attributes[name].array;
    assert.equal(out.constructor, array.constructor, name);
    const expected = kept.flatMap((v) => [...array.subarray(v * itemSize, (v + 1) * itemSize)]);
    assert.deepEqual([...out], expected, name);
  }
  assert.equal(new Uint32Array(r.attributes.nan.array.buffer)[4], 0x7fc01234, "a NaN's payload survives");
});

test('line segments: collapsed ones dropped unless kept, repeats dropped in either direction; a cloud keeps each point once', () => {
  // four places; vertex 4 welds into 0 and vertex 5 into 1
  const positions = new Float32Array([0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 0, 0, 1e-6, 1, 0, 1e-6]);
  const lines = [0, 1, 1, 0, 5, 4, 2, 3, 0, 4, 3, 2, 2, 3];
  const r = weldMesh(positions, lines, { radius: 1e-3, primitive: 'lines', removeDuplicates: true });
  assert.deepEqual([...r.indices], [0, 1, 2, 3]);
  assert.deepEqual([r.degenerateRemoved, r.duplicatesRemoved, r.elementCount], [1, 4, 2]);
  const kept = weldMesh(positions, lines, { radius: 1e-3, primitive: 'lines', removeDegenerate: false });
  assert.deepEqual([...kept.indices], [0, 1, 1, 0, 1, 0, 2, 3, 0, 0, 3, 2, 2, 3]);
  const cloud = weldMesh(positions, [3, 4, 0, 5, 1, 3], { radius: 1e-3, primitive: 'points' });
  assert.deepEqual([...cloud.indices], [3, 0, 1]);
  assert.deepEqual([cloud.duplicatesRemoved, cloud.elementCount], [3, 3]);
});

test('boundaryEdges lists the edges used by exactly one triangle, in triangle order, lower end first (fast-check)', () => {
  const runs = Number(process.env.MESHWELD_PROPERTY_RUNS ?? 100);
  const mesh = fc.integer({ min: 1, max: 9 }).chain((n) =>
    fc.record({ n: fc.constant(n), triangles: fc.array(fc.tuple(...[0, 1, 2].map(() => fc.integer({ min: 0, max: n - 1 }))), { maxLength: 14 }) }),
  );
  fc.assert(
    fc.property(mesh, fc.constantFrom(Uint32Array, Uint16Array, Uint8Array, Array), ({ n, triangles }, Kind) => {
      // the model: every edge counted by its two ends in a Map, the open ones listed where they are used
      const key = (a, b) => `${Math.min(a, b)} ${Math.max(a, b)}`;
      const edges = triangles.flatMap(([a, b, c]) => [[a, b], [b, c], [c, a]]);
      const uses = new Map();
      for (const [a, b] of edges) uses.set(key(a, b), (uses.get(key(a, b)) ?? 0) + 1);
      const expected = edges.filter(([a, b]) => uses.get(key(a, b)) === 1).flatMap(([a, b]) => [Math.min(a, b), Math.max(a, b)]);
      const open = boundaryEdges(Kind.from(triangles.flat()), n);
      assert.ok(open instanceof Uint32Array);
      assert.deepEqual([...open], expected);
    }),
    { numRuns: runs, size: 'max' },
  );
  assert.deepEqual([...boundaryEdges(null, 6)], [0, 1, 1, 2, 0, 2, 3, 4, 4, 5, 3, 5], 'a soup: every edge open');
  assert.deepEqual([...boundaryEdges([0, 1, 2, 2, 1, 0], 3)], [], 'two faces back to back close each other');
  // a few vertices of a huge buffer: sized by the vertices used, not by the buffer (or the index's reach)
  assert.deepEqual([...boundaryEdges(new Uint32Array([4e9, 8, 7, 7, 8, 5]), 2 ** 32)], [8, 4e9, 7, 4e9, 5, 8, 5, 7]);
  assert.deepEqual([...boundaryEdges([4e9, 8, 7, 7, 8, 4e9], 2 ** 32)], []);
});

test('boundaryEdges refuses what it cannot count, naming the value', () => {
  const refuse = (indices, n, Type, message) => assert.throws(() => boundaryEdges(indices, n), (e) => e instanceof Type && e.message === `meshweld: boundaryEdges: ${message}`);
  refuse([0, 1, 4], 4, RangeError, 'indices[2] = 4 is out of range (4 vertices)');
  refuse(new Uint16Array([0, 1, 2, 3]), 4, RangeError, 'index count 4 is not a multiple of 3 (triangles)');
  refuse(null, 7, RangeError, 'unindexed vertex count 7 is not a multiple of 3: triangles need 3 vertices each');
  refuse([0, 1, 2], -1, RangeError, 'vertexCount must be an integer >= 0, got -1');
  refuse([0, 1, 2], undefined, TypeError, 'vertexCount must be an integer >= 0, got undefined');
  refuse(new Float32Array([0, 1, 2]), 3, TypeError, 'indices must be a Uint32Array, Uint16Array, Uint8Array, an array of integers or null, got a Float32Array of 3 values');
  refuse([0, 1.5, 2], 3, RangeError, 'indices[1] must be a vertex index (an integer >= 0), got 1.5');
});
