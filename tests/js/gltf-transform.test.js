// meshweld/gltf-transform against glTF-Transform itself: its own weld() on exact data, jittered data
// it cannot weld, GLB round trips through NodeIO, shared accessors, morph targets, quantized and
// normalized accessors, every primitive mode, the document's logger, the guarantees by brute force,
// and (fast-check) any small primitive against a plain model of the transform.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Document, Logger, NodeIO, Primitive, getBounds } from '@gltf-transform/core';
import { KHRMeshQuantization } from '@gltf-transform/extensions';
import { weld as exactWeld } from '@gltf-transform/functions';
import * as THREE from 'three';
import { DEFAULT_TOLERANCES, ready, weld, weldPrimitive } from '../../js/gltf-transform.js';
import { weldMesh } from '../../js/index.js';
import { meshScale, sceneDiagonal } from '../../js/scene.js';
import { mulberry32 } from './helpers.js';

await ready;

/** A logger that keeps its messages. */
class Recorder extends Logger {
  constructor() {
    super(Logger.Verbosity.DEBUG);
    this.lines = [];
  }
  debug(text) {
    this.lines.push(['debug', text]);
  }
  info(text) {
    this.lines.push(['info', text]);
  }
  warn(text) {
    this.lines.push(['warn', text]);
  }
  error(text) {
    this.lines.push(['error', text]);
  }
}

const SEMANTICS = { position: 'POSITION', normal: 'NORMAL', uv: 'TEXCOORD_0' };
const TYPES = { 1: 'SCALAR', 2: 'VEC2', 3: 'VEC3', 4: 'VEC4' };

/** A document with one mesh per three.js geometry, each a primitive with POSITION, NORMAL, TEXCOORD_0. */
function documentOf(geometries, { jitter = 0, seed = 1 } = {}) {
  const document = new Document();
  document.setLogger(new Recorder());
  const buffer = document.createBuffer();
  const scene = document.createScene();
  const random = mulberry32(seed);
  for (const [name, geometry] of Object.entries(geometries)) {
    const primitive = document.createPrimitive();
    for (const [key, semantic] of Object.entries(SEMANTICS)) {
      const attribute = geometry.getAttribute(key);
      const array = Float32Array.from(attribute.array);
      if (jitter && key === 'position') for (let i = 0; i < array.length; i++) array[i] += (2 * random() - 1) * jitter;
      primitive.setAttribute(semantic, document.createAccessor().setType(TYPES[attribute.itemSize]).setArray(array).setBuffer(buffer));
    }
    if (geometry.index) {
      primitive.setIndices(document.createAccessor().setType('SCALAR').setArray(Uint32Array.from(geometry.index.array)).setBuffer(buffer));
    }
    const mesh = document.createMesh(name).addPrimitive(primitive);
    scene.addChild(document.createNode(name).setMesh(mesh));
  }
  return document;
}

const shapes = () => ({
  box: new THREE.BoxGeometry(1, 2, 3, 2, 2, 2),
  sphere: new THREE.SphereGeometry(1, 32, 16),
  knot: new THREE.TorusKnotGeometry(1, 0.4, 64, 8),
  plane: new THREE.PlaneGeometry(1, 1, 4, 4),
});
const soups = () => Object.fromEntries(Object.entries(shapes()).map(([k, g]) => [k, g.toNonIndexed()]));

/** Vertices and triangles of each mesh, by name. */
function counts(document) {
  return Object.fromEntries(
    document
      .getRoot()
      .listMeshes()
      .map((mesh) => {
        const p = mesh.listPrimitives()[0];
        const v = p.getAttribute('POSITION').getCount();
        return [mesh.getName(), [v, (p.getIndices() ? p.getIndices().getCount() : v) / 3]];
      }),
  );
}

// The values a shader sees, as float32 (what the weld compares).
function decoded(accessor) {
  const array = accessor.getArray();
  if (!accessor.getNormalized()) return Float32Array.from(array);
  const scale = { Int8Array: 127, Uint8Array: 255, Int16Array: 32767, Uint16Array: 65535 }[array.constructor.name];
  return Float32Array.from(array, (v) => Math.max(v / scale, -1));
}

function within(a, b, i, j, size, tolerance) {
  let d = 0;
  for (let k = 0; k < size; k++) {
    const e = a[i * size + k] - b[j * size + k];
    d += e * e;
  }
  return d <= tolerance * tolerance;
}

/** Pairs of output vertices of a primitive that match (every attribute within its tolerance), by brute force. */
function matchingPairs(primitive, tolerances) {
  const columns = [];
  for (const semantic of primitive.listSemantics()) {
    if (tolerances[semantic] === undefined) continue;
    const accessor = primitive.getAttribute(semantic);
    columns.push({ values: decoded(accessor), size: accessor.getElementSize(), tolerance: tolerances[semantic] });
  }
  const n = primitive.getAttribute('POSITION').getCount();
  const pairs = [];
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++)
      if (columns.every((c) => within(c.values, c.values, i, j, c.size, Math.fround(c.tolerance)))) pairs.push([i, j]);
  return pairs;
}

test('on exact data the vertex counts equal glTF-Transform weld(), indexed or not', async () => {
  for (const make of [shapes, soups]) {
    const theirs = documentOf(make());
    await theirs.transform(exactWeld());
    for (const options of [{ radius: 0 }, undefined, { relative: 1e-6 }]) {
      const ours = documentOf(make());
      await ours.transform(weld(options));
      assert.deepEqual(counts(ours), counts(theirs), JSON.stringify(options));
    }
  }
  // the soups weld to the known topology with UV seams and hard edges kept
  const ours = documentOf(soups());
  await ours.transform(weld());
  assert.deepEqual(counts(ours), { box: [54, 48], sphere: [559, 960], knot: [585, 1024], plane: [25, 32] });
});

test('on data jittered by 1e-6 meshweld welds and glTF-Transform weld() does not', async () => {
  const theirs = documentOf(soups(), { jitter: 1e-6 });
  await theirs.transform(exactWeld());
  const ours = documentOf(soups(), { jitter: 1e-6 });
  await ours.transform(weld({ radius: 1e-5 }));
  const soup = counts(documentOf(soups()));
  assert.deepEqual(counts(theirs), soup, 'the exact weld merges nothing');
  assert.deepEqual(counts(ours), { box: [54, 48], sphere: [559, 960], knot: [585, 1024], plane: [25, 32] });
  // relative to each primitive's diagonal does the same
  const relative = documentOf(soups(), { jitter: 1e-6 });
  await relative.transform(weld({ relative: 1e-5 }));
  assert.deepEqual(counts(relative), counts(ours));
});

test('a GLB written with NodeIO, read back, welded and written again round-trips', async () => {
  const io = new NodeIO();
  const glb = await io.writeBinary(documentOf(soups(), { jitter: 1e-6 }));
  const document = await io.readBinary(glb);
  const recorder = new Recorder();
  document.setLogger(recorder);
  await document.transform(weld({ radius: 1e-5 }));
  const welded = await io.writeBinary(document);
  assert.ok(welded.byteLength < glb.byteLength / 2, `${welded.byteLength} bytes of ${glb.byteLength}`);
  const again = await io.readBinary(welded);
  assert.deepEqual(counts(again), counts(document));
  assert.deepEqual(counts(again), { box: [54, 48], sphere: [559, 960], knot: [585, 1024], plane: [25, 32] });
  for (const mesh of again.getRoot().listMeshes()) {
    const p = mesh.listPrimitives()[0];
    assert.ok(p.getIndices().getArray() instanceof Uint16Array, 'indices come out as Uint16 when they fit');
    assert.ok(p.getAttribute('POSITION').getArray() instanceof Float32Array);
    assert.deepEqual(matchingPairs(p, { POSITION: 1e-5, NORMAL: DEFAULT_TOLERANCES.NORMAL, TEXCOORD_0: DEFAULT_TOLERANCES.TEXCOORD }), []);
  }
  // no accessor is left without a user; the log names each mesh with its figures
  assert.deepEqual(again.getRoot().listAccessors().filter((a) => a.listParents().length === 1), []);
  assert.ok(
    recorder.lines.some(([level, text]) => level === 'info' && text === "meshweld: mesh 'box': vertices 144 → 54, triangles 48 → 48"),
    JSON.stringify(recorder.lines),
  );
});

