// meshweld/three against real three.js from npm: three's own geometries, real STL files from
// stl-models loaded with three's STLLoader, and a side-by-side with three's mergeVertices.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import * as THREE from 'three';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { mergeVertices } from 'three/examples/jsm/utils/BufferGeometryUtils.js';
import fc from 'fast-check';
import { SKIPPED, countClosePairs, weldMesh } from '../../js/index.js';
import { boundaryEdges, ready, weldGeometry } from '../../js/three.js';
import { mulberry32, root } from './helpers.js';

await ready;

const vertices = (g) => g.getAttribute('position').count;
const triangles = (g) => (g.index ? g.index.count : vertices(g)) / 3;
const openEdges = (g) => boundaryEdges(g).length / 2;
const closePairs = (g, radius) => countClosePairs(g.getAttribute('position').array, { radius });

// Each three.js geometry with the topology it must weld to. Sphere (w, h): w(h - 1) + 2 positions
// and 2w(h - 1) triangles; torus knot (t, r): t r positions and 2 t r triangles, both closed.
const shapes = [
  { name: 'BoxGeometry', make: () => new THREE.BoxGeometry(1, 2, 3, 2, 2, 2), position: [26, 48, 0], all: 54 },
  { name: 'SphereGeometry', make: () => new THREE.SphereGeometry(1, 32, 16), position: [482, 960, 0], all: 559 },
  { name: 'TorusKnotGeometry', make: () => new THREE.TorusKnotGeometry(1, 0.4, 64, 8), position: [512, 1024, 0], all: 585 },
  { name: 'PlaneGeometry', make: () => new THREE.PlaneGeometry(1, 1, 4, 4), position: [25, 32, 16], all: 25 },
];

for (const shape of shapes) {
  for (const soup of [false, true]) {
    test(`${shape.name}${soup ? '.toNonIndexed()' : ''} welds to its known topology`, () => {
      const source = soup ? shape.make().toNonIndexed() : shape.make();
      const welded = weldGeometry(source, { attributes: 'position' });
      assert.deepEqual([vertices(welded), triangles(welded), openEdges(welded)], shape.position);
      assert.equal(closePairs(welded, 1e-4), 0);
      // 'all' (the default) keeps UV seams and hard edges; the soup has no unreferenced vertices
      const all = weldGeometry(source);
      if (soup) assert.equal(vertices(all), shape.all);
      else assert.ok(vertices(all) >= shape.all && vertices(all) <= vertices(source));
      assert.equal(triangles(all), shape.position[1]);
    });
  }
}

test("a box's 36 soup corners become 8 positions, or 24 when normals must match", () => {
  const soup = new THREE.BoxGeometry(1, 1, 1).toNonIndexed();
  assert.equal(vertices(soup), 36);
  assert.equal(vertices(weldGeometry(soup, { attributes: 'position' })), 8);
  const hard = weldGeometry(soup, { attributes: { normal: 0.05 } });
  assert.equal(vertices(hard), 24);
  assert.equal(triangles(hard), 12);
  assert.equal(vertices(weldGeometry(soup, { attributes: { normal: 2.5 } })), 8, 'a tolerance above the normals\' spread');
  assert.equal(vertices(weldGeometry(soup)), 24, "'all': normals and uvs must match");
  assert.ok(weldGeometry(soup).index.array instanceof Uint16Array);
});

