// The meshweld command's files (cli/formats.js) run as a subprocess: where a .gltf output's
// buffers and images go, how a failed write leaves the folder, which malformed or compressed
// inputs are refused and with what line, how STL and PLY files are told apart and read, what
// three's loaders print, and which triangles an STL output holds (the default scene, as drawn).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Document, NodeIO, Primitive } from '@gltf-transform/core';
import { EXTMeshGPUInstancing } from '@gltf-transform/extensions';
import * as THREE from 'three';
import { STLExporter } from 'three/examples/jsm/exporters/STLExporter.js';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { ready } from '../../js/index.js';
import { root, summary } from './helpers.js';
import { measure } from '../../cli/formats.js';

await ready;
const bin = join(root, 'cli', 'bin', 'meshweld.js');
const work = mkdtempSync(join(tmpdir(), 'meshweld-cli-files-'));
after(() => rmSync(work, { recursive: true, force: true }));
const at = (...names) => join(work, ...names);

function run(args) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: work, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}


const notes = (stdout) => stdout.split('\n').filter((line) => line.startsWith('note: ')).map((line) => line.slice(6));

/** Runs a command expected to fail, and checks its one line on stderr. */
function refused(args, line) {
  const r = run(args);
  assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
  assert.equal(r.stderr, `meshweld: ${line}\n`);
  assert.equal(r.stdout, '');
}

const arrayBuffer = (bytes) => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);

// A 1x1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** A box (8 corners, 12 triangles, closed, facing out) as a primitive of document. */
function boxPrimitive(document, buffer, offset = [0, 0, 0]) {
  const geometry = new THREE.BoxGeometry(1, 1, 1);
  const position = geometry.getAttribute('position');
  // BoxGeometry keeps each face's corners apart (24 vertices): weld them by position to 8.
  const keys = new Map();
  const points = [];
  const remap = [];
  for (let i = 0; i < position.count; i++) {
    const key = [position.getX(i), position.getY(i), position.getZ(i)].join();
    if (!keys.has(key)) {
      keys.set(key, points.length / 3);
      points.push(position.getX(i) + offset[0], position.getY(i) + offset[1], position.getZ(i) + offset[2]);
    }
    remap.push(keys.get(key));
  }
  const index = Uint16Array.from(geometry.index.array, (i) => remap[i]);
  return document
    .createPrimitive()
    .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(new Float32Array(points)).setBuffer(buffer))
    .setIndices(document.createAccessor().setType('SCALAR').setArray(index).setBuffer(buffer));
}

/** Signed volume of the triangles of an STL file: positive when they face out. */
function signedVolume(path) {
  const p = new STLLoader().parse(arrayBuffer(readFileSync(path))).getAttribute('position').array;
  let v = 0;
  for (let i = 0; i < p.length; i += 9) {
    v += (p[i] * (p[i + 4] * p[i + 8] - p[i + 5] * p[i + 7]) - p[i + 1] * (p[i + 3] * p[i + 8] - p[i + 5] * p[i + 6]) + p[i + 2] * (p[i + 3] * p[i + 7] - p[i + 4] * p[i + 6])) / 6;
  }
  return v;
}

const stlTriangles = (path) => new STLLoader().parse(arrayBuffer(readFileSync(path))).getAttribute('position').count / 3;

/** A GLB file of a JSON object and a binary chunk, made by hand (no NodeIO checks). */
function glb(json, binary = Buffer.alloc(0)) {
  const pad = (bytes, fill) => Buffer.concat([bytes, Buffer.alloc((4 - (bytes.length % 4)) % 4, fill)]);
  const text = pad(Buffer.from(JSON.stringify(json)), 0x20);
  const data = pad(Buffer.from(binary), 0);
  const chunk = (bytes, type) => {
    const head = Buffer.alloc(8);
    head.writeUInt32LE(bytes.length, 0);
    head.writeUInt32LE(type, 4);
    return Buffer.concat([head, bytes]);
  };
  const body = Buffer.concat([chunk(text, 0x4e4f534a), data.length ? chunk(data, 0x004e4942) : Buffer.alloc(0)]);
  const head = Buffer.alloc(12);
  head.writeUInt32LE(0x46546c67, 0);
  head.writeUInt32LE(2, 4);
  head.writeUInt32LE(12 + body.length, 8);
  return Buffer.concat([head, body]);
}