test('the guarantees hold per primitive: no two output vertices match (brute force)', async () => {
  for (let seed = 1; seed <= 12; seed++) {
    const random = mulberry32(seed);
    const n = 60 + Math.floor(random() * 90);
    const document = new Document();
    document.setLogger(new Recorder());
    const positions = new Float32Array(n * 3);
    const normals = new Float32Array(n * 3);
    const uvs = new Float32Array(n * 2);
    const colors = new Uint8Array(n * 4);
    for (let i = 0; i < n; i++) {
      // few distinct values, so that many vertices are within tolerance of each other
      for (let k = 0; k < 3; k++) positions[3 * i + k] = Math.floor(random() * 3) * 0.01 + random() * 0.02;
      const a = random() * 0.3;
      normals.set([Math.cos(a), Math.sin(a), 0], 3 * i);
      uvs.set([Math.floor(random() * 2) + random() * 2e-4, random() * 2e-4], 2 * i);
      colors.set([255, 250 + Math.floor(random() * 2), 0, 255], 4 * i);
    }
    const indices = Uint32Array.from({ length: 3 * n }, () => Math.floor(random() * n));
    const primitive = document
      .createPrimitive()
      .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(positions))
      .setAttribute('NORMAL', document.createAccessor().setType('VEC3').setArray(normals))
      .setAttribute('TEXCOORD_0', document.createAccessor().setType('VEC2').setArray(uvs))
      .setAttribute('COLOR_0', document.createAccessor().setType('VEC4').setArray(colors).setNormalized(true))
      .setIndices(document.createAccessor().setType('SCALAR').setArray(indices));
    document.createMesh().addPrimitive(primitive);
    const tolerances = { NORMAL: 0.1, TEXCOORD_0: 1e-4, COLOR_0: 0.005 };
    const report = weldPrimitive(primitive, { radius: 0.015, tolerances });
    assert.ok(report.vertices[1] < report.vertices[0], JSON.stringify(report));
    assert.deepEqual(matchingPairs(primitive, { POSITION: 0.015, ...tolerances }), [], `seed ${seed}`);
    assert.ok(primitive.getAttribute('COLOR_0').getArray() instanceof Uint8Array);
    assert.equal(primitive.getAttribute('COLOR_0').getNormalized(), true);
    // every output index is in range and every triangle is not degenerate
    const out = primitive.getIndices().getArray();
    for (let t = 0; t < out.length; t += 3) {
      assert.ok(out[t] !== out[t + 1] && out[t + 1] !== out[t + 2] && out[t] !== out[t + 2]);
      assert.ok(Math.max(out[t], out[t + 1], out[t + 2]) < report.vertices[1]);
    }
  }
});

test('accessors shared by several primitives are not mutated in place', async () => {
  const document = documentOf({ box: new THREE.BoxGeometry().toNonIndexed() });
  const mesh = document.getRoot().listMeshes()[0];
  const first = mesh.listPrimitives()[0];
  const position = first.getAttribute('POSITION');
  const before = position.getArray().slice();
  // a second primitive drawing the same vertex arrays through half the triangles, and a third
  // mesh sharing the first primitive's arrays exactly
  const second = document.createPrimitive().setIndices(document.createAccessor().setType('SCALAR').setArray(Uint16Array.from({ length: 18 }, (_, i) => i)));
  for (const semantic of first.listSemantics()) second.setAttribute(semantic, first.getAttribute(semantic));
  mesh.addPrimitive(second);
  const third = document.createPrimitive();
  for (const semantic of first.listSemantics()) third.setAttribute(semantic, first.getAttribute(semantic));
  document.createMesh('copy').addPrimitive(third);
  const untouched = document.createPrimitive().setAttribute('POSITION', position).setMode(Primitive.Mode.POINTS);
  const keeper = document.createMesh('keeper').addPrimitive(untouched);

  await document.transform(weld({ radius: 1e-5 }));
  assert.deepEqual(position.getArray(), before, 'the shared POSITION kept its values');
  assert.equal(first.getAttribute('POSITION').getCount(), 24);
  assert.equal(second.getAttribute('POSITION').getCount(), 12, 'the second primitive keeps only the vertices it draws');
  assert.equal(third.getAttribute('POSITION'), first.getAttribute('POSITION'), 'identical primitives share the welded arrays');
  assert.equal(keeper.listPrimitives()[0].getAttribute('POSITION').getCount(), 8, 'POINTS weld as points');
  assert.equal(keeper.listPrimitives()[0].getIndices(), null);
  assert.ok(position.isDisposed(), 'the old accessor, no longer used, is disposed');
  assert.deepEqual(document.getRoot().listAccessors().filter((a) => a.listParents().length === 1), []);
});

test("an accessor only the welded primitive uses is gathered in place: it keeps its name, extras and buffer", async () => {
  const document = documentOf({ box: new THREE.BoxGeometry() }); // indexed: 24 vertices, 8 positions
  const primitive = document.getRoot().listMeshes()[0].listPrimitives()[0];
  const position = primitive.getAttribute('POSITION').setName('where').setExtras({ kept: true });
  const normal = primitive.getAttribute('NORMAL');
  const index = primitive.getIndices();
  const accessors = document.getRoot().listAccessors().length;
  await document.transform(weld({ radius: 1e-5, tolerances: { NORMAL: Infinity, TEXCOORD_0: Infinity } }));
  assert.equal(primitive.getAttribute('POSITION'), position);
  assert.equal(primitive.getAttribute('NORMAL'), normal);
  assert.equal(primitive.getIndices(), index);
  assert.deepEqual([position.getCount(), normal.getCount(), index.getCount()], [8, 8, 36]);
  assert.deepEqual([position.getName(), position.getExtras()], ['where', { kept: true }]);
  assert.equal(document.getRoot().listAccessors().length, accessors, 'no accessor made or left behind');

  // an accessor that is both the index and an attribute of one primitive is gathered as the
  // attribute, and the index gets an accessor of its own
  const odd = new Document();
  const buffer = odd.createBuffer();
  const both = odd.createAccessor().setType('SCALAR').setArray(new Uint16Array([0, 1, 2, 3, 1, 2])).setBuffer(buffer);
  const corners = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 7, 7, 7, 8, 8, 8]);
  const twice = odd.createPrimitive().setAttribute('POSITION', odd.createAccessor().setType('VEC3').setArray(corners).setBuffer(buffer))
    .setIndices(both).setAttribute('_ID', both);
  odd.createMesh('odd').addPrimitive(twice);
  await odd.transform(weld({ radius: 1e-3 }));
  assert.deepEqual(Array.from(twice.getAttribute('_ID').getArray()), [0, 1, 2, 3]);
  assert.deepEqual(Array.from(twice.getIndices().getArray()), [0, 1, 2, 3, 1, 2]);
  assert.notEqual(twice.getIndices(), twice.getAttribute('_ID'));
});

test('morph targets follow the weld and keep vertices apart where their deltas differ', async () => {
  const document = new Document();
  document.setLogger(new Recorder());
  // four triangles of a soup: corners 0/3 and 1/4 coincide; corner 5 coincides with 2 but moves
  // differently in the morph target
  const positions = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1e-7]);
  const deltas = new Float32Array([0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 2]);
  const target = document.createPrimitiveTarget().setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(deltas));
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(positions))
    .addTarget(target);
  document.createMesh().addPrimitive(primitive).setWeights([0]);
  const report = weldPrimitive(primitive, { radius: 1e-4 });
  assert.deepEqual(report.vertices, [6, 4]);
  assert.equal(target.getAttribute('POSITION').getCount(), 4);
  assert.deepEqual(Array.from(target.getAttribute('POSITION').getArray()), [0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 2]);
  assert.deepEqual(Array.from(primitive.getIndices().getArray()), [0, 1, 2, 0, 1, 3]);
});