function loadStl(file) {
  const bytes = readFileSync(join(root, 'node_modules', 'stl-models', file));
  const geometry = new STLLoader().parse(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  geometry.computeBoundingBox();
  return { geometry, diagonal: geometry.boundingBox.max.distanceTo(geometry.boundingBox.min) };
}

// Closed models: every edge of the welded mesh is shared by exactly two triangles. The bunny has
// holes in its base: there every open edge must belong to a hole's rim, a closed loop.
const models = [
  { file: 'objects/gearwheel.bin.stl', closed: true },
  { file: 'objects/gearwheel.ascii.stl', closed: true },
  { file: 'polytopes/cube.bin.stl', closed: true },
  { file: 'polytopes/tetrahedronMinusZero.bin.stl', closed: true },
  { file: 'objects/bunny.bin.stl', closed: false },
];

for (const model of models) {
  test(`STL ${model.file}: the soup becomes an indexed mesh with no crack`, () => {
    const { geometry, diagonal } = loadStl(model.file);
    assert.equal(geometry.index, null);
    const soupTriangles = triangles(geometry);
    assert.equal(openEdges(geometry), 3 * soupTriangles, 'a soup has every edge open');
    for (const relative of [1e-5, 2e-3]) {
      const radius = diagonal * relative;
      const welded = weldGeometry(geometry, { radius, attributes: 'position' });
      assert.ok(welded.index, 'indexed');
      assert.equal(closePairs(welded, radius), 0, 'no two output vertices within r');
      assert.ok(vertices(welded) <= vertices(geometry) / 3, `${vertices(welded)} vertices`);
      const edges = Array.from(boundaryEdges(welded));
      if (model.closed) {
        assert.equal(edges.length, 0, `${edges.length / 2} open edges at r = ${relative} of the diagonal`);
      } else {
        assert.ok(edges.length / 2 < 300, `${edges.length / 2} open edges`);
        const degree = new Map();
        for (const v of edges) degree.set(v, (degree.get(v) ?? 0) + 1);
        assert.ok([...degree.values()].every((d) => d % 2 === 0), 'open edges form closed loops (holes), not cracks');
      }
      // the normal attribute is carried (one per kept vertex), the input is untouched
      assert.equal(welded.getAttribute('normal').count, vertices(welded));
      assert.equal(geometry.index, null);
    }
    if (model.file === 'objects/gearwheel.bin.stl') {
      // at 2e-3 of the diagonal some thin teeth collapse: their triangles go, counted
      const welded = weldGeometry(geometry, { radius: diagonal * 2e-3, attributes: 'position' });
      assert.ok(triangles(welded) < soupTriangles);
      const kept = weldGeometry(geometry, { radius: diagonal * 2e-3, attributes: 'position', removeDegenerate: false });
      assert.equal(triangles(kept), soupTriangles);
    }
  });
}

// Vertices that sit on both sides of mergeVertices' rounding boundaries: a plane whose grid lines
// fall on (k + 1/2) 1e-4, its soup jittered by 1e-7.
function straddlingSoup() {
  const plane = new THREE.PlaneGeometry(1, 1, 10, 10).toNonIndexed();
  plane.deleteAttribute('normal');
  plane.deleteAttribute('uv');
  plane.translate(0.5e-4, 0.5e-4, 0);
  const position = plane.getAttribute('position');
  const random = mulberry32(3);
  for (let i = 0; i < position.count; i++) {
    position.setX(i, position.getX(i) + (random() < 0.5 ? -1e-7 : 1e-7));
    position.setY(i, position.getY(i) + (random() < 0.5 ? -1e-7 : 1e-7));
  }
  return plane;
}

test('side by side with mergeVertices: pairs straddling its rounding cells are welded only by meshweld', () => {
  const soup = straddlingSoup();
  const theirs = mergeVertices(soup, 1e-4);
  const ours = weldGeometry(soup, { radius: 1e-4 });
  const theirPairs = closePairs(theirs, 1e-4);
  assert.ok(theirPairs > 50, `mergeVertices left ${theirPairs} pairs within r`);
  assert.ok(openEdges(theirs) > 40, 'and cracks inside the plane');
  assert.equal(closePairs(ours, 1e-4), 0);
  assert.equal(vertices(ours), 121);
  assert.equal(openEdges(ours), 40, 'only the outer border is open');
});

test('radius 0 merges exact duplicates only, -0 equal to +0', () => {
  // the sphere's seam is not bitwise identical (sin(2 pi) is not 0), its poles differ only by -0
  const soup = new THREE.SphereGeometry(1, 32, 16).toNonIndexed();
  const exact = weldGeometry(soup, { radius: 0, attributes: 'position' });
  assert.equal(vertices(exact), 482 + 15);
  assert.equal(vertices(weldGeometry(soup, { radius: 1e-6, attributes: 'position' })), 482);
  const box = new THREE.BoxGeometry(1, 1, 1).toNonIndexed();
  const position = box.getAttribute('position');
  position.setX(1, position.getX(1) + 2 ** -24); // one corner (shared by two triangles) one float step away
  assert.equal(vertices(weldGeometry(box, { radius: 0, attributes: 'position' })), 9);
  assert.equal(vertices(weldGeometry(box, { radius: 0 })), 25, 'attributes exact too');
  assert.equal(vertices(weldGeometry(box, { attributes: 'position' })), 8);
});

test('very small and very large coordinates keep their keys', () => {
  for (const scale of [1e-20, 1e-30, 1e20, 1e30]) {
    const box = new THREE.BoxGeometry(1, 1, 1, 3, 3, 3).toNonIndexed().scale(scale, scale, scale);
    // a radius relative to the size, and an absolute 1e-4 that huge coordinates cannot hold in grid cells
    for (const radius of [scale * 1e-4, 1e-4]) {
      if (Math.fround(radius) === 0) continue;
      const welded = weldGeometry(box, { radius, attributes: 'position' });
      assert.equal(vertices(welded), radius > scale * 2 ? 1 : 56, `scale ${scale}, radius ${radius}`);
      if (vertices(welded) === 56) assert.equal(openEdges(welded), 0);
    }
  }
  // huge coordinates beside ordinary ones: the ordinary ones still merge within r
  const mixed = new THREE.BufferGeometry();
  mixed.setAttribute('position', new THREE.Float32BufferAttribute([1e30, 0, 0, 0, 1, 0, 0, 0, 1, 1e30, 0, 0, 0, 1 + 1e-5, 0, 0, 0, 1], 3));
  const welded = weldGeometry(mixed, { radius: 1e-4, attributes: 'position', removeDegenerate: false });
  assert.equal(vertices(welded), 3);
  assert.deepEqual(Array.from(welded.index.array), [0, 1, 2, 0, 1, 2]);
});

test('groups follow the triangles that are removed', () => {
  // six triangles in three groups; triangles 1 and 4 collapse (two corners within r)
  const p = [];
  for (let t = 0; t < 6; t++) {
    const x = t * 10;
    const collapse = t === 1 || t === 4;
    p.push(x, 0, 0, x + 1, 0, 0, x, collapse ? 1e-6 : 1, 0);
  }
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.Float32BufferAttribute(p, 3));
  geometry.addGroup(0, 6, 0); // triangles 0, 1
  geometry.addGroup(6, 9, 1); // triangles 2, 3, 4
  geometry.addGroup(15, Infinity, 2); // triangle 5 to the end
  const welded = weldGeometry(geometry);
  assert.equal(triangles(welded), 4);
  assert.deepEqual(welded.groups.map((g) => [g.start, g.count, g.materialIndex]), [[0, 3, 0], [3, 6, 1], [9, 3, 2]]);
  // each kept triangle lies at its own x, in its own group's range
  const index = welded.index.array, x = welded.getAttribute('position').array;
  assert.deepEqual([0, 1, 2, 3].map((t) => x[index[3 * t] * 3]), [0, 20, 30, 50]);
  const keep = weldGeometry(geometry, { removeDegenerate: false });
  assert.deepEqual(keep.groups.map((g) => [g.start, g.count]), [[0, 6], [6, 9], [15, 3]]);
  // a group that starts before 0 counts from 0
  geometry.clearGroups();
  geometry.addGroup(-3, 9, 0);
  assert.deepEqual(weldGeometry(geometry).groups.map((g) => [g.start, g.count]), [[0, 3]]);
});

