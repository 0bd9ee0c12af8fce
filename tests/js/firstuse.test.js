// The first ten minutes with the package: what a user meets after `npm install meshweld` and the
// README; each test failed before the change it checks.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import * as THREE from 'three';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { SKIPPED, countClosePairs, ready, weld, weldMesh, Welder } from '../../js/index.js';
import { bound, cells, lookups, traceWeld } from '../../js/inspect.js';
import { weldGeometry } from '../../js/three.js';
import { ERROR, Info, Options, Attribute, errorText, liveAllocations, withFrame, readStruct, writeStruct } from '../../js/heap.js';
import { root } from './helpers.js';

await ready;

function throwsMessage(fn, Type, message) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof Type, `${e.constructor.name}: ${e.message}`);
    if (message instanceof RegExp) assert.match(e.message, message);
    else assert.equal(e.message, message);
    return true;
  });
}

function stl(name) {
  const bytes = readFileSync(join(root, 'node_modules', 'stl-models', 'objects', name));
  return new STLLoader().parse(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

function quietly(fn) {
  const warned = [];
  const warn = console.warn;
  console.warn = (...args) => warned.push(args.join(' '));
  try {
    return { result: fn(), warned };
  } finally {
    console.warn = warn;
  }
}

test('layers: the C structs by field name, error text from the C library, every frame freed', () => {
  for (const layout of [Options, Info, Attribute]) assert.equal(layout.size, 16, layout.name);
  assert.deepEqual(Object.keys(Info.fields), ['unique_count', 'method', 'error_point', 'error_axis']);
  withFrame((frame) => {
    const at = frame.struct(Options, { dim: 2, radius: 0.5, method: 3, store: 1 });
    assert.deepEqual(readStruct(Options, at), { dim: 2, radius: 0.5, method: 3, store: 1 });
    writeStruct(Options, at, { radius: 0.25 });
    assert.equal(readStruct(Options, at).radius, 0.25);
  });
  assert.equal(errorText(ERROR.IndexCount), 'index count must be a multiple of 3');
  assert.equal(errorText(ERROR.Ok), 'no error');
  const before = liveAllocations();
  const box = new THREE.BoxGeometry().toNonIndexed();
  weld(box.getAttribute('position').array, { radius: 1e-4, position: 'centroid' });
  weldMesh(box.getAttribute('position').array, null, { radius: 1e-4, attributes: { n: { array: box.getAttribute('normal').array, itemSize: 3 } }, tolerances: { n: 0.1 } });
  weldGeometry(box, { nonFinite: 'keep', primitive: 'lines' });
  assert.throws(() => weld([0, NaN, 0], { radius: 1 }));
  assert.throws(() => weldMesh(new Float32Array(9), [0, 1, 9], { radius: 1 }));
  assert.equal(liveAllocations(), before, 'a call left scratch allocated');
});

test('an STL welded with the default attributes says why little merged; the statistics come with the result', () => {
  const soup = stl('bunny.bin.stl');
  const { result: fallback, warned } = quietly(() => weldGeometry(soup));
  const stats = fallback.userData.meshweld;
  assert.equal(stats.inputVertices, 208353);
  assert.equal(stats.vertices, 206917);
  assert.equal(stats.mergedPercent, 0.7);
  assert.deepEqual(stats.compared, ['normal']);
  assert.match(stats.hint, /0\.7% of the vertices merged .* By position alone 83\.3% would merge: pass attributes: 'position'/);
  assert.equal(warned.length, 1);
  assert.match(warned[0], /^meshweld: weldGeometry: 0\.7% of the vertices merged/);
  // asked for explicitly: no hint, no warning
  const { result: explicit, warned: none } = quietly(() => weldGeometry(soup, { attributes: 'all' }));
  assert.equal(explicit.userData.meshweld.hint, undefined);
  assert.deepEqual(none, []);
  const { result: byPosition, warned: silent } = quietly(() => weldGeometry(soup, { attributes: 'position' }));
  assert.equal(byPosition.userData.meshweld.vertices, 34834);
  assert.equal(byPosition.userData.meshweld.merged, 208353 - 34834);
  assert.deepEqual(silent, []);
  // an indexed box with hard edges (24 vertices, 8 positions): 'all' is right there, and says nothing
  const { warned: boxWarned } = quietly(() => weldGeometry(new THREE.BoxGeometry()));
  assert.deepEqual(boxWarned, []);
});

test('every message names the function called, the option and the bad value in words', () => {
  const ok = new Float32Array([0, 0, 0, 1, 1, 1]);
  throwsMessage(() => weld(ok, {}), TypeError,
    'meshweld: weld: radius must be a finite number >= 0, got undefined (or relativeRadius, a fraction of the bounding-box diagonal)');
  throwsMessage(() => new Welder({}), TypeError, 'meshweld: new Welder: radius must be a finite number >= 0, got undefined');
  throwsMessage(() => weld(ok, { radius: {} }), TypeError, 'meshweld: weld: radius must be a finite number >= 0, got an object');
  throwsMessage(() => weld({ length: 3 }, { radius: 1 }), TypeError, /^meshweld: weld: points must be a Float32Array, .* got an object$/);
  throwsMessage(() => weld(new BigInt64Array(3), { radius: 1 }), TypeError, /got a BigInt64Array of 3 values$/);
  throwsMessage(() => weldMesh(new Float32Array(9), new Int16Array(3), { radius: 1 }), TypeError, /^meshweld: weldMesh: indices must be .* got an Int16Array of 3 values$/);
  // errors met inside weldGeometry name weldGeometry and the vertex
  const broken = new THREE.BoxGeometry().toNonIndexed();
  broken.getAttribute('position').setY(5, NaN);
  throwsMessage(() => weldGeometry(broken), RangeError, /^meshweld: weldGeometry: vertex 5 has a non-finite coordinate y = NaN; finite coordinates are expected/);
  const four = new THREE.BufferGeometry().setAttribute('position', new THREE.Float32BufferAttribute(new Float32Array(12), 3));
  throwsMessage(() => weldGeometry(four), RangeError, /^meshweld: weldGeometry: unindexed vertex count 4 is not a multiple of 3: triangles need 3 vertices each \(primitive: 'points' or 'lines'/);
  // unknown options are refused everywhere, with the valid names
  const typo = /unknown option 'tolerance'; the options are radius, /;
  throwsMessage(() => weld(ok, { radius: 1, tolerance: 0.1 }), RangeError, typo);
  throwsMessage(() => weldMesh(new Float32Array(9), null, { radius: 1, tolerance: 0.1 }), RangeError, typo);
  throwsMessage(() => new Welder({ radius: 1, tolerance: 0.1 }), RangeError, typo);
  throwsMessage(() => weldGeometry(new THREE.BoxGeometry(), { tolerance: 0.1 }), RangeError, typo);
  throwsMessage(() => countClosePairs(ok, { radius: 1, tolerance: 0.1 }), RangeError, typo);
  throwsMessage(() => bound({ radius: 1, tolerance: 0.1 }), RangeError, /^meshweld: bound: unknown option 'tolerance'; the options are method, store, dim, radius$/);
  throwsMessage(() => cells([0, 0, 0], { radius: 1, tolerance: 0.1 }), RangeError, /^meshweld: cells: unknown option/);
  throwsMessage(() => new Welder({ radius: 1 }).add(ok, { strde: 3 }), RangeError, "meshweld: Welder.add: unknown option 'strde'; the options are stride, normalized");
  throwsMessage(() => lookups('hexagon'), RangeError, /^meshweld: lookups: method must be one of auto, .* got the string "hexagon"$/);
  throwsMessage(() => weld(ok, { radius: 1, method: 'fast' }), RangeError,
    "meshweld: weld: method must be 'auto', 'naive', 'grid-r', 'grid-2r', 'hex', 'bcc', 'kdtree' or 'grid', got the string \"fast\"");
});

test('quantized positions weld by the values the shader sees; the types accepted are the types that work', () => {
  const raw = new Int16Array([0, 0, 0, 32767, 0, 0, 32766, 0, 0, -32768, 0, 0]);
  const values = Float32Array.from(raw, (v) => Math.max(v / 32767, -1));
  const normalized = weld(raw, { radius: 1e-4, normalized: true });
  assert.deepEqual(normalized, weld(values, { radius: 1e-4 }));
  assert.deepEqual([...normalized.remap], [0, 1, 1, 2], '-32768 and -32767 both mean -1; 32766 is within 1e-4 of 1');
  // raw integers: as numbers
  assert.deepEqual([...weld(new Uint8Array([0, 0, 0, 1, 0, 0, 200, 0, 0]), { radius: 1 }).remap], [0, 0, 1]);
  for (const Type of [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array]) {
    const points = new Type([1, 2, 3, 1, 2, 3, 4, 5, 6]);
    assert.deepEqual([...weld(points, { radius: 0 }).remap], [0, 0, 1], Type.name);
    assert.equal(weld(points, { radius: 0, normalized: true }).count, 2, Type.name);
    const w = new Welder({ radius: 0, normalized: true });
    assert.deepEqual([...w.add(points)], [0, 0, 1], Type.name);
    w.dispose();
  }
  throwsMessage(() => weld(new Float32Array(3), { radius: 1, normalized: true }), TypeError,
    'meshweld: weld: normalized: true needs integer points (Int8Array to Uint32Array), got a Float32Array of 3 values');
  // weldMesh: Uint16 positions and a normalized Int8 attribute compared by its shader values
  const positions = new Uint16Array([0, 0, 0, 10, 0, 0, 0, 10, 0, 0, 0, 0, 10, 0, 0, 0, 10, 0]);
  const normals = new Int8Array([0, 0, 127, 0, 0, 127, 0, 0, 127, 0, 0, -127, 0, 0, -128, 0, 0, -127]);
  const mesh = weldMesh(positions, null, { radius: 0.5, attributes: { normal: { array: normals, itemSize: 3, normalized: true } }, tolerances: { normal: 0.01 } });
  assert.equal(mesh.vertexCount, 6, '-127 and -128 are both -1 once normalized: they match each other, not +1');
  assert.ok(mesh.attributes.normal.array instanceof Int8Array && mesh.attributes.normal.normalized === true);
  // weldGeometry with KHR_mesh_quantization-style positions (Int8, normalized) and an odd count
  const quantized = new THREE.BufferGeometry();
  quantized.setAttribute('position', new THREE.BufferAttribute(new Int8Array([0, 0, 0, 127, 0, 0, 0, 127, 0, 0, 0, 0, 127, 0, 0, 0, 127, 0]), 3, true));
  const welded = weldGeometry(quantized, { radius: 1e-3 });
  assert.equal(welded.getAttribute('position').count, 3);
  assert.ok(welded.getAttribute('position').array instanceof Int8Array && welded.getAttribute('position').normalized);
});

test('weldMesh and weldGeometry give the same index type: Uint16 whenever the vertices fit', () => {
  const soup = new THREE.BoxGeometry().toNonIndexed();
  const positions = soup.getAttribute('position').array;
  const mesh = weldMesh(positions, null, { radius: 1e-4 });
  const geometry = weldGeometry(soup, { attributes: 'position' });
  assert.ok(mesh.indices instanceof Uint16Array);
  assert.equal(geometry.index.array.constructor, mesh.indices.constructor);
  assert.deepEqual([...geometry.index.array], [...mesh.indices]);
  assert.ok(weldMesh(positions, Uint32Array.from({ length: 36 }, (_, i) => i), { radius: 1e-4 }).indices instanceof Uint16Array);
  assert.ok(weldMesh(positions, new Uint8Array(36).map((_, i) => i), { radius: 1e-4 }).indices instanceof Uint16Array);
});

test('non-finite positions: an error naming the vertex by default, or skipped, or kept', () => {
  const points = new Float32Array([0, 0, 0, NaN, 0, 0, 0, 0, 1e-6, Infinity, 1, 1, NaN, 0, 0, 5, 5, 5]);
  throwsMessage(() => weld(points, { radius: 1e-3 }), RangeError, /^meshweld: weld: point 1 has a non-finite coordinate x = NaN/);
  const skip = weld(points, { radius: 1e-3, nonFinite: 'skip' });
  assert.deepEqual([...skip.remap], [0, SKIPPED, 0, SKIPPED, SKIPPED, 1]);
  assert.equal(skip.count, 2);
  assert.equal(skip.skipped, 3);
  assert.deepEqual([...skip.positions], [0, 0, 0, 5, 5, 5]);
  const keep = weld(points, { radius: 1e-3, nonFinite: 'keep' });
  assert.deepEqual([...keep.remap], [0, 1, 0, 2, 1, 3], 'the two NaNs with the same bits share an output; numbering by first appearance');
  assert.deepEqual([...keep.positions], [0, 0, 0, NaN, 0, 0, Infinity, 1, 1, 5, 5, 5]);
  // by their bits, -0 equal to +0 as for every other point
  assert.deepEqual([...weld([Infinity, 0, 0, Infinity, -0, 0, -0, 0, 0], { radius: 0, nonFinite: 'keep' }).remap], [0, 0, 1]);
  throwsMessage(() => weld(points, { radius: 1, nonFinite: 'ignore' }), RangeError,
    "meshweld: weld: nonFinite must be 'error', 'skip' or 'keep', got the string \"ignore\"");
  // each error suggests only what the call can take: weld 'skip' or 'keep', a Welder 'skip' when
  // it is made, countClosePairs nothing
  throwsMessage(() => weld(points, { radius: 1e-3 }), RangeError, /finite coordinates are expected \(nonFinite: 'skip' or 'keep' lets such points through\)$/);
  throwsMessage(() => new Welder({ radius: 1e-3 }).add(points), RangeError,
    /^meshweld: Welder.add: point 1 has a non-finite coordinate x = NaN; finite coordinates are expected \(a Welder made with nonFinite: 'skip' leaves such points out\)$/);
  throwsMessage(() => countClosePairs(points, { radius: 1e-3 }), RangeError,
    /^meshweld: countClosePairs: point 1 has a non-finite coordinate x = NaN; finite coordinates are expected$/);
  throwsMessage(() => traceWeld(points, { radius: 1e-3 }), RangeError,
    /^meshweld: traceWeld: point 1 has a non-finite coordinate x = NaN; finite coordinates are expected$/);
  // a Welder skips too
  const w = new Welder({ radius: 1e-3, nonFinite: 'skip' });
  assert.deepEqual([...w.add(points)], [0, SKIPPED, 0, SKIPPED, SKIPPED, 1]);
  assert.equal(w.count, 2);
  w.dispose();
  // a mesh: the triangles that use a skipped vertex go with it; a NaN in a vertex no triangle uses
  const positions = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, NaN, NaN, NaN, 1, 1, 0]);
  const mesh = weldMesh(positions, [0, 1, 2, 1, 4, 2], { radius: 1e-4, nonFinite: 'skip' });
  assert.equal(mesh.skipped, 1);
  assert.equal(mesh.skippedElements, 0, 'vertex 3 is used by no triangle');
  assert.deepEqual([...mesh.indices], [0, 1, 2, 1, 3, 2]);
  const used = weldMesh(positions, [0, 1, 3, 0, 1, 2], { radius: 1e-4, nonFinite: 'skip' });
  assert.equal(used.skippedElements, 1);
  assert.deepEqual([...used.indices], [0, 1, 2]);
  const kept = weldMesh(positions, [0, 1, 3, 0, 1, 2], { radius: 1e-4, nonFinite: 'keep' });
  assert.deepEqual([...kept.indices], [0, 1, 3, 0, 1, 2], 'the NaN vertex is output 3, numbered by first appearance');
  // weldGeometry: skip drops the triangle and shrinks the groups
  const box = new THREE.BoxGeometry().toNonIndexed();
  box.clearGroups();
  box.addGroup(0, 18, 0);
  box.addGroup(18, 18, 1);
  box.getAttribute('position').setX(20, NaN);
  const welded = weldGeometry(box, { attributes: 'position', nonFinite: 'skip' });
  assert.equal(welded.index.count, 33);
  assert.deepEqual(welded.groups.map((g) => [g.start, g.count]), [[0, 18], [18, 15]]);
  assert.equal(welded.userData.meshweld.skippedVertices, 1);
  assert.equal(welded.userData.meshweld.skippedElements, 1);
});

// The core compares non-finite attribute values by their bits (a NaN matches only the same bits);
// an older core refuses them. These tests run once the core in js/meshweld.wasm does.
const coreComparesNaNBits = (() => {
  try {
    weldMesh(new Float32Array(9), null, { radius: 1, attributes: { a: { array: new Float32Array([NaN, NaN, 0]), itemSize: 1 } }, tolerances: { a: 0 } });
    return true;
  } catch {
    return false;
  }
})();
const needsCore = !coreComparesNaNBits && 'needs the core that compares non-finite attribute values by their bits';

test('NaN attribute values are compared by their bits, not fatal', { skip: needsCore }, () => {
  const positions = new Float32Array(12);
  const values = new Float32Array([NaN, NaN, 1, -NaN]);
  const mesh = weldMesh(positions, null, { radius: 1, primitive: 'points', attributes: { a: { array: values, itemSize: 1 } }, tolerances: { a: 0.5 } });
  const same = Object.is(new Uint32Array(values.buffer)[0], new Uint32Array(values.buffer)[3]);
  assert.deepEqual([...mesh.remap], [0, 0, 1, same ? 0 : 2]);
  // weldGeometry's default 'all' with a NaN normal welds
  const box = new THREE.BoxGeometry().toNonIndexed();
  box.getAttribute('normal').setX(1, NaN); // corner 1 is a face corner that two triangles share
  const welded = weldGeometry(box);
  assert.equal(welded.getAttribute('position').count, 25, 'the vertex with a NaN normal stays apart, the rest weld as usual');
});

test('point clouds weld as points, line segments keep their pairs', () => {
  const cloud = new THREE.BufferGeometry();
  cloud.setAttribute('position', new THREE.Float32BufferAttribute([0, 0, 0, 1e-6, 0, 0, 1, 1, 1, 2, 2, 2, 1, 1, 1 + 1e-6], 3));
  cloud.setAttribute('color', new THREE.Float32BufferAttribute([1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0], 3));
  const points = weldGeometry(cloud, { primitive: 'points', attributes: 'position', radius: 1e-4 });
  assert.equal(points.index, null, 'a point cloud stays unindexed');
  assert.deepEqual([...points.getAttribute('position').array], [0, 0, 0, 1, 1, 1, 2, 2, 2]);
  assert.deepEqual([...points.getAttribute('color').array], [1, 0, 0, 0, 0, 1, 1, 1, 1]);
  const lines = new THREE.BufferGeometry();
  // four segments: a-b, b'-c (b' = b), c-c' (collapses), a-b again reversed
  lines.setAttribute('position', new THREE.Float32BufferAttribute([0, 0, 0, 1, 0, 0, 1, 0, 1e-6, 2, 0, 0, 2, 0, 0, 2, 1e-6, 0, 1, 0, 0, 0, 0, 0], 3));
  const welded = weldGeometry(lines, { primitive: 'lines', attributes: 'position' });
  assert.deepEqual([...welded.index.array], [0, 1, 1, 2, 1, 0]);
  assert.equal(welded.userData.meshweld.degenerateRemoved, 1);
  const mesh = weldMesh(lines.getAttribute('position').array, null, { radius: 1e-4, primitive: 'lines', removeDuplicates: true });
  assert.deepEqual([...mesh.indices], [0, 1, 1, 2]);
  assert.equal(mesh.duplicatesRemoved, 1);
  throwsMessage(() => weldMesh(new Float32Array(9), null, { radius: 1, primitive: 'lines' }), RangeError, /unindexed vertex count 3 is not a multiple of 2/);
  throwsMessage(() => weldMesh(new Float32Array(9), [0, 1, 2], { radius: 1, primitive: 'lines' }), RangeError, /index count 3 is not a multiple of 2 \(lines\)/);
  throwsMessage(() => weldGeometry(cloud, { primitive: 'strip' }), RangeError, /primitive must be 'triangles', 'lines' or 'points', got the string "strip"/);
});

test('a radius relative to the bounding-box diagonal', () => {
  const soup = stl('gearwheel.bin.stl');
  const positions = soup.getAttribute('position').array;
  let low = [Infinity, Infinity, Infinity];
  let high = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i += 3)
    for (let a = 0; a < 3; a++) {
      low[a] = Math.min(low[a], positions[i + a]);
      high[a] = Math.max(high[a], positions[i + a]);
    }
  const diagonal = Math.hypot(high[0] - low[0], high[1] - low[1], high[2] - low[2]);
  const relative = weld(positions, { relativeRadius: 2e-3 });
  assert.ok(Math.abs(relative.radius - 2e-3 * diagonal) <= 1e-12 * diagonal);
  assert.deepEqual(relative.remap, weld(positions, { radius: relative.radius }).remap);
  const geometry = weldGeometry(soup, { attributes: 'position', relativeRadius: 2e-3 });
  assert.equal(geometry.userData.meshweld.vertices, 902, 'the README table: gearwheel at 2e-3 of the diagonal');
  assert.equal(weldMesh(positions, null, { relativeRadius: 2e-3 }).vertexCount, 902);
  throwsMessage(() => weld(positions, { radius: 1, relativeRadius: 1e-5 }), RangeError, /^meshweld: weld: give radius or relativeRadius, not both/);
  throwsMessage(() => new Welder({ relativeRadius: 1e-5 }), RangeError, /^meshweld: new Welder: relativeRadius needs every point up front/);
  throwsMessage(() => weld(positions, { relativeRadius: -1 }), RangeError, 'meshweld: weld: relativeRadius must be a finite number >= 0, got -1');
  assert.equal(weld(new Float32Array(6), { relativeRadius: 1 }).count, 1, 'a zero diagonal: radius 0');
});