test('quantized and normalized accessors are compared as the shader sees them and written back in their type', async () => {
  const document = new Document();
  document.setLogger(new Recorder());
  document.createExtension(KHRMeshQuantization).setRequired(true);
  // Int16 positions (not normalized), Int8 normalized normals one step apart, Uint16 normalized UVs
  const positions = new Int16Array([0, 0, 0, 100, 0, 0, 0, 100, 0, 0, 0, 0, 100, 0, 0, 0, 100, 0]);
  const normals = new Int8Array([0, 0, 127, 0, 0, 127, 0, 0, 127, 0, 1, 127, 0, 0, 127, 0, 0, 127]);
  const uvs = new Uint16Array([0, 0, 65535, 0, 0, 65535, 0, 0, 65535, 0, 0, 65535]);
  const make = () =>
    document
      .createPrimitive()
      .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(positions.slice()))
      .setAttribute('NORMAL', document.createAccessor().setType('VEC3').setArray(normals.slice()).setNormalized(true))
      .setAttribute('TEXCOORD_0', document.createAccessor().setType('VEC2').setArray(uvs.slice()).setNormalized(true));
  const loose = make();
  const strict = make();
  document.createMesh().addPrimitive(loose).addPrimitive(strict);
  // one Int8 step of the normal is 1/127 = 0.0079: within 0.05 (the default), not within 0.001
  assert.deepEqual(weldPrimitive(loose, { radius: 0.5 }).vertices, [6, 3]);
  assert.deepEqual(weldPrimitive(strict, { radius: 0.5, tolerances: { NORMAL: 0.001 } }).vertices, [6, 4]);
  for (const p of [loose, strict]) {
    assert.ok(p.getAttribute('POSITION').getArray() instanceof Int16Array);
    assert.ok(p.getAttribute('NORMAL').getArray() instanceof Int8Array);
    assert.equal(p.getAttribute('NORMAL').getNormalized(), true);
    assert.ok(p.getAttribute('TEXCOORD_0').getArray() instanceof Uint16Array);
  }
  // and a radius of 100 units in Int16 space merges corners 100 apart
  const coarse = make();
  document.getRoot().listMeshes()[0].addPrimitive(coarse);
  assert.equal(weldPrimitive(coarse, { radius: 100, tolerances: { NORMAL: Infinity, TEXCOORD_0: Infinity } }).disposed, true);
});

test('indices come out as Uint32 only when the vertices do not fit Uint16', async () => {
  const document = new Document();
  document.setLogger(new Recorder());
  const n = 70000 * 3; // 70,000 separate triangles
  const positions = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) positions.set([i, (i % 3) * 0.5, 0], 3 * i);
  const primitive = document.createPrimitive().setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(positions));
  document.createMesh().addPrimitive(primitive);
  weldPrimitive(primitive, { radius: 0 });
  assert.ok(primitive.getIndices().getArray() instanceof Uint32Array);
  assert.equal(primitive.getIndices().getCount(), n);
});

test('LINES keep their pairs, strips, loops and fans are converted, with a logged reason', async () => {
  const document = new Document();
  const recorder = new Recorder();
  document.setLogger(recorder);
  const square = new Float32Array([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1e-7, 0, 0]);
  const make = (mode, indices) => {
    const p = document.createPrimitive().setMode(mode).setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(square.slice()));
    if (indices) p.setIndices(document.createAccessor().setType('SCALAR').setArray(Uint16Array.from(indices)));
    return p;
  };
  const lines = make(Primitive.Mode.LINES, [0, 1, 1, 2, 2, 3, 3, 4, 0, 4]);
  const loop = make(Primitive.Mode.LINE_LOOP, [0, 1, 2, 3]);
  const strip = make(Primitive.Mode.TRIANGLE_STRIP, [4, 1, 3, 2]);
  const fan = make(Primitive.Mode.TRIANGLE_FAN, [4, 1, 2, 3]);
  const mesh = document.createMesh('modes');
  for (const p of [lines, loop, strip, fan]) mesh.addPrimitive(p);
  await document.transform(weld({ radius: 1e-5 }));
  // vertex 4 welds into 0: the line 0-4 collapses and is removed, the square's 4 sides remain
  assert.equal(lines.getMode(), Primitive.Mode.LINES);
  assert.deepEqual(Array.from(lines.getIndices().getArray()), [0, 1, 1, 2, 2, 3, 3, 0]);
  assert.equal(loop.getMode(), Primitive.Mode.LINES);
  assert.deepEqual(Array.from(loop.getIndices().getArray()), [0, 1, 1, 2, 2, 3, 3, 0]);
  assert.equal(strip.getMode(), Primitive.Mode.TRIANGLES);
  assert.deepEqual(Array.from(strip.getIndices().getArray()), [0, 1, 2, 1, 3, 2]); // triangle 1 of a strip is v1, v3, v2
  assert.equal(fan.getMode(), Primitive.Mode.TRIANGLES);
  assert.deepEqual(Array.from(fan.getIndices().getArray()), [0, 1, 2, 1, 3, 2]); // triangle i of a fan is v(i+1), v(i+2), v0
  const messages = recorder.lines.map(([, text]) => text);
  for (const text of [
    "meshweld: mesh 'modes' primitive 1: LINE_LOOP converted to LINES",
    "meshweld: mesh 'modes' primitive 2: TRIANGLE_STRIP converted to TRIANGLES",
    "meshweld: mesh 'modes' primitive 3: TRIANGLE_FAN converted to TRIANGLES",
    "meshweld: mesh 'modes': vertices 20 → 16, triangles 4 → 4, lines 9 → 8, 1 degenerate removed",
  ]) {
    assert.ok(messages.includes(text), `${text} not in ${JSON.stringify(messages)}`);
  }
});

// The glTF specification's elements of a mode: [mode drawn, flat list of vertex indices].
function modelDrawList(mode, indices, vertexCount) {
  const n = indices ? indices.length : vertexCount;
  const at = (i) => (indices ? indices[i] : i);
  const M = Primitive.Mode;
  const list = [];
  if (mode === M.TRIANGLES || mode === M.LINES || mode === M.POINTS) {
    for (let i = 0; i < n; i++) list.push(at(i));
    return [mode, list];
  }
  if (mode === M.TRIANGLE_STRIP || mode === M.TRIANGLE_FAN) {
    for (let i = 0; i + 2 < n; i++) {
      if (mode === M.TRIANGLE_STRIP) list.push(at(i), at(i + 1 + (i % 2)), at(i + 2 - (i % 2)));
      else list.push(at(i + 1), at(i + 2), at(0));
    }
    return [M.TRIANGLES, list];
  }
  const segments = n < 2 ? 0 : mode === M.LINE_LOOP ? n : n - 1;
  for (let i = 0; i < segments; i++) list.push(at(i), at((i + 1) % n));
  return [M.LINES, list];
}

/**
 * What the transform must make of a primitive, modelled plainly: the vertices drawn in order of
 * first use, welded (the library's weldMesh decides which vertices merge, tested on its own), each
 * cluster's first vertex kept in its accessor's type, lines and points rebuilt here.
 */
function modelWeld({ mode, positions, normalized, normals, indices, radius, removeDegenerate, removeDuplicates }) {
  const vertexCount = positions.length / 3;
  const [drawn, list] = modelDrawList(mode, indices, vertexCount);
  const local = new Map();
  const used = [];
  for (const v of list) if (!local.has(v)) local.set(v, used.push(v) - 1);
  const decode = (v) => (normalized ? Math.max(v / 32767, -1) : v);
  const points = Float32Array.from(used.flatMap((v) => [0, 1, 2].map((c) => decode(positions[3 * v + c]))));
  const attributes = normals ? { NORMAL: { array: Float32Array.from(used.flatMap((v) => [...normals.subarray(3 * v, 3 * v + 3)])), itemSize: 3 } } : {};
  const tolerances = normals ? { NORMAL: DEFAULT_TOLERANCES.NORMAL } : undefined;
  const elements = list.map((v) => local.get(v));
  const options = { radius, attributes, ...(tolerances ? { tolerances } : {}), removeDegenerate, removeDuplicates };
  const { remap, vertexCount: outputs } = weldMesh(points, null, { ...options, primitive: 'points', removeDuplicates: false });
  const keep = [];
  for (let i = 0; i < remap.length; i++) if (keep[remap[i]] === undefined) keep[remap[i]] = used[i];
  let out = null;
  const M = Primitive.Mode;
  if (drawn === M.TRIANGLES) {
    out = Array.from(weldMesh(points, Uint32Array.from(elements), options).indices);
  } else if (drawn === M.LINES) {
    out = [];
    const seen = new Set();
    for (let i = 0; i < elements.length; i += 2) {
      const [a, b] = [remap[elements[i]], remap[elements[i + 1]]];
      if (a === b && removeDegenerate) continue;
      const id = `${Math.min(a, b)} ${Math.max(a, b)}`;
      if (removeDuplicates && seen.has(id)) continue;
      seen.add(id);
      out.push(a, b);
    }
  }
  const per = drawn === M.TRIANGLES ? 3 : drawn === M.LINES ? 2 : 1;
  return {
    mode: drawn,
    keep,
    out,
    outputs,
    elements: [list.length / per, out === null ? keep.length : out.length / per],
  };
}