test('groups of any ranges, primitives and skipped vertices shrink to the elements kept inside them', () => {
  const runs = Number(process.env.MESHWELD_PROPERTY_RUNS ?? 100);
  fc.assert(
    fc.property(
      fc.array(fc.oneof({ weight: 30, arbitrary: fc.constantFrom(0, 0.5, 1) }, { weight: 1, arbitrary: fc.constant(NaN) }), { maxLength: 72, size: 'max' }), // within r = 0.6 often
      fc.option(fc.array(fc.nat(23), { maxLength: 48, size: 'max' })),
      fc.constantFrom('triangles', 'lines', 'points'),
      fc.boolean(),
      fc.array(fc.tuple(fc.nat(24), fc.oneof(fc.nat(24), fc.constant(Infinity)), fc.nat(3)), { minLength: 1, maxLength: 4 }),
      (values, indices, primitive, removeDegenerate, groups) => {
        const corners = { triangles: 3, lines: 2, points: 1 }[primitive];
        const positions = Float32Array.from(values.slice(0, values.length - (values.length % (3 * corners))));
        const n = positions.length / 3;
        if (indices) indices = indices.slice(0, indices.length - (indices.length % corners)).filter((v) => v < n);
        if (indices && indices.length % corners) indices = indices.slice(0, indices.length - (indices.length % corners));
        const geometry = new THREE.BufferGeometry();
        geometry.setAttribute('position', new THREE.BufferAttribute(positions, 3));
        if (indices) geometry.setIndex(indices);
        for (const [start, count, material] of groups) geometry.addGroup(start, count, material);
        const options = { radius: 0.6, attributes: 'position', primitive, removeDegenerate, nonFinite: 'skip' };
        const welded = weldGeometry(geometry, options);
        const { remap } = weldMesh(positions, indices ? Uint32Array.from(indices) : null, { ...options, attributes: undefined });
        // the kept input elements, matched in order against the output's elements
        const count = indices ? indices.length : n;
        const output = welded.index ? Array.from(welded.index.array) : Array.from({ length: vertices(welded) }, (_, k) => k);
        const keptBefore = [0];
        let k = 0;
        for (let e = 0; e < count / corners; e++) {
          const element = Array.from({ length: corners }, (_, j) => remap[indices ? indices[e * corners + j] : e * corners + j]);
          const next = output.slice(k * corners, (k + 1) * corners);
          const kept = !element.includes(SKIPPED) && element.every((v, j) => v === next[j]);
          if (kept) k++;
          keptBefore.push(k);
        }
        assert.equal(k * corners, output.length, 'every output element is an input element, in order');
        const elements = keptBefore.length - 1;
        const want = groups.map(([start, count, material]) => {
          const from = Math.min(Math.floor(start / corners), elements);
          const to = Math.max(from, Math.min(Math.floor((start + count) / corners), elements));
          return [keptBefore[from] * corners, (keptBefore[to] - keptBefore[from]) * corners, material];
        });
        assert.deepEqual(welded.groups.map((g) => [g.start, g.count, g.materialIndex]), want);
      },
    ),
    { numRuns: runs },
  );
});