/** A box document: one mesh, drawn by one node of one scene. */
function boxDocument() {
  const document = new Document();
  const buffer = document.createBuffer();
  const mesh = document.createMesh('box').addPrimitive(boxPrimitive(document, buffer));
  document.createScene('main').addChild(document.createNode('box').setMesh(mesh));
  return document;
}

test('a .gltf output names its buffers and images after itself, beside it: the input\'s files are never overwritten', async () => {
  mkdirSync(at('clobber'));
  const document = boxDocument();
  document.getRoot().listBuffers()[0].setURI('model.bin');
  await new NodeIO().write(at('clobber', 'model.gltf'), document);
  const input = readFileSync(at('clobber', 'model.bin'));
  const r = run([join('clobber', 'model.gltf'), join('clobber', 'model-welded.gltf')]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(readFileSync(at('clobber', 'model.bin')), input, "the input's model.bin is as it was");
  assert.deepEqual(readdirSync(at('clobber')).sort(), ['model-welded.bin', 'model-welded.gltf', 'model.bin', 'model.gltf']);
  assert.equal(JSON.parse(readFileSync(at('clobber', 'model-welded.gltf'), 'utf8')).buffers[0].uri, 'model-welded.bin');
  const back = await new NodeIO().read(at('clobber', 'model-welded.gltf'));
  assert.equal(back.getRoot().listAccessors()[0].getCount(), 8);
});

test('a .gltf output holds its buffers and images flat in its own folder, whatever URIs the input had', async () => {
  const document = boxDocument();
  const buffer = document.getRoot().listBuffers()[0];
  buffer.setURI('../buffers/model.bin');
  const texture = document.createTexture('wood').setImage(PNG).setMimeType('image/png').setURI('textures/wood.png');
  const uv = document.createAccessor().setType('VEC2').setArray(new Float32Array(16)).setBuffer(buffer);
  document.getRoot().listMeshes()[0].listPrimitives()[0].setAttribute('TEXCOORD_0', uv).setMaterial(document.createMaterial().setBaseColorTexture(texture));
  mkdirSync(at('escape', 'model'), { recursive: true });
  await new NodeIO().write(at('escape', 'model', 'model.gltf'), document);
  assert.ok(existsSync(at('escape', 'buffers', 'model.bin')) && existsSync(at('escape', 'model', 'textures', 'wood.png')));
  mkdirSync(at('escape', 'out', 'deep'), { recursive: true });
  const r = run([join('escape', 'model', 'model.gltf'), join('escape', 'out', 'deep', 'w.gltf'), '--uv-tolerance', '0']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(readdirSync(at('escape', 'out', 'deep')).sort(), ['w.bin', 'w.gltf', 'w_wood.png']);
  assert.deepEqual(readdirSync(at('escape', 'out')), ['deep'], 'nothing is written outside the output folder');
  assert.deepEqual(readFileSync(at('escape', 'out', 'deep', 'w_wood.png')), PNG);
  const back = await new NodeIO().read(at('escape', 'out', 'deep', 'w.gltf'));
  assert.deepEqual(Buffer.from(back.getRoot().listTextures()[0].getImage()), PNG);
});

test('a .gltf output name with % and spaces round-trips through its URIs', async () => {
  await new NodeIO().write(at('plain.glb'), boxDocument());
  mkdirSync(at('percent'));
  const output = join('percent', '100% a b.gltf');
  const r = run(['plain.glb', output]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(readdirSync(at('percent')).sort(), ['100% a b.bin', '100% a b.gltf']);
  assert.equal(JSON.parse(readFileSync(at(output), 'utf8')).buffers[0].uri, '100%25%20a%20b.bin');
  const back = await new NodeIO().read(at(output));
  assert.equal(back.getRoot().listAccessors()[0].getCount(), 8);
});

test('a .gltf output whose buffer name is a directory fails before it writes anything, naming that path', async () => {
  await new NodeIO().write(at('part.glb'), boxDocument());
  mkdirSync(at('part', 'x.bin'), { recursive: true });
  refused(['part.glb', join('part', 'x.gltf')], `cannot write ${join('part', 'x.bin')}: it is a directory`);
  assert.deepEqual(readdirSync(at('part')), ['x.bin'], 'no x.gltf, no temporary file');
});

test('a glTF whose buffer, views or GLB chunks hold less than they declare is refused, named', async () => {
  mkdirSync(at('trunc'));
  await new NodeIO().write(at('trunc', 'model.gltf'), boxDocument());
  const gltf = join('trunc', 'model.gltf');
  const size = readFileSync(at('trunc', 'model.bin')).length; // 8 VEC3 floats and 36 uint16 indices
  assert.equal(size, 8 * 12 + 36 * 2);
  for (const short of [48, 100]) {
    truncateSync(at('trunc', 'model.bin'), short);
    refused([gltf, 'trunc.glb'], `${gltf} is not a valid GLTF file: buffer 0 (model.bin) holds ${short} bytes, its byteLength is ${size}`);
  }
  // A GLB whose JSON says more than its binary chunk holds, and one cut short.
  const whole = Buffer.from(await new NodeIO().writeBinary(boxDocument()));
  const jsonLength = whole.readUInt32LE(12);
  const json = JSON.parse(whole.subarray(20, 20 + jsonLength).toString());
  const binary = whole.subarray(20 + jsonLength + 8);
  writeFileSync(at('short-chunk.glb'), glb(json, binary.subarray(0, 100)));
  refused(['short-chunk.glb', 'trunc.glb'], `short-chunk.glb is not a valid GLB file: buffer 0 holds 100 bytes, its byteLength is ${size}`);
  writeFileSync(at('cut.glb'), whole.subarray(0, whole.length - 40));
  refused(['cut.glb', 'trunc.glb'], `cut.glb is not a valid GLB file: its header announces ${whole.length} bytes, the file has ${whole.length - 40}`);
  // A view past its buffer's end, and an accessor past its view's.
  const view = structuredClone(json);
  view.bufferViews[0].byteLength = size + 4;
  writeFileSync(at('long-view.glb'), glb(view, binary));
  refused(['long-view.glb', 'trunc.glb'], `long-view.glb is not a valid GLB file: buffer view 0 ends at byte ${(view.bufferViews[0].byteOffset ?? 0) + size + 4} of buffer 0, which holds ${binary.length} bytes`);
  const count = structuredClone(json);
  const accessor = count.accessors.findIndex((a) => a.type === 'VEC3');
  count.accessors[accessor].count = 9;
  writeFileSync(at('long-accessor.glb'), glb(count, binary));
  const r = run(['long-accessor.glb', 'trunc.glb']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, new RegExp(`^meshweld: long-accessor\\.glb is not a valid GLB file: accessor ${accessor} needs \\d+ bytes of buffer view \\d+, which holds \\d+\n$`));
  assert.ok(!existsSync(at('trunc.glb')));
});

test('a glTF that needs Draco or meshopt decoding is refused by name', () => {
  writeFileSync(at('draco.gltf'), JSON.stringify({
    asset: { version: '2.0' },
    extensionsUsed: ['KHR_draco_mesh_compression'],
    extensionsRequired: ['KHR_draco_mesh_compression'],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 }, extensions: { KHR_draco_mesh_compression: { bufferView: 0, attributes: { POSITION: 0 } } } }] }],
    accessors: [{ componentType: 5126, count: 3, type: 'VEC3', min: [0, 0, 0], max: [1, 1, 0] }],
    bufferViews: [{ buffer: 0, byteLength: 4 }],
    buffers: [{ byteLength: 4, uri: 'data:application/octet-stream;base64,AAAAAA==' }],
    scenes: [{ nodes: [0] }],
    nodes: [{ mesh: 0 }],
    scene: 0,
  }));
  refused(['draco.gltf', 'out.glb'], 'draco.gltf is not a valid GLTF file: it uses KHR_draco_mesh_compression (Draco-compressed meshes), which meshweld does not decode');
  writeFileSync(at('meshopt.glb'), glb({
    asset: { version: '2.0' },
    extensionsUsed: ['EXT_meshopt_compression'],
    extensionsRequired: ['EXT_meshopt_compression'],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 } }] }],
    accessors: [{ componentType: 5126, count: 3, type: 'VEC3', bufferView: 0, min: [0, 0, 0], max: [1, 1, 0] }],
    bufferViews: [{ buffer: 1, byteLength: 36, byteStride: 12, extensions: { EXT_meshopt_compression: { buffer: 0, byteLength: 8, mode: 'ATTRIBUTES', byteStride: 12, count: 3 } } }],
    buffers: [{ byteLength: 8 }, { byteLength: 36, extensions: { EXT_meshopt_compression: { fallback: true } } }],
    scenes: [{ nodes: [0] }],
    nodes: [{ mesh: 0 }],
  }, Buffer.alloc(8)));
  refused(['meshopt.glb', 'out.glb'], 'meshopt.glb is not a valid GLB file: it uses EXT_meshopt_compression (meshoptimizer-compressed buffers), which meshweld does not decode');
});