test('any small primitive welds as a plain model of the transform says (fast-check)', () => {
  const runs = Number(process.env.MESHWELD_PROPERTY_RUNS ?? 100);
  const coordinate = fc.integer({ min: -4, max: 4 });
  const primitiveCase = fc
    .record({
      mode: fc.integer({ min: 0, max: 6 }),
      vertexCount: fc.integer({ min: 0, max: 12 }),
      normalized: fc.boolean(),
      withNormals: fc.boolean(),
      indexed: fc.boolean(),
      radius: fc.constantFrom(0, 0.1, 0.3, 0.6),
      removeDegenerate: fc.boolean(),
      removeDuplicates: fc.boolean(),
      seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
    })
    .chain((c) =>
      fc.record({
        c: fc.constant(c),
        coordinates: fc.array(coordinate, { minLength: 3 * c.vertexCount, maxLength: 3 * c.vertexCount }),
        normalBits: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: c.vertexCount, maxLength: c.vertexCount }),
        indices: c.indexed && c.vertexCount > 0
          ? fc.array(fc.integer({ min: 0, max: c.vertexCount - 1 }), { maxLength: 18 })
          : fc.constant(null),
      }),
    );
  fc.assert(
    fc.property(primitiveCase, ({ c, coordinates, normalBits, indices }) => {
      // TRIANGLES and LINES need whole elements, else the primitive is skipped as it is
      const whole = (indices ? indices.length : c.vertexCount) % ({ 1: 2, 4: 3 }[c.mode] ?? 1) === 0;
      // positions on a grid of 0.25 (as the shader sees them), Int16 normalized or float32
      const positions = c.normalized
        ? Int16Array.from(coordinates, (v) => Math.round(v * 0.25 * 32767 / 1.25))
        : Float32Array.from(coordinates, (v) => v * 0.25);
      const normals = c.withNormals ? Float32Array.from(normalBits.flatMap((b) => [0, b === 2 ? 0.03 : 0, b === 1 ? -1 : 1])) : null;
      const document = new Document();
      document.setLogger(new Recorder());
      const primitive = document
        .createPrimitive()
        .setMode(c.mode)
        .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(positions.slice()).setNormalized(c.normalized));
      if (normals) primitive.setAttribute('NORMAL', document.createAccessor().setType('VEC3').setArray(normals.slice()));
      if (indices) primitive.setIndices(document.createAccessor().setType('SCALAR').setArray(Uint16Array.from(indices)));
      document.createMesh('case').addPrimitive(primitive);
      const report = weldPrimitive(primitive, { radius: c.radius, removeDegenerate: c.removeDegenerate, removeDuplicates: c.removeDuplicates });
      if (!whole) {
        assert.match(report.skipped, /not a multiple of/);
        assert.deepEqual(Array.from(primitive.getAttribute('POSITION').getArray()), Array.from(positions));
        return;
      }
      const model = modelWeld({ mode: c.mode, positions, normalized: c.normalized, normals, indices, ...c });
      assert.deepEqual(report.vertices, [c.vertexCount, model.keep.length]);
      assert.deepEqual(report.elements, model.elements);
      assert.equal(report.disposed, model.elements[1] === 0);
      if (report.disposed) return;
      assert.equal(primitive.getMode(), model.mode);
      const kept = (array) => model.keep.flatMap((v) => [...array.subarray(3 * v, 3 * v + 3)]);
      const position = primitive.getAttribute('POSITION');
      assert.equal(position.getArray().constructor, positions.constructor);
      assert.equal(position.getNormalized(), c.normalized);
      assert.deepEqual(Array.from(position.getArray()), kept(positions));
      if (normals) assert.deepEqual(Array.from(primitive.getAttribute('NORMAL').getArray()), kept(normals));
      if (model.out === null) {
        assert.equal(primitive.getIndices(), null);
      } else {
        assert.ok(primitive.getIndices().getArray() instanceof Uint16Array);
        assert.deepEqual(Array.from(primitive.getIndices().getArray()), model.out);
      }
    }),
    { numRuns: runs, size: 'max' },
  );
});

test('primitives that cannot be welded are skipped with a logged reason', async () => {
  const document = new Document();
  const recorder = new Recorder();
  document.setLogger(recorder);
  const noPosition = document.createPrimitive().setAttribute('NORMAL', document.createAccessor().setType('VEC3').setArray(new Float32Array(9)));
  const badIndex = document
    .createPrimitive()
    .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(new Float32Array(9)))
    .setIndices(document.createAccessor().setType('SCALAR').setArray(new Uint16Array([0, 1, 7])));
  const floatIndex = document
    .createPrimitive()
    .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(new Float32Array(9)))
    .setIndices(document.createAccessor().setType('SCALAR').setArray(new Float32Array([2, 1.5, 0])));
  const noIndexData = document
    .createPrimitive()
    .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(new Float32Array(9)))
    .setIndices(document.createAccessor().setType('SCALAR'));
  // 255 in 8-bit indices restarts a strip where the renderer enables primitive restart (WebGL 2 does)
  const restart = document
    .createPrimitive()
    .setMode(Primitive.Mode.TRIANGLE_STRIP)
    .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(new Float32Array(3 * 300).map((_, i) => i)))
    .setIndices(document.createAccessor().setType('SCALAR').setArray(new Uint8Array([0, 1, 2, 255, 3, 4, 5])));
  // first a triangle that collapses and goes: the primitives after it keep the numbers they had
  const collapses = document.createPrimitive()
    .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(new Float32Array([0, 0, 0, 1e-9, 0, 0, 0, 1e-9, 0])));
  document.createMesh('odd').addPrimitive(collapses).addPrimitive(noPosition).addPrimitive(badIndex).addPrimitive(floatIndex)
    .addPrimitive(noIndexData).addPrimitive(restart);
  await document.transform(weld({ radius: 1e-6 }));
  const warnings = recorder.lines.filter(([level]) => level === 'warn').map(([, text]) => text);
  assert.deepEqual(warnings, [
    "meshweld: mesh 'odd' primitive 1 skipped: it has no POSITION attribute",
    "meshweld: mesh 'odd' primitive 2 skipped: index 2 is 7, beyond its 3 vertices",
    "meshweld: mesh 'odd' primitive 3 skipped: its indices are a Float32Array, not unsigned integers",
    "meshweld: mesh 'odd' primitive 4 skipped: its indices have no data",
    "meshweld: mesh 'odd' primitive 5 skipped: index 3 is 255, the primitive restart value of its type, which glTF forbids in indices",
  ]);
  assert.deepEqual(Array.from(badIndex.getIndices().getArray()), [0, 1, 7], 'a skipped primitive is left as it was');
});