test('every attribute, morph attribute, name and userData is carried; the input is untouched', () => {
  const source = new THREE.BoxGeometry(1, 1, 1).toNonIndexed();
  const n = vertices(source);
  const colors = new Uint8Array(n * 3).map((_, i) => (i % 3 === 0 ? 200 : 10));
  source.setAttribute('color', new THREE.BufferAttribute(colors, 3, true));
  const morph = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) morph[i * 3] = source.getAttribute('position').getX(i) * 2;
  source.morphAttributes.position = [new THREE.Float32BufferAttribute(morph, 3)];
  source.morphTargetsRelative = true;
  source.name = 'box';
  source.userData = { tag: 'kept', nested: { list: [1, 2] }, pivot: new THREE.Vector3(1, 2, 3) };
  const before = JSON.stringify([source.toJSON(), source.morphAttributes.position[0].array.slice(0, 12)]);

  const welded = weldGeometry(source, { attributes: 'position' });
  assert.equal(welded.name, 'box');
  const { meshweld: stats, ...carried } = welded.userData;
  assert.deepEqual(Object.keys(carried), ['tag', 'nested', 'pivot']);
  assert.equal(stats.vertices, 8, 'the statistics of the weld sit beside the carried userData');
  // the values themselves, as three's clone() shares them: a Vector3 stays a Vector3
  assert.equal(carried.nested, source.userData.nested);
  assert.equal(carried.pivot.clone().y, 2);
  assert.equal(source.userData.meshweld, undefined, "the statistics stay out of the input's userData");
  assert.equal(JSON.stringify([source.toJSON(), source.morphAttributes.position[0].array.slice(0, 12)]), before);
  assert.equal(source.index, null);
  // no userData, or an empty one: the result gets a fresh object for its statistics
  for (const none of [null, {}]) {
    const plain = new THREE.BoxGeometry(1, 1, 1).toNonIndexed();
    plain.userData = none;
    const out = weldGeometry(plain, { attributes: 'position' });
    assert.deepEqual(Object.keys(out.userData), ['meshweld']);
    assert.equal(plain.userData, none);
    if (none) assert.deepEqual(Object.keys(none), [], 'the input\'s userData is untouched');
  }

  const color = welded.getAttribute('color');
  assert.ok(color.array instanceof Uint8Array && color.normalized && color.itemSize === 3);
  assert.equal(color.count, 8);
  assert.equal(welded.morphTargetsRelative, true);
  const target = welded.morphAttributes.position[0];
  const position = welded.getAttribute('position');
  for (let k = 0; k < 8; k++) assert.equal(target.getX(k), position.getX(k) * 2, 'morph targets follow their vertices');
  for (const name of ['normal', 'uv']) assert.equal(welded.getAttribute(name).count, 8);

  // 'all' compares morph attributes too: two corners with equal positions but different morphs stay apart
  source.morphAttributes.position[0].setY(3, 5);
  assert.equal(vertices(weldGeometry(source, { attributes: { color: 0 } })), 8);
  const all = weldGeometry(new THREE.BufferGeometry().copy(source).deleteAttribute('normal').deleteAttribute('uv'));
  assert.equal(vertices(all), 9);
});