test('ASCII STL with a byte order mark, in capitals or after white space reads; a binary STL with a solid header is named by its size', () => {
  const facets = (solid, facet, vertex) => [
    `${solid} t`,
    ...[[[0, 0, 0], [1, 0, 0], [1, 1, 0]], [[0, 0, 0], [1, 1, 0], [0, 1, 0]]].flatMap((corners) => [
      ` ${facet} normal 0 0 1`, '  outer loop', ...corners.map((c) => `   ${vertex} ${c.join(' ')}`), '  endloop', ' endfacet',
    ]),
    `end${solid} t`,
    '',
  ].join('\n');
  writeFileSync(at('bom.stl'), `\uFEFF${facets('solid', 'facet', 'vertex')}`);
  writeFileSync(at('upper.stl'), facets('solid', 'facet', 'vertex').toUpperCase());
  writeFileSync(at('lead.stl'), `\n\n   \t    ${facets('solid', 'facet', 'vertex')}`);
  for (const file of ['bom.stl', 'upper.stl', 'lead.stl']) {
    const r = run([file, 'ascii-out.stl']);
    assert.equal(r.code, 0, `${file}: ${r.stderr}`);
    assert.deepEqual(summary(r.stdout), { vertices: [6, 4], triangles: [2, 2], 'open edges': [6, 4] }, file);
    assert.equal(stlTriangles(at('ascii-out.stl')), 2);
  }
  writeFileSync(at('solid-only.stl'), 'solid x\nendsolid x\n');
  refused(['solid-only.stl', 'out.glb'], 'solid-only.stl is not a valid STL file: it holds no triangles, lines or points');
  // three's binary STL, its header starting with 'solid', cut short
  const view = new STLExporter().parse(new THREE.Mesh(new THREE.BoxGeometry()), { binary: true });
  const bytes = Buffer.from(view.buffer, view.byteOffset, view.byteLength);
  bytes.write('solid box, binary', 0, 'latin1');
  writeFileSync(at('solid-binary.stl'), bytes);
  const whole = run(['solid-binary.stl', 'binary-out.stl']);
  assert.equal(whole.code, 0, whole.stderr);
  assert.deepEqual(summary(whole.stdout).triangles, [12, 12]);
  writeFileSync(at('solid-binary-cut.stl'), bytes.subarray(0, bytes.length - 30));
  refused(['solid-binary-cut.stl', 'out.glb'], `solid-binary-cut.stl is not a valid STL file: its header announces 12 triangles (${84 + 600} bytes), the file has ${84 + 570} bytes (it starts with 'solid' but is not text)`);
});