test('onPrimitive reports each primitive as weldPrimitive would, and its promise is awaited', async () => {
  const document = new Document();
  document.setLogger(new Recorder());
  const buffer = document.createBuffer();
  const soup = new THREE.BoxGeometry().toNonIndexed();
  const position = document.createAccessor().setType('VEC3').setArray(soup.getAttribute('position').array.slice()).setBuffer(buffer);
  const mesh = document.createMesh('box')
    .addPrimitive(document.createPrimitive().setAttribute('POSITION', position))
    .addPrimitive(document.createPrimitive()); // no POSITION: skipped
  const reports = [];
  let pending = 0;
  await document.transform(weld({
    radius: 1e-4,
    onPrimitive: async (report, primitive) => {
      assert.equal(pending, 0, 'the promise of the primitive before was awaited');
      pending++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      pending--;
      reports.push([report, mesh.listPrimitives().includes(primitive)]);
    },
  }));
  assert.equal(reports.length, 2);
  assert.deepEqual(reports[0][0].vertices, [36, 8]);
  assert.deepEqual(reports[0][0].elements, [12, 12]);
  assert.equal(reports[0][0].radius, 1e-4);
  assert.equal(reports[0][1], true);
  assert.deepEqual(reports[1][0], { skipped: 'it has no POSITION attribute' });
  assert.throws(() => weld({ onPrimitive: 1 }), { name: 'TypeError', message: /^meshweld: weld: onPrimitive must be a function, got 1$/ });
  const primitive = mesh.listPrimitives()[0];
  assert.throws(() => weldPrimitive(primitive, { onPrimitive: () => {} }), { name: 'RangeError', message: /^meshweld: weldPrimitive: onPrimitive is an option of the weld\(\) transform/ });
});

test('a primitive whose triangles all collapse goes with its index and attributes: the file stays valid', async () => {
  const document = new Document();
  document.setLogger(new Recorder());
  const buffer = document.createBuffer();
  const scene = document.createScene();
  const accessor = (values) => document.createAccessor().setType('VEC3').setArray(new Float32Array(values)).setBuffer(buffer);
  const tiny = document.createPrimitive().setAttribute('POSITION', accessor([0, 0, 0, 1e-6, 0, 0, 0, 1e-6, 0]))
    .setIndices(document.createAccessor().setType('SCALAR').setArray(new Uint16Array([0, 1, 2])).setBuffer(buffer))
    .addTarget(document.createPrimitiveTarget().setAttribute('POSITION', accessor([0, 0, 0, 0, 0, 0, 0, 0, 0])));
  scene.addChild(document.createNode().setMesh(document.createMesh('big').addPrimitive(document.createPrimitive().setAttribute('POSITION', accessor([0, 0, 0, 1, 0, 0, 0, 1, 0])))));
  scene.addChild(document.createNode().setMesh(document.createMesh('tiny').addPrimitive(tiny)));
  await document.transform(weld({ radius: 1e-3 }));
  assert.deepEqual(document.getRoot().listMeshes().map((m) => m.getName()), ['big']);
  // what is left is the big triangle's: its POSITION and the index the weld gave it
  assert.deepEqual(document.getRoot().listAccessors().map((a) => [a.getType(), a.getCount(), a.listParents().some((p) => p.propertyType === 'Primitive')]),
    [['VEC3', 3, true], ['SCALAR', 3, true]], 'the collapsed primitive\'s index, position and target are gone');
  const io = new NodeIO();
  const back = await io.readBinary(await io.writeBinary(document));
  assert.equal(back.getRoot().listMeshes()[0].listPrimitives()[0].getAttribute('POSITION').getCount(), 3);
});

test('a mesh left with no primitive goes with what glTF allows only with a mesh; a primitive in two meshes takes both', async () => {
  const document = new Document();
  document.setLogger(new Recorder());
  const buffer = document.createBuffer();
  const accessor = (type, array) => document.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  // a skinned, morphed triangle that collapses, its node's weights animated
  const tiny = document.createPrimitive().setAttribute('POSITION', accessor('VEC3', new Float32Array([0, 0, 0, 1e-6, 0, 0, 0, 1e-6, 0])))
    .setAttribute('JOINTS_0', accessor('VEC4', new Uint8Array(12)))
    .setAttribute('WEIGHTS_0', accessor('VEC4', new Float32Array([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0])))
    .addTarget(document.createPrimitiveTarget().setAttribute('POSITION', accessor('VEC3', new Float32Array(9))));
  const joint = document.createNode('joint');
  const skin = document.createSkin().addJoint(joint).setInverseBindMatrices(accessor('MAT4', new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])));
  const node = document.createNode('skinned').setMesh(document.createMesh('tiny').addPrimitive(tiny).setWeights([0])).setSkin(skin).setWeights([0.5]);
  const sampler = document.createAnimationSampler().setInput(accessor('SCALAR', new Float32Array([0, 1]))).setOutput(accessor('SCALAR', new Float32Array([0, 1])));
  document.createAnimation('morph').addSampler(sampler)
    .addChannel(document.createAnimationChannel().setTargetNode(node).setTargetPath('weights').setSampler(sampler));
  // one collapsing primitive listed by two meshes, and a triangle that stays
  const shared = document.createPrimitive().setAttribute('POSITION', accessor('VEC3', new Float32Array([5, 0, 0, 5, 1e-6, 0, 5, 0, 1e-6])));
  document.createMesh('one').addPrimitive(shared);
  document.createMesh('two').addPrimitive(shared);
  const big = document.createMesh('big').addPrimitive(document.createPrimitive().setAttribute('POSITION', accessor('VEC3', new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]))));
  document.createScene().addChild(node).addChild(joint).addChild(document.createNode().setMesh(big));
  await document.transform(weld({ radius: 1e-3 }));
  assert.deepEqual(document.getRoot().listMeshes().map((m) => m.getName()), ['big']);
  assert.deepEqual([node.getMesh(), node.getSkin(), node.getWeights()], [null, null, []], 'skin and weights need a mesh');
  assert.deepEqual(document.getRoot().listAnimations(), [], 'the animation of the weights goes, with its sampler');
  assert.deepEqual(document.getRoot().listAccessors().filter((a) => a.listParents().every((p) => p.propertyType === 'Root')).map((a) => a.getType()),
    [], 'nothing is left unused (the skin keeps its inverse bind matrices)');
  const io = new NodeIO();
  const json = (await io.writeJSON(document)).json;
  assert.deepEqual(json.nodes.find((n) => n.name === 'skinned'), { name: 'skinned' });
  assert.equal(json.meshes.length, 1);
  assert.equal((await io.readJSON(await io.writeJSON(document))).getRoot().listMeshes().length, 1);
});

test('a rejected transform leaves no accessor unused; a replaced accessor keeps its extras', async () => {
  const document = new Document();
  document.setLogger(new Recorder());
  const buffer = document.createBuffer();
  const soup = [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1e-7, 1, 0, 0, 0, 1, 0];
  const shared = document.createAccessor('shared').setType('VEC3').setArray(new Float32Array(soup)).setBuffer(buffer).setExtras({ scanner: 7 });
  const points = document.createPrimitive().setAttribute('POSITION', shared).setMode(Primitive.Mode.POINTS);
  const triangles = document.createPrimitive().setAttribute('POSITION', shared);
  document.createMesh('points').addPrimitive(points);
  document.createMesh('triangles').addPrimitive(triangles);
  document.createMesh('bad').addPrimitive(document.createPrimitive().setAttribute('POSITION',
    document.createAccessor().setType('VEC3').setArray(new Float32Array([0, NaN, 0, 1, 0, 0, 0, 1, 0])).setBuffer(buffer)));
  await assert.rejects(document.transform(weld({ radius: 1e-4 })), /mesh 'bad' primitive 0: vertex 0 has a non-finite POSITION/);
  // the meshes before the bad one were welded (each into an accessor of its own, the extras copied)
  for (const primitive of [points, triangles]) {
    assert.equal(primitive.getAttribute('POSITION').getCount(), 3);
    assert.deepEqual(primitive.getAttribute('POSITION').getExtras(), { scanner: 7 });
  }
  assert.ok(shared.isDisposed(), 'the accessor they shared, used by nothing now, is gone');
  assert.deepEqual(document.getRoot().listAccessors().filter((a) => a.listParents().every((p) => p.propertyType === 'Root')), []);
});