test("the bounding box and sphere are computed when the input had them, as three's own methods give them", () => {
  const fresh = (g) => {
    const copy = new THREE.BufferGeometry().copy(g);
    copy.boundingBox = null;
    copy.boundingSphere = null;
    copy.computeBoundingBox();
    copy.computeBoundingSphere();
    return copy;
  };
  const same = (a, b) => ['x', 'y', 'z'].every((k) => Object.is(a.min[k], b.min[k]) && Object.is(a.max[k], b.max[k]));
  // -0 and +0 in one coordinate: the first of each is kept, and the box is three's (-0 below +0)
  const soup = new THREE.BufferGeometry();
  soup.setAttribute('position', new THREE.Float32BufferAttribute([-0, 0, 1, 2, 3, -4, 0, -0, 7, 0, 0, 1, 5, -1, 2, 1, 1, 1], 3));
  const plain = weldGeometry(soup, { radius: 0.1 });
  assert.equal(plain.boundingBox, null, 'none when the input had none');
  assert.equal(plain.boundingSphere, null);
  soup.computeBoundingBox();
  soup.computeBoundingSphere();
  const cases = [
    ['a small soup', soup],
    ['a sphere soup', new THREE.SphereGeometry(2, 16, 8).toNonIndexed()],
    ['2D positions', new THREE.BufferGeometry().setAttribute('position', new THREE.Float32BufferAttribute([0, 0, 1, 0, 0, 1, 1, 0, 3, 3, 0, 1], 2))],
  ];
  const morphed = new THREE.BoxGeometry(1, 1, 1).toNonIndexed();
  morphed.morphAttributes.position = [new THREE.Float32BufferAttribute(morphed.getAttribute('position').array.map((v) => v * 3), 3)];
  cases.push(['morph targets', morphed]);
  for (const [name, source] of cases) {
    source.computeBoundingBox();
    source.computeBoundingSphere();
    const welded = weldGeometry(source, { attributes: 'position' });
    const expected = fresh(welded);
    assert.ok(welded.boundingBox.isBox3, name);
    assert.ok(same(welded.boundingBox, expected.boundingBox), `${name}: ${JSON.stringify(welded.boundingBox)} against ${JSON.stringify(expected.boundingBox)}`);
    // three's own sphere of 2D positions is NaN (it reads a z): Object.is holds NaN equal to NaN
    const { center, radius } = welded.boundingSphere;
    assert.ok(['x', 'y', 'z'].every((k) => Object.is(center[k], expected.boundingSphere.center[k])), name);
    assert.ok(Object.is(radius, expected.boundingSphere.radius), name);
  }
  assert.ok(Object.is(weldGeometry(soup, { radius: 0.1 }).boundingBox.min.x, -0));
});