test("relativeRadius with weldGeometry's 'all': attributes are compared within the same resolved radius", () => {
  const box = new THREE.BoxGeometry(2, 2, 2).toNonIndexed(); // diagonal 2√3
  const relative = weldGeometry(box, { relativeRadius: 0.01 });
  const absolute = weldGeometry(box, { radius: 0.02 * Math.sqrt(3) });
  assert.equal(relative.userData.meshweld.radius, 0.02 * Math.sqrt(3));
  assert.deepEqual(relative.index.array, absolute.index.array);
  assert.equal(relative.getAttribute('position').count, 24);
  throwsMessage(() => weldGeometry(box, { relativeRadius: -1 }), RangeError, 'meshweld: weldGeometry: relativeRadius must be a finite number >= 0, got -1');
});

test('with nonFinite skip, an error on the points that remain names the input index', () => {
  const points = [NaN, 0, 0, NaN, 0, 0, 3e38, 0, 0];
  throwsMessage(() => weld(points, { radius: 1e-6, method: 'grid-2r', nonFinite: 'skip' }), RangeError,
    /^meshweld: weld: point 2 coordinate x = 3e\+38 is too large for the radius/);
  const w = new Welder({ radius: 1e-6, method: 'grid-2r', nonFinite: 'skip' });
  throwsMessage(() => w.add(points), RangeError, /^meshweld: Welder.add: point 2 coordinate x = 3e\+38 is too large/);
  w.dispose();
});