test("relativeTo 'scene': a mesh no scene draws takes its own diagonal, with a warning", async () => {
  const document = new Document();
  const recorder = new Recorder();
  document.setLogger(recorder);
  const primitive = document.createPrimitive().setAttribute('POSITION', document.createAccessor().setType('VEC3')
    .setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0])).setBuffer(document.createBuffer()));
  document.createMesh('loose').addPrimitive(primitive);
  const reports = [];
  await document.transform(weld({ relative: 0.1, relativeTo: 'scene', onPrimitive: (report) => void reports.push(report) }));
  assert.ok(Math.abs(reports[0].radius - 0.1 * Math.SQRT2) < 1e-9, String(reports[0].radius));
  assert.deepEqual(reports[0].vertices, [6, 4]);
  assert.ok(recorder.lines.some(([level, text]) => level === 'warn' && text === "meshweld: mesh 'loose' is drawn by no scene: its radius is relative to its own diagonal"), JSON.stringify(recorder.lines));
  // the same arrays drawn by a mesh of a scene 100 wide, at scale 1, weld within the scene's radius:
  // the mesh no scene draws, before or after it, keeps its own
  for (const order of [['drawn', 'loose'], ['loose', 'drawn']]) {
    const document = new Document();
    document.setLogger(new Recorder());
    const buffer = document.createBuffer();
    const position = document.createAccessor().setType('VEC3').setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 0.01, 0, 0, 1, 0, 0, 0, 1, 0])).setBuffer(buffer);
    const meshes = Object.fromEntries(order.map((name) => [name, document.createMesh(name).addPrimitive(document.createPrimitive().setAttribute('POSITION', position))]));
    const ground = document.createMesh('ground').addPrimitive(document.createPrimitive().setAttribute('POSITION',
      document.createAccessor().setType('VEC3').setArray(new Float32Array([0, 0, 0, 100, 0, 0, 0, 0, 100])).setBuffer(buffer)));
    document.createScene().addChild(document.createNode().setMesh(meshes.drawn)).addChild(document.createNode().setMesh(ground));
    const radii = new Map();
    await document.transform(weld({ relative: 1e-3, relativeTo: 'scene', onPrimitive: (report, primitive) => void radii.set(primitive, report.radius) }));
    const radius = (name) => radii.get(meshes[name].listPrimitives()[0]);
    assert.ok(Math.abs(radius('drawn') / (1e-3 * Math.hypot(100, 1, 100)) - 1) < 1e-6, `${order}: ${radius('drawn')}`);
    assert.ok(Math.abs(radius('loose') / (1e-3 * Math.SQRT2) - 1) < 1e-6, `${order}: ${radius('loose')}`);
    assert.deepEqual(order.map((name) => meshes[name].listPrimitives()[0].getAttribute('POSITION').getCount()), order.map((name) => (name === 'drawn' ? 3 : 4)));
  }
});

test("relativeTo 'scene': one accessor drawn at two scales welds within each scale's radius, and node scales far from 1 keep theirs", async () => {
  const quiet = (d) => d.setLogger(new Logger(Logger.Verbosity.SILENT));
  // four triangles whose corners lie 0.01 apart, drawn at scale 1 and at scale 100: the world radius
  // (1e-4 of the scene's diagonal, about 0.042) merges the first mesh's corners, not the second's
  const positions = [];
  for (let t = 0; t < 4; t++) positions.push(t * 1.01, 0, 0, t * 1.01 + 1, 0, 0, t * 1.01, 1, 0);
  for (const share of [false, true]) {
    const document = quiet(new Document());
    const buffer = document.createBuffer();
    const position = document.createAccessor().setType('VEC3').setArray(new Float32Array(positions)).setBuffer(buffer);
    const small = document.createMesh('small').addPrimitive(document.createPrimitive().setAttribute('POSITION', position));
    const big = document.createMesh('big').addPrimitive(document.createPrimitive().setAttribute('POSITION', share ? position : position.clone()));
    document.createScene().addChild(document.createNode().setMesh(small)).addChild(document.createNode().setMesh(big).setScale([100, 100, 100]).setTranslation([0, 5, 0]));
    await document.transform(weld({ relativeTo: 'scene', relative: 1e-4 }));
    const counts = document.getRoot().listMeshes().map((m) => m.listPrimitives()[0].getAttribute('POSITION').getCount());
    assert.deepEqual(counts, [9, 12], share ? 'one accessor in both meshes' : 'an accessor each');
  }
  // a node scale of 1e160 or 1e-200: the radius in the mesh's units is the one at scale 1
  const radii = [1, 1e150, 1e160, 1e-200].map((scale) => {
    const document = quiet(new Document());
    const primitive = document.createPrimitive().setAttribute('POSITION', document.createAccessor().setType('VEC3')
      .setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0])).setBuffer(document.createBuffer()));
    document.createScene().addChild(document.createNode().setMesh(document.createMesh().addPrimitive(primitive)).setScale([scale, scale, scale]));
    const report = weldPrimitive(primitive, { relativeTo: 'scene', relative: 0.1 });
    assert.deepEqual(report.vertices, [6, 4], `scale ${scale}`);
    return report.radius;
  });
  for (const r of radii.slice(1)) assert.ok(Math.abs(r / radii[0] - 1) < 1e-12, `${r} against ${radii[0]}`);
});

test("relativeTo 'scene': a skinned mesh is measured through its joints, not its node (whose transform glTF ignores)", async () => {
  // a character 2 high, skinned to a joint that leaves it as it is, on a node scaled by 0.01 that
  // does not move it, beside a ground 100 wide; then the joint scaled by 3
  for (const jointScale of [1, 3]) {
    const document = new Document();
    document.setLogger(new Recorder());
    const buffer = document.createBuffer();
    const accessor = (type, array) => document.createAccessor().setType(type).setArray(array).setBuffer(buffer);
    const character = document.createPrimitive().setAttribute('POSITION', accessor('VEC3', new Float32Array([0, 0, 0, 1, 0, 0, 0, 2, 0, 0.02, 0, 0, 1, 0, 0, 0, 2, 0])))
      .setAttribute('JOINTS_0', accessor('VEC4', new Uint8Array(24)))
      .setAttribute('WEIGHTS_0', accessor('VEC4', new Float32Array(24).map((_, i) => (i % 4 === 0 ? 1 : 0))));
    const joint = document.createNode('joint').setScale([jointScale, jointScale, jointScale]);
    const skin = document.createSkin().addJoint(joint).setInverseBindMatrices(accessor('MAT4', new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])));
    const ground = document.createMesh('ground').addPrimitive(document.createPrimitive().setAttribute('POSITION', accessor('VEC3', new Float32Array([0, 0, 0, 100, 0, 0, 0, 0, 100]))));
    document.createScene().addChild(document.createNode().setMesh(document.createMesh('character').addPrimitive(character)).setSkin(skin).setScale([0.01, 0.01, 0.01]))
      .addChild(joint).addChild(document.createNode().setMesh(ground));
    const diagonal = sceneDiagonal(document);
    const box = [100, 2 * jointScale, 100]; // the ground's x and z, the character's height through its joint
    assert.ok(Math.abs(diagonal / Math.hypot(...box) - 1) < 1e-9, `joint scale ${jointScale}: diagonal ${diagonal}`);
    const report = weldPrimitive(character, { relative: 1e-4, relativeTo: 'scene' });
    // a world radius of about 0.014, in the character's units divided by the joint's stretch
    assert.ok(Math.abs(report.radius / (1e-4 * diagonal / jointScale) - 1) < 1e-6, `joint scale ${jointScale}: radius ${report.radius}`);
    // the two triangles share two corners; their third corners, 0.02 apart, stay apart (divided by
    // the node's 0.01 instead, the radius would be 1.4 and weld the whole character to a point)
    assert.deepEqual(report.vertices, [6, 4]);
  }
});