test('interleaved and normalized attributes weld like plain ones', () => {
  const plain = new THREE.BoxGeometry(1, 1, 1).toNonIndexed();
  const n = vertices(plain);
  const data = new Float32Array(n * 6);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < 3; k++) data[i * 6 + k] = plain.getAttribute('position').array[i * 3 + k];
    for (let k = 0; k < 3; k++) data[i * 6 + 3 + k] = plain.getAttribute('normal').array[i * 3 + k];
  }
  const buffer = new THREE.InterleavedBuffer(data, 6);
  const interleaved = new THREE.BufferGeometry();
  interleaved.setAttribute('position', new THREE.InterleavedBufferAttribute(buffer, 3, 0));
  interleaved.setAttribute('normal', new THREE.InterleavedBufferAttribute(buffer, 3, 3));
  const a = weldGeometry(interleaved);
  assert.equal(vertices(a), 24);
  assert.ok(!a.getAttribute('position').isInterleavedBufferAttribute, 'written out as plain attributes');
  assert.deepEqual(Array.from(a.index.array), Array.from(weldGeometry(plain, { attributes: { normal: 1e-4 } }).index.array));

  // normalized Int16 positions and Uint8 colors compare by the values the shader sees
  const quantized = new THREE.BufferGeometry();
  const q = new Int16Array([0, 0, 0, 32767, 0, 0, 0, 32767, 0, 0, 0, 0, 32767, 0, 0, 0, 32767, 1]);
  quantized.setAttribute('position', new THREE.BufferAttribute(q, 3, true));
  quantized.setAttribute('color', new THREE.BufferAttribute(new Uint8Array([255, 0, 0, 0, 255, 0, 0, 0, 255, 254, 0, 0, 0, 255, 0, 0, 0, 255]), 3, true));
  const strict = weldGeometry(quantized, { radius: 1e-4 });
  // colour 254/255 is more than 1e-4 from 255/255; z = 1 (raw) is 1/32767 < 1e-4 from 0 once normalized
  assert.equal(vertices(strict), 4);
  const lenient = weldGeometry(quantized, { radius: 1e-4 * 5, attributes: { color: 0.01 } });
  assert.equal(vertices(lenient), 3);
  assert.ok(lenient.getAttribute('position').array instanceof Int16Array && lenient.getAttribute('position').normalized);
});

test('bad geometries and options are refused with the bad value named', () => {
  const box = new THREE.BoxGeometry();
  assert.throws(() => weldGeometry({}), /weldGeometry: geometry must be a three.js BufferGeometry, got an object/);
  assert.throws(() => weldGeometry(box, { tolerance: 1 }), /unknown option 'tolerance'/);
  assert.throws(() => weldGeometry(box, { radius: -1 }), /got -1/);
  assert.throws(() => weldGeometry(box, { attributes: 'normal' }), /'all', 'position' or an object .* got the string "normal"/);
  assert.throws(() => weldGeometry(box, { attributes: { color: 0.1 } }), /'color', which the geometry does not have \(it has position, normal, uv\)/);
  assert.throws(() => weldGeometry(box, { attributes: { normal: -0.1 } }), /tolerance of 'normal' must be a finite number >= 0, got -0.1/);
  assert.throws(() => weldGeometry(box, { removeDegenerate: 'yes' }), /removeDegenerate must be true or false/);
  assert.throws(() => weldGeometry(new THREE.BufferGeometry()), /no position attribute/);
  const broken = box.toNonIndexed();
  broken.getAttribute('position').setY(4, NaN);
  assert.throws(() => weldGeometry(broken), /weldGeometry: vertex 4 has a non-finite coordinate y = NaN/);
  const badIndex = new THREE.BoxGeometry();
  badIndex.index.setX(5, 999);
  assert.throws(() => weldGeometry(badIndex), /indices\[5\] = 999 is out of range \(24 vertices\)/);
  assert.throws(() => boundaryEdges(badIndex), /^RangeError: meshweld: boundaryEdges: indices\[5\] = 999 is out of range \(24 vertices\)$/);
  assert.throws(() => boundaryEdges(new THREE.BufferGeometry()), /^RangeError: meshweld: boundaryEdges: the geometry has no position attribute$/);
  assert.throws(() => boundaryEdges(box.getAttribute('position')), /boundaryEdges: geometry must be a three.js BufferGeometry, got /);
  // an index of another array type: its values as they are, not wrapped or truncated
  const other = new THREE.BufferGeometry().setAttribute('position', new THREE.BufferAttribute(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0]), 3));
  other.setIndex(new THREE.BufferAttribute(new Float32Array([0, 1.5, 2]), 1));
  assert.throws(() => weldGeometry(other, { attributes: 'position' }), /^RangeError: meshweld: weldGeometry: indices\[1\] must be a vertex index \(an integer >= 0\), got 1.5$/);
  other.setIndex(new THREE.BufferAttribute(new Int16Array([0, 1, -1]), 1));
  assert.throws(() => weldGeometry(other, { attributes: 'position' }), /^RangeError: meshweld: weldGeometry: indices\[2\] must be a vertex index \(an integer >= 0\), got -1$/);
  other.setIndex(new THREE.BufferAttribute(new Int32Array([0, 1, 3]), 1));
  const asInt32 = weldGeometry(other, { attributes: 'position' });
  other.setIndex(new THREE.BufferAttribute(new Uint32Array([0, 1, 3]), 1));
  assert.deepEqual([...asInt32.index.array], [...weldGeometry(other, { attributes: 'position' }).index.array]);
  // a morph target of another length is refused whether or not it decides a match
  const morphed = box.toNonIndexed();
  morphed.morphAttributes.position = [new THREE.BufferAttribute(new Float32Array(9), 3)];
  for (const attributes of ['all', 'position', { normal: 0.1 }]) {
    assert.throws(() => weldGeometry(morphed, { attributes }), /^RangeError: meshweld: weldGeometry: morph attribute 'position\[0\]' has 3 items, but position has 36$/);
  }
  // the module keeps working
  assert.equal(vertices(weldGeometry(box, { attributes: 'position' })), 8);
});