test('a PLY without faces stays a point cloud; a short or empty PLY, or a corner that is no vertex, is refused', async () => {
  const header = (vertices, face) => ['ply', 'format ascii 1.0', `element vertex ${vertices}`, 'property float x', 'property float y', 'property float z',
    ...(face === undefined ? [] : [`element face ${face}`, 'property list uchar int vertex_indices']), 'end_header', ''].join('\n');
  writeFileSync(at('cloud3.ply'), `${header(3)}0 0 0\n5 0 0\n0 5 0\n`);
  writeFileSync(at('cloud6.ply'), `${header(6, 0)}0 0 0\n5 0 0\n0 5 0\n0 0 5\n1 1 1\n2 2 2\n`);
  for (const file of ['cloud3.ply', 'cloud6.ply']) {
    const r = run([file, 'cloud.glb']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(summary(r.stdout).triangles, [0, 0], file);
    const back = await new NodeIO().read(at('cloud.glb'));
    const primitive = back.getRoot().listMeshes()[0].listPrimitives()[0];
    assert.equal(primitive.getMode(), Primitive.Mode.POINTS, file);
    assert.equal(primitive.getIndices(), null);
  }
  writeFileSync(at('short.ply'), `${header(4, 2)}0 0 0\n1 0 0\n`);
  refused(['short.ply', 'out.glb'], 'short.ply is not a valid PLY file: its header declares 4 vertex elements, the data holds 2');
  writeFileSync(at('short-faces.ply'), `${header(3, 2)}0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n3 0\n`);
  refused(['short-faces.ply', 'out.glb'], 'short-faces.ply is not a valid PLY file: its header declares 2 face elements, the data holds 1');
  // a corner that is not one of the vertices: three's loader reads text as 0 and -1 as 65,535
  for (const [face, said] of [['3 0 1 x', '"x"'], ['3 0 1 -1', '"-1"'], ['3 0 1 1.5', '"1.5"'], ['3 0 1 3', '3']]) {
    writeFileSync(at('bad-corner.ply'), `${header(3, 2)}0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n${face}\n`);
    refused(['bad-corner.ply', 'out.glb'], `bad-corner.ply is not a valid PLY file: corner 2 of face 1 is ${said}: expected a vertex index, a whole number from 0 to 2`);
  }
  const binary = Buffer.from(header(3, 1).replace('ascii', 'binary_little_endian'), 'latin1');
  const body = new DataView(new ArrayBuffer(36 + 13));
  [0, 0, 0, 1, 0, 0, 0, 1, 0].forEach((x, i) => body.setFloat32(4 * i, x, true));
  body.setUint8(36, 3);
  [0, 7, 1].forEach((i, k) => body.setInt32(37 + 4 * k, i, true));
  writeFileSync(at('bad-corner-binary.ply'), Buffer.concat([binary, Buffer.from(body.buffer)]));
  refused(['bad-corner-binary.ply', 'out.glb'], 'bad-corner-binary.ply is not a valid PLY file: corner 1 of face 0 is 7: expected a vertex index, a whole number from 0 to 2');
  writeFileSync(at('empty.ply'), '');
  refused(['empty.ply', 'out.glb'], 'empty.ply is not a valid PLY file: the file is empty');
  writeFileSync(at('not.ply'), 'hello\nworld\n');
  refused(['not.ply', 'out.glb'], "not.ply is not a valid PLY file: it does not start with a 'ply' line");
  assert.ok(!existsSync(at('out.glb')));
});

test('a PLY holds faces of any number of corners, in text or binary, and faces with their own colors', async () => {
  // a hexagon, a quad, a triangle and a face of 2 corners; three's loader reads 3 and 4 corners
  const points = [[0, 0, 0], [1, 0, 0], [0.5, 0.9, 0], [-0.5, 0.9, 0], [-1, 0, 0], [-0.5, -0.9, 0], [0.5, -0.9, 0], [3, 0, 0], [4, 0, 0], [4, 1, 0], [3, 1, 0]];
  const faces = [[1, 2, 3, 4, 5, 6], [7, 8, 9, 10], [0, 1, 2], [0, 4]];
  const header = (format, faceProperties = []) => ['ply', `format ${format} 1.0`, `element vertex ${points.length}`, 'property float x', 'property float y',
    'property float z', `element face ${faces.length}`, 'property list uchar int vertex_indices', ...faceProperties, 'end_header', ''].join('\n');
  writeFileSync(at('mixed.ply'), header('ascii') + [...points.map((p) => p.join(' ')), ...faces.map((f) => [f.length, ...f].join(' '))].join('\n') + '\n');
  for (const little of [true, false]) {
    const data = new DataView(new ArrayBuffer(points.length * 12 + faces.reduce((sum, f) => sum + 1 + 4 * f.length, 0)));
    let k = 0;
    for (const p of points) for (const x of p) data.setFloat32((k += 4) - 4, x, little);
    for (const f of faces) {
      data.setUint8(k++, f.length);
      for (const i of f) data.setInt32((k += 4) - 4, i, little);
    }
    const name = little ? 'mixed-le' : 'mixed-be';
    const bytes = Buffer.concat([Buffer.from(header(little ? 'binary_little_endian' : 'binary_big_endian'), 'latin1'), Buffer.from(data.buffer)]);
    writeFileSync(at(`${name}.ply`), bytes);
    writeFileSync(at(`${name}-cut.ply`), bytes.subarray(0, bytes.length - 3));
    refused([`${name}-cut.ply`, 'out.glb'], `${name}-cut.ply is not a valid PLY file: its header declares 4 face elements, the data holds 3`);
  }
  for (const file of ['mixed.ply', 'mixed-le.ply', 'mixed-be.ply']) {
    const r = run([file, 'mixed.glb']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(summary(r.stdout).triangles, [4 + 2 + 1, 7], file); // a face of n corners: n - 2 triangles
    assert.deepEqual(notes(r.stdout), [`${file}: 1 face of more than 4 corners split into triangles from their first corner`,
      `${file}: 1 face of fewer than 3 corners left out (they hold no triangle)`]);
    const back = await new NodeIO().read(at('mixed.glb'));
    const indices = Array.from(back.getRoot().listMeshes()[0].listPrimitives()[0].getIndices().getArray());
    // the hexagon, fanned from its first corner (vertices 1 to 6, numbered 0 to 5 by first appearance)
    assert.deepEqual(indices.slice(0, 12), [0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 4, 5], file);
  }
  // faces with their own colors: the loader's triangles, three corners each (a soup, not a cloud)
  writeFileSync(at('colors.ply'), header('ascii', ['property uchar red', 'property uchar green', 'property uchar blue']) +
    [...points.map((p) => p.join(' ')), ...faces.map((f) => [f.length, ...f, 200, 10, 10].join(' '))].join('\n') + '\n');
  const colors = run(['colors.ply', 'colors.glb']);
  assert.equal(colors.code, 0, colors.stderr);
  assert.deepEqual(summary(colors.stdout).triangles, [2 + 1, 3]);
  assert.deepEqual(notes(colors.stdout), ["colors.ply: 2 faces of fewer than 3 or more than 4 corners left out: three's loader reads the uvs and colors of faces of 3 and 4 corners only"]);
  const primitive = (await new NodeIO().read(at('colors.glb'))).getRoot().listMeshes()[0].listPrimitives()[0];
  assert.equal(primitive.getMode(), Primitive.Mode.TRIANGLES);
  const color = primitive.getAttribute('COLOR_0');
  assert.equal(color.getCount(), primitive.getAttribute('POSITION').getCount());
  // a face of its own color, which three's loader reads for 3 and 4 corners only: a cloud, uncolored
  writeFileSync(at('colored-hexagon.ply'), header('ascii', ['property uchar red', 'property uchar green', 'property uchar blue'])
    .replace(`element face ${faces.length}`, 'element face 1') + [...points.map((p) => p.join(' ')), '6 1 2 3 4 5 6 200 10 10'].join('\n') + '\n');
  const hexagon = run(['colored-hexagon.ply', 'hexagon.glb']);
  assert.equal(hexagon.code, 0, hexagon.stderr);
  assert.ok(notes(hexagon.stdout).includes('colored-hexagon.ply: its faces hold no triangle: its vertices are read as points'));
  const cloud = (await new NodeIO().read(at('hexagon.glb'))).getRoot().listMeshes()[0].listPrimitives()[0];
  assert.deepEqual([cloud.getMode(), cloud.getAttribute('COLOR_0')], [Primitive.Mode.POINTS, null]);
  // a triangle without the texcoord list the others have: refused, not written with uvs misplaced
  writeFileSync(at('uv-missing.ply'), ['ply', 'format ascii 1.0', 'element vertex 4', 'property float x', 'property float y', 'property float z',
    'element face 2', 'property list uchar int vertex_indices', 'property list uchar float texcoord', 'end_header',
    '0 0 0', '1 0 0', '0 1 0', '1 1 0', '3 0 1 2 6 0 0 1 0 0 1', '3 1 3 2 0', ''].join('\n'));
  refused(['uv-missing.ply', 'out.glb'], "uv-missing.ply is not a valid PLY file: three's loader read uv for 3 of its 6 corners (it reads a face's uvs from a texcoord list of 2 values a corner)");
});

test("three's loader messages become notes after the summary, and --quiet prints nothing", () => {
  writeFileSync(at('odd.obj'), 'v 0 0 0\nv 1 0 0\nv 0 1 0\ncstype bezier\nf 1 2 3\n');
  const r = run(['odd.obj', 'odd.glb']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.deepEqual(notes(r.stdout), ['odd.obj: THREE.OBJLoader: Unexpected line: "cstype bezier"']);
  const quiet = run(['odd.obj', 'odd.glb', '--quiet']);
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.deepEqual([quiet.stdout, quiet.stderr], ['', '']);
  // PLYLoader prints an unknown header line with console.log, on stdout
  writeFileSync(at('odd.ply'), 'ply\nformat ascii 1.0\nweird line\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n');
  const ply = run(['odd.ply', 'odd.glb', '-q']);
  assert.equal(ply.code, 0, ply.stderr);
  assert.deepEqual([ply.stdout, ply.stderr], ['', '']);
});

test('an STL output holds the default scene as drawn: mirrored nodes face out, shared meshes twice, with notes for what it leaves out', async () => {
  const io = new NodeIO().registerExtensions([EXTMeshGPUInstancing]);
  // a box drawn mirrored, and another drawn by two nodes
  const document = new Document();
  const buffer = document.createBuffer();
  const mirrored = document.createMesh('mirrored').addPrimitive(boxPrimitive(document, buffer));
  const shared = document.createMesh('shared').addPrimitive(boxPrimitive(document, buffer));
  const scene = document.createScene('main');
  scene.addChild(document.createNode('mirror').setMesh(mirrored).setScale([-1, 1, 1]));
  scene.addChild(document.createNode('a').setMesh(shared).setTranslation([3, 0, 0]));
  scene.addChild(document.createNode('b').setMesh(shared).setTranslation([6, 0, 0]));
  await io.write(at('drawn.glb'), document);
  const r = run(['drawn.glb', 'drawn.stl']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(summary(r.stdout).triangles, [24, 24]);
  assert.deepEqual(notes(r.stdout), ["the file holds 36 triangles, the meshes as the scene's nodes draw them (the summary counts each mesh once)"]);
  assert.equal(stlTriangles(at('drawn.stl')), 36);
  assert.ok(Math.abs(signedVolume(at('drawn.stl')) - 3) < 1e-5, `three boxes of volume 1 facing out: ${signedVolume(at('drawn.stl'))}`);

  // two scenes, the second the default, and a mesh in none
  const scenes = new Document();
  const b = scenes.createBuffer();
  const first = scenes.createScene('first');
  first.addChild(scenes.createNode('one').setMesh(scenes.createMesh('one').addPrimitive(boxPrimitive(scenes, b))));
  const second = scenes.createScene('second');
  second.addChild(scenes.createNode('two').setMesh(scenes.createMesh('two').addPrimitive(boxPrimitive(scenes, b, [5, 0, 0]))));
  scenes.getRoot().setDefaultScene(second);
  scenes.createMesh('orphan').addPrimitive(boxPrimitive(scenes, b, [9, 0, 0]));
  await io.write(at('scenes.glb'), scenes);
  const s = run(['scenes.glb', 'scenes.stl']);
  assert.equal(s.code, 0, s.stderr);
  assert.deepEqual(notes(s.stdout), [
    "1 other scene not written, the file holds the default scene 'second'; 1 mesh drawn only there not written",
    '1 mesh in no scene not written',
    "the file holds 12 triangles, the meshes as the scene's nodes draw them (the summary counts each mesh once)",
  ]);
  const x = new STLLoader().parse(arrayBuffer(readFileSync(at('scenes.stl')))).getAttribute('position').array.filter((_, i) => i % 3 === 0);
  assert.deepEqual([Math.min(...x), Math.max(...x)], [4.5, 5.5], 'the default scene\'s box only');

  // EXT_mesh_gpu_instancing
  const instanced = new Document();
  const ib = instanced.createBuffer();
  const extension = instanced.createExtension(EXTMeshGPUInstancing);
  const translations = instanced.createAccessor().setType('VEC3').setArray(new Float32Array([0, 0, 0, 2, 0, 0, 4, 0, 0])).setBuffer(ib);
  const node = instanced.createNode('many').setMesh(instanced.createMesh('box').addPrimitive(boxPrimitive(instanced, ib)));
  node.setExtension('EXT_mesh_gpu_instancing', extension.createInstancedMesh().setAttribute('TRANSLATION', translations));
  instanced.createScene().addChild(node);
  await io.write(at('instanced.glb'), instanced);
  const i = run(['instanced.glb', 'instanced.stl']);
  assert.equal(i.code, 0, i.stderr);
  assert.deepEqual(notes(i.stdout), ['1 node with EXT_mesh_gpu_instancing: each mesh written once, at its node, not at its instances']);
});

test('triangle strips and fans count n - 2 triangles, and their open edges', async () => {
  const document = new Document();
  const buffer = document.createBuffer();
  const positions = (array) => document.createAccessor().setType('VEC3').setArray(new Float32Array(array)).setBuffer(buffer);
  // a strip of 6 vertices (4 triangles, 3 inner edges) and a fan of 5 (3 triangles, 2 inner edges)
  const strip = document.createPrimitive().setMode(Primitive.Mode.TRIANGLE_STRIP).setAttribute('POSITION', positions([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 2, 0, 1, 2, 0]));
  const fan = document.createPrimitive().setMode(Primitive.Mode.TRIANGLE_FAN).setAttribute('POSITION', positions([5, 0, 0, 6, 0, 0, 6, 1, 0, 5.5, 1.5, 0, 5, 1, 0]));
  // an indexed strip of 4 vertices: 2 triangles, (0, 1, 2) and (1, 3, 2), 1 inner edge
  const indexed = document.createPrimitive().setMode(Primitive.Mode.TRIANGLE_STRIP).setAttribute('POSITION', positions([10, 0, 0, 11, 0, 0, 10, 1, 0, 11, 1, 0]))
    .setIndices(document.createAccessor().setType('SCALAR').setArray(new Uint16Array([0, 1, 2, 3])).setBuffer(buffer));
  document.createScene().addChild(document.createNode().setMesh(document.createMesh('strips').addPrimitive(strip).addPrimitive(fan).addPrimitive(indexed)));
  assert.deepEqual(measure(document), { vertices: 15, triangles: 4 + 3 + 2, open: 6 + 5 + 4 });
  await new NodeIO().write(at('strips.glb'), document);
  const r = run(['strips.glb', 'strips.glb', '--radius', '0']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(summary(r.stdout).triangles[0], 9);
  assert.deepEqual(summary(r.stdout)['open edges'][0], 15);
});