test("relativeTo 'scene' measures the scenes' diagonal and divides by the nodes' scale", async () => {
  const document = documentOf({ box: new THREE.BoxGeometry(1, 1, 1).toNonIndexed() }, { jitter: 1e-3 });
  const node = document.getRoot().listNodes()[0];
  node.setScale([100, 100, 100]);
  // scene diagonal 100√3 ≈ 173: 1e-5 of it is 1.7e-3 in world space, 1.7e-5 in the box's units
  const reportOf = (options) => {
    const copy = documentOf({ box: new THREE.BoxGeometry(1, 1, 1).toNonIndexed() }, { jitter: 1e-3 });
    copy.getRoot().listNodes()[0].setScale([100, 100, 100]);
    return weldPrimitive(copy.getRoot().listMeshes()[0].listPrimitives()[0], options);
  };
  const scene = reportOf({ relative: 1e-5, relativeTo: 'scene' });
  assert.ok(Math.abs(scene.radius / (Math.sqrt(3) * 1e-5) - 1) < 1e-2, String(scene.radius));
  assert.equal(reportOf({ relative: 1e-2, relativeTo: 'scene' }).vertices[1], 24);
  assert.ok(reportOf({ relative: 1e-2 }).radius > 0.0169 && reportOf({ relative: 1e-2 }).radius < 0.0175);
});

test("the scene's diagonal and each mesh's stretch are glTF-Transform getBounds' and the power iteration's, on any scene (fast-check)", () => {
  const runs = Number(process.env.MESHWELD_PROPERTY_RUNS ?? 100);
  const coordinate = fc.oneof({ weight: 12, arbitrary: fc.float({ min: -100, max: 100, noNaN: true }) }, fc.constantFrom(NaN, Infinity, -0, 3e38));
  const primitive = fc.record({
    kind: fc.constantFrom('float', 'float', 'int16', 'uint8', 'vec2'),
    values: fc.array(coordinate, { minLength: 3, maxLength: 24 }),
    indices: fc.option(fc.array(fc.nat(9), { maxLength: 12 })),
  });
  const trs = fc.record({
    translation: fc.tuple(coordinate, coordinate, coordinate).map((t) => t.map((v) => (Number.isFinite(v) ? v : 1))),
    scale: fc.tuple(...[0, 1, 2].map(() => fc.constantFrom(1, 2, -1, 0.5, 0, 1e-3, 7, 1e300))),
    rotation: fc.option(fc.tuple(...[0, 1, 2, 3].map(() => fc.float({ min: -1, max: 1, noNaN: true })))),
  });
  const scene = fc.record({
    meshes: fc.array(fc.array(primitive, { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 3 }),
    nodes: fc.array(fc.record({ trs, mesh: fc.option(fc.nat(2)), parent: fc.option(fc.nat(5)), scene: fc.nat(1) }), { minLength: 1, maxLength: 6 }),
  });
  const documentOf = ({ meshes, nodes }) => {
    const document = new Document();
    const buffer = document.createBuffer();
    const made = meshes.map((primitives) => {
      const mesh = document.createMesh();
      for (const { kind, values, indices } of primitives) {
        const size = kind === 'vec2' ? 2 : 3;
        const count = Math.floor(values.length / size);
        const array = kind === 'int16' ? Int16Array.from(values.slice(0, size * count), (v) => (Number.isFinite(v) ? Math.round(v * 300) : 7))
          : kind === 'uint8' ? Uint8Array.from(values.slice(0, size * count), (v) => (Number.isFinite(v) ? Math.abs(Math.round(v)) % 256 : 9))
          : Float32Array.from(values.slice(0, size * count));
        const position = document.createAccessor().setType(size === 2 ? 'VEC2' : 'VEC3').setArray(array).setBuffer(buffer).setNormalized(kind === 'int16' || kind === 'uint8');
        const made = document.createPrimitive().setAttribute('POSITION', position);
        if (indices) made.setIndices(document.createAccessor().setType('SCALAR').setArray(Uint32Array.from(indices)).setBuffer(buffer));
        mesh.addPrimitive(made);
      }
      return mesh;
    });
    const scenes = [document.createScene(), document.createScene()];
    const made2 = nodes.map(({ trs: { translation, scale, rotation }, mesh }) => {
      const node = document.createNode().setTranslation(translation).setScale(scale);
      const norm = rotation && Math.hypot(...rotation);
      if (norm > 1e-3) node.setRotation(rotation.map((v) => v / norm));
      if (mesh !== null && mesh < made.length) node.setMesh(made[mesh]);
      return node;
    });
    nodes.forEach(({ parent, scene: k }, i) => {
      if (parent !== null && parent < i) made2[parent].addChild(made2[i]); // a tree: parents come first
      else scenes[k].addChild(made2[i]);
    });
    return document;
  };
  // the models: glTF-Transform's own bounds of each scene, and the power iteration's 64 steps
  const boundsDiagonal = (document) => {
    const min = [Infinity, Infinity, Infinity];
    const max = [-Infinity, -Infinity, -Infinity];
    for (const scene of document.getRoot().listScenes()) {
      const box = getBounds(scene);
      for (let k = 0; k < 3; k++) min[k] = Math.min(min[k], box.min[k]), max[k] = Math.max(max[k], box.max[k]);
    }
    return Number.isFinite(min[0]) ? Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]) : 0;
  };
  // the 64 steps on the matrix brought near 1 by a power of two, always (each step scales exactly by
  // it, so where nothing overflows these are the bits of the steps on the matrix itself)
  const stretch = (m) => {
    const largest = Math.max(...[0, 1, 2, 4, 5, 6, 8, 9, 10].map((i) => Math.abs(m[i])));
    const k = largest > 0 && Number.isFinite(largest) ? Math.round(Math.log2(largest)) : 0;
    const half = [Math.ceil(k / 2), Math.floor(k / 2)];
    return steps(m.map((v) => v * 2 ** -half[0] * 2 ** -half[1])) * 2 ** half[0] * 2 ** half[1];
  };
  const steps = (m) => {
    let v = [1, 0.7, 0.3];
    let s = 0;
    for (let it = 0; it < 64; it++) {
      const w = [0, 1, 2].map((r) => m[r] * v[0] + m[4 + r] * v[1] + m[8 + r] * v[2]);
      const u = [0, 1, 2].map((c) => m[4 * c] * w[0] + m[4 * c + 1] * w[1] + m[4 * c + 2] * w[2]);
      const norm = Math.hypot(...u);
      if (!(norm > 0)) return 0;
      s = Math.sqrt(norm / Math.hypot(...v));
      v = u.map((x) => x / norm);
    }
    return s;
  };
  fc.assert(
    fc.property(scene, (description) => {
      const document = documentOf(description);
      const worlds = new Map();
      assert.equal(sceneDiagonal(document, worlds), boundsDiagonal(document));
      // the world matrices made top-down have getWorldMatrix's bits (-0 apart from +0)
      for (const node of document.getRoot().listNodes()) if (worlds.has(node)) assert.deepStrictEqual(worlds.get(node), node.getWorldMatrix());
      for (const mesh of document.getRoot().listMeshes()) {
        const largest = Math.max(0, ...mesh.listParents().filter((p) => p.propertyType === 'Node').map((node) => stretch(node.getWorldMatrix())));
        assert.equal(meshScale(mesh), largest > 0 ? largest : 1);
        assert.equal(meshScale(mesh, worlds), largest > 0 ? largest : 1);
      }
    }),
    { numRuns: runs, size: 'max' },
  );
});

test('a relative radius past the float32 range is the largest float32, as weldMesh makes it', () => {
  const points = new Float32Array([-3e38, -3e38, -3e38, 3e38, 3e38, 3e38, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]);
  const primitiveOf = () => {
    const document = new Document();
    const buffer = document.createBuffer();
    const primitive = document.createPrimitive().setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(points.slice()).setBuffer(buffer));
    document.createScene().addChild(document.createNode().setMesh(document.createMesh('far').addPrimitive(primitive)));
    return primitive;
  };
  const library = weldMesh(points, null, { relativeRadius: 1 });
  const report = weldPrimitive(primitiveOf(), { relative: 1 });
  assert.equal(report.radius, library.radius);
  assert.equal(report.radius, 3.4028234663852886e38);
  assert.deepEqual(report.vertices, [6, library.vertexCount]);
  assert.equal(weldPrimitive(primitiveOf(), { relative: 1, relativeTo: 'scene' }).radius, library.radius);
});