test('an index of 65,536 vertices or more is a Uint32Array: a 16-bit 65535 is the primitive-restart value', () => {
  const plane = new THREE.PlaneGeometry(1, 1, 255, 255); // 65,536 vertices 1/255 apart: none merge
  const out = weldGeometry(plane, { attributes: 'position', radius: 1e-6 });
  assert.equal(out.getAttribute('position').count, 65536);
  assert.ok(out.index.array instanceof Uint32Array, out.index.array.constructor.name);
  assert.ok(out.index.array.includes(65535));
  // 65,535 vertices fit a Uint16Array, whose largest index is then 65534
  const positions = Float32Array.from({ length: 65535 * 3 }, (_, i) => i);
  const mesh = weldMesh(positions, [0, 1, 65534], { radius: 0 });
  assert.ok(mesh.indices instanceof Uint16Array);
  assert.deepEqual([...mesh.indices], [0, 1, 65534]);
});

test('half-float attributes (Float16BufferAttribute) are compared by their values and come out as half floats', () => {
  const corners = [0, 0, 0, 1, 0, 0, 0, 1, 0, 1.002, 0, 0, 1, 1, 0, 0, 1, 0];
  const half = new THREE.BufferGeometry();
  half.setAttribute('position', new THREE.Float16BufferAttribute(Uint16Array.from(corners, THREE.DataUtils.toHalfFloat), 3));
  const normals = new THREE.Float16BufferAttribute(new Uint16Array(18), 3);
  for (let i = 0; i < 6; i++) normals.setXYZ(i, 0, 0, 1);
  half.setAttribute('normal', normals);
  const single = new THREE.BufferGeometry().setAttribute('position', new THREE.Float32BufferAttribute(corners, 3));
  const welded = weldGeometry(half, { radius: 0.01 });
  assert.equal(welded.getAttribute('position').count, weldGeometry(single, { radius: 0.01 }).getAttribute('position').count);
  assert.equal(welded.getAttribute('position').count, 4);
  for (const name of ['position', 'normal']) {
    const out = welded.getAttribute(name);
    assert.equal(out.isFloat16BufferAttribute, true, name);
    assert.ok(out.array instanceof Uint16Array, name);
  }
  assert.deepEqual([0, 1, 2, 3].map((i) => welded.getAttribute('position').getX(i)), [0, 1, 0, 1]);
  assert.equal(welded.getAttribute('normal').getZ(3), 1);
});