test('bad options throw, naming the function, the option and the value', () => {
  const document = new Document();
  const primitive = document.createPrimitive();
  const cases = [
    [() => weld({ radius: -1 }), /^meshweld: weld: radius must be a finite number >= 0, got -1$/],
    [() => weld({ radius: '1e-4' }), /^meshweld: weld: radius must be a finite number >= 0, got the string "1e-4"$/],
    [() => weld({ radius: 1, relative: 1 }), /^meshweld: weld: give radius .* or relative .*, not both$/],
    [() => weld({ tolerance: 1 }), /^meshweld: weld: unknown option 'tolerance'; the options are radius, relative/],
    [() => weld({ tolerances: { normal: 0.1 } }), /^meshweld: weld: tolerances: unknown attribute semantic 'normal'; use NORMAL/],
    [() => weld({ tolerances: { POSITION: 0.1 } }), /^meshweld: weld: tolerances: POSITION is welded within radius/],
    [() => weld({ tolerances: { NORMAL: NaN } }), /^meshweld: weld: tolerances.NORMAL must be a finite number >= 0, got NaN$/],
    [() => weld({ relativeTo: 'world' }), /^meshweld: weld: relativeTo must be 'primitive' or 'scene', got the string "world"$/],
    [() => weld({ method: 'hex' }), /^meshweld: weld: unknown method the string "hex"/],
    [() => weld({ removeDegenerate: 'yes' }), /^meshweld: weld: removeDegenerate must be a boolean, got the string "yes"$/],
    [() => weld(42), /^meshweld: weld: options must be a plain object, got 42$/],
    [() => weld(new Date(0)), /^meshweld: weld: options must be a plain object, got /],
    [() => weld({ tolerances: new Map([['NORMAL', 1]]) }), /^meshweld: weld: tolerances must be a plain object of glTF semantic to tolerance, got /],
    [() => weld({ tolerances: { TEXCOORD_00: 0.1 } }), /^meshweld: weld: tolerances: unknown attribute semantic 'TEXCOORD_00'/],
    [() => weld({ radius: 1, relativeTo: 'scene' }), /^meshweld: weld: relativeTo says whose diagonal relative is a fraction of: give it with relative, not with radius/],
    [() => weldPrimitive({}, { radius: 1 }), /^meshweld: weldPrimitive: needs a glTF-Transform Primitive, got an object$/],
    [() => weldPrimitive(primitive, { relative: Infinity }), /^meshweld: weldPrimitive: relative must be a finite number >= 0, got Infinity$/],
  ];
  for (const [call, message] of cases) assert.throws(call, { message });
  // when the transform is made, not when it runs: a radius that rounds to 0 or passes the float32
  // range; a value of the wrong type is a TypeError, one of the right type out of range a RangeError
  const made = [
    [() => weld({ radius: 1e-50 }), RangeError, /^meshweld: weld: radius 1e-50 rounds to 0 as a float32; use radius 0/],
    [() => weld({ radius: 1e39 }), RangeError, /^meshweld: weld: radius must be a finite number >= 0 within the float32 range, got 1e\+39$/],
    [() => weld({ relativeTo: 1 }), TypeError, /^meshweld: weld: relativeTo must be 'primitive' or 'scene', got 1$/],
    [() => weld({ method: 1 }), TypeError, /^meshweld: weld: unknown method 1/],
    [() => weld({ relativeTo: 'world' }), RangeError, /relativeTo/],
    // null is a value of the wrong type, not a request for the default
    [() => weld({ relativeTo: null }), TypeError, /^meshweld: weld: relativeTo must be 'primitive' or 'scene', got null$/],
    [() => weld({ removeDegenerate: null }), TypeError, /^meshweld: weld: removeDegenerate must be a boolean, got null$/],
    [() => weld({ removeDuplicates: null }), TypeError, /^meshweld: weld: removeDuplicates must be a boolean, got null$/],
    [() => weld({ method: null }), TypeError, /^meshweld: weld: unknown method null/],
    [() => weld({ tolerances: null }), TypeError, /^meshweld: weld: tolerances must be a plain object/],
    // a tolerance as a radius is: when the transform is made, in the float32 range, 0 or not rounding to it
    [() => weld({ tolerances: { NORMAL: 1e39 } }), RangeError, /^meshweld: weld: tolerances.NORMAL must be a finite number >= 0 within the float32 range, got 1e\+39$/],
    [() => weld({ tolerances: { NORMAL: 1e-50 } }), RangeError, /^meshweld: weld: tolerances.NORMAL 1e-50 rounds to 0 as a float32; use 0 to compare exactly$/],
  ];
  for (const [call, Type, message] of made) assert.throws(call, (e) => e instanceof Type && message.test(e.message));
});

test('non-finite values are reported with the mesh and primitive', async () => {
  const document = new Document();
  document.setLogger(new Recorder());
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(new Float32Array([0, 0, 0, 1, NaN, 0, 0, 1, 0])));
  document.createMesh('broken').addPrimitive(primitive);
  await assert.rejects(document.transform(weld({ radius: 1e-4 })), { name: 'RangeError', message: /^meshweld: weld: mesh 'broken' primitive 0: .*vertex 1 .*non-finite.*NaN/ });
});

test("a non-finite or too large value is named by its accessor's vertex, whatever order the indices draw in", async () => {
  const make = (positions, normals, uvs = new Array(10).fill(0)) => {
    const document = new Document();
    document.setLogger(new Recorder());
    const primitive = document
      .createPrimitive()
      .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(new Float32Array(positions)))
      .setAttribute('NORMAL', document.createAccessor().setType('VEC3').setArray(new Float32Array(normals)))
      .setAttribute('TEXCOORD_0', document.createAccessor().setType('VEC2').setArray(new Float32Array(uvs)))
      .setIndices(document.createAccessor().setType('SCALAR').setArray(new Uint16Array([4, 3, 0])));
    document.createMesh('drawn').addPrimitive(primitive);
    return document;
  };
  const up = [0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1];
  const corners = [0, 0, 0, 1, 0, 0, 0, 1, 0, 5, 5, 5, 2, 2, 2];
  const badPosition = corners.with(10, NaN); // vertex 3, drawn second
  await assert.rejects(make(badPosition, up).transform(weld({ radius: 1e-3 })), {
    name: 'RangeError',
    message: "meshweld: weld: mesh 'drawn' primitive 0: vertex 3 has a non-finite POSITION coordinate y = NaN",
  });
  const badNormal = up.with(12, Infinity); // vertex 4, drawn first
  await assert.rejects(make(corners, badNormal).transform(weld({ radius: 1e-3 })), {
    message: "meshweld: weld: mesh 'drawn' primitive 0: vertex 4 has a non-finite NORMAL component 0 = Infinity",
  });
  await assert.rejects(make(corners, up, new Array(10).fill(0).with(7, NaN)).transform(weld({ radius: 1e-3 })), {
    message: "meshweld: weld: mesh 'drawn' primitive 0: vertex 3 has a non-finite TEXCOORD_0 component 1 = NaN",
  });
  // so is a coordinate too large for the cells of the method asked for, by the transform alone
  const alone = { NORMAL: Infinity, TEXCOORD_0: Infinity }; // positions alone: the plain weld, by the method asked for
  await assert.rejects(make(corners.with(12, 1e30), up).transform(weld({ radius: 1e-3, method: 'grid-r', tolerances: alone })), {
    message: "meshweld: weld: mesh 'drawn' primitive 0: vertex 4 coordinate x = 1.0000000150474662e+30 is too large for the radius: " +
      "grid cell indices would overflow; use method 'kdtree' or 'auto', or a larger radius",
  });
  // a vertex nothing draws is not welded, and a value not compared is carried as it is
  const undrawn = make(corners.with(4, NaN), up);
  await undrawn.transform(weld({ radius: 1e-3 }));
  assert.equal(undrawn.getRoot().listAccessors().find((a) => a.getType() === 'VEC3').getCount(), 3);
  const carried = make(corners, badNormal);
  await carried.transform(weld({ radius: 1e-3, tolerances: { NORMAL: Infinity } }));
  assert.equal(carried.getRoot().listMeshes()[0].listPrimitives()[0].getAttribute('NORMAL').getArray()[0], Infinity);
});
