// The meshweld command (cli/, the meshweld-cli workspace) run as a subprocess on real files: the
// stl-models STLs, a GLB made from three's geometries, an OBJ and a PLY written by three's
// exporters; every output is loaded back, and every error path checked for its exit code and line.
// The open-edge count of the summary is checked (fast-check) against a count of every edge.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import fc from 'fast-check';
import { Document, NodeIO } from '@gltf-transform/core';
import { KHRMeshQuantization } from '@gltf-transform/extensions';
import * as THREE from 'three';
import { OBJExporter } from 'three/examples/jsm/exporters/OBJExporter.js';
import { PLYExporter } from 'three/examples/jsm/exporters/PLYExporter.js';
import { OBJLoader } from 'three/examples/jsm/loaders/OBJLoader.js';
import { PLYLoader } from 'three/examples/jsm/loaders/PLYLoader.js';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { countClosePairs, ready } from '../../js/index.js';
import { mulberry32, root, summary } from './helpers.js';
import { measure } from '../../cli/formats.js';

await ready;
const bin = join(root, 'cli', 'bin', 'meshweld.js');
const models = join(root, 'node_modules', 'stl-models');
const work = mkdtempSync(join(tmpdir(), 'meshweld-cli-'));
after(() => rmSync(work, { recursive: true, force: true }));
const at = (name) => join(work, name);

function run(args, cwd = work) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}


const radiusOf = (stdout) => Number(/\(radius ([^)\s]+)\)/.exec(stdout)[1]);
const arrayBuffer = (bytes) => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);

async function glbCounts(path) {
  const document = await new NodeIO().read(path);
  let vertices = 0;
  let triangles = 0;
  const positions = [];
  for (const mesh of document.getRoot().listMeshes())
    for (const p of mesh.listPrimitives()) {
      vertices += p.getAttribute('POSITION').getCount();
      triangles += p.getIndices().getCount() / 3;
      positions.push(p.getAttribute('POSITION').getArray());
    }
  return { vertices, triangles, positions };
}

test('npx meshweld runs the workspace command from the repository root', () => {
  const r = spawnSync('npx', ['--no', '--', 'meshweld', '--version'], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), JSON.parse(readFileSync(join(root, 'cli', 'package.json'), 'utf8')).version);
  // the workspace's meshweld is this repository's root package, a link, never a download
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  assert.deepEqual(lock.packages['node_modules/meshweld'], { resolved: '', link: true });
  assert.deepEqual(lock.packages['node_modules/meshweld-cli'], { resolved: 'cli', link: true });
});

test('the bunny STL welds to GLB: the summary matches the file read back', async () => {
  const r = run([join(models, 'objects', 'bunny.bin.stl'), at('bunny.glb'), '--relative', '1e-5']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(summary(r.stdout), { vertices: [208353, 34834], triangles: [69451, 69451], 'open edges': [208353, 223] });
  assert.match(r.stdout, /^read \d+ ms, weld [\d.]+ m?s, write [\d.]+ m?s, total/m);
  const back = await glbCounts(at('bunny.glb'));
  assert.deepEqual([back.vertices, back.triangles], [34834, 69451]);
  assert.equal(countClosePairs(back.positions[0], { radius: radiusOf(r.stdout) }), 0);
  assert.deepEqual(readdirSync(work).filter((f) => f.includes('tmp')), [], 'no temporary file is left');
});

test('ASCII and binary STL in, STL out: the triangles read back with STLLoader', () => {
  for (const file of ['gearwheel.ascii.stl', 'gearwheel.bin.stl']) {
    const r = run([join(models, 'objects', file), at('gear.stl'), '--radius', '1e-4']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(summary(r.stdout), { vertices: [7332, 1222], triangles: [2444, 2444], 'open edges': [7332, 0] });
    const back = new STLLoader().parse(arrayBuffer(readFileSync(at('gear.stl'))));
    assert.equal(back.getAttribute('position').count, 3 * 2444);
  }
  const cube = run([join(models, 'polytopes', 'cube.ascii.stl'), at('cube.stl'), '-q']);
  assert.equal(cube.code, 0, cube.stderr);
  assert.equal(cube.stdout, '', '--quiet prints nothing');
});

test('a GLB made from three geometries, jittered by 1e-6, welds to glTF with its attributes', async () => {
  const document = new Document();
  const buffer = document.createBuffer();
  const scene = document.createScene();
  const random = mulberry32(7);
  const shapes = { box: new THREE.BoxGeometry(1, 2, 3, 2, 2, 2), knot: new THREE.TorusKnotGeometry(1, 0.4, 64, 8) };
  for (const [name, geometry] of Object.entries(shapes)) {
    const soup = geometry.toNonIndexed();
    const p = document.createPrimitive();
    for (const [key, semantic, type] of [['position', 'POSITION', 'VEC3'], ['normal', 'NORMAL', 'VEC3'], ['uv', 'TEXCOORD_0', 'VEC2']]) {
      const array = Float32Array.from(soup.getAttribute(key).array);
      if (key === 'position') for (let i = 0; i < array.length; i++) array[i] += (2 * random() - 1) * 1e-6;
      p.setAttribute(semantic, document.createAccessor().setType(type).setArray(array).setBuffer(buffer));
    }
    scene.addChild(document.createNode(name).setMesh(document.createMesh(name).addPrimitive(p)));
  }
  await new NodeIO().write(at('shapes.glb'), document);
  const r = run(['shapes.glb', 'shapes.gltf', '--radius', '1e-5']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(summary(r.stdout).vertices, [144 + 3072, 54 + 585]);
  assert.ok(existsSync(at('shapes.bin')), 'the .gltf has its .bin beside it');
  const back = await new NodeIO().read(at('shapes.gltf'));
  const primitive = back.getRoot().listMeshes()[0].listPrimitives()[0];
  assert.deepEqual(primitive.listSemantics().sort(), ['NORMAL', 'POSITION', 'TEXCOORD_0']);
  assert.equal(primitive.getIndices().getArray().constructor, Uint16Array);
  // a tight normal tolerance changes nothing on exact normals, a huge one merges the box's corners
  const loose = run(['shapes.glb', 'loose.glb', '--radius', '1e-5', '--normal-tolerance', '3', '--uv-tolerance', '3']);
  assert.equal(loose.code, 0, loose.stderr);
  assert.deepEqual(summary(loose.stdout).vertices, [144 + 3072, 26 + 512]);
});

/** Runs the command under a Node module hook that refuses every module whose name matches pattern. */
function refusing(name, pattern) {
  writeFileSync(at(`${name}-hooks.mjs`), `export async function resolve(specifier, context, next) {
  if (${pattern}.test(specifier)) throw new Error('refused: ' + specifier);
  return next(specifier, context);
}
`);
  writeFileSync(at(`${name}.mjs`), `import { register } from 'node:module';\nregister('./${name}-hooks.mjs', import.meta.url);\n`);
  return (args) => {
    const r = spawnSync(process.execPath, ['--import', at(`${name}.mjs`), bin, ...args], { cwd: work, encoding: 'utf8' });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
}

test('--version, --help and a mistake in the options load neither glTF-Transform nor three.js', () => {
  const hooked = refusing('no-gltf', /^(@gltf-transform\/|three$|three\/)/);
  const version = hooked(['--version']);
  assert.equal(version.code, 0, version.stderr);
  assert.equal(version.stdout.trim(), JSON.parse(readFileSync(join(root, 'cli', 'package.json'), 'utf8')).version);
  const help = hooked(['--help']);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /--method <m> +auto, naive, grid-r, grid-2r, bcc, kdtree, grid \(default auto\)/);
  const mistake = hooked(['a.stl', 'b.glb', '--radius=-1']);
  assert.equal(mistake.code, 2);
  assert.match(mistake.stderr, /--radius must be a finite decimal number >= 0/);
  // the hook works: a weld needs glTF-Transform
  const weld = hooked([join(models, 'objects', 'gearwheel.bin.stl'), 'gear-refused.glb']);
  assert.equal(weld.code, 1);
  assert.match(weld.stderr, /refused: @gltf-transform\/core/);
  // a wrong method is still a usage error, checked once the module is loaded
  const method = run(['a.stl', 'b.glb', '--method', 'hex']);
  assert.equal(method.code, 2);
  assert.match(method.stderr, /--method must be one of auto, naive, grid-r, grid-2r, bcc, kdtree, grid, got "hex"/);
});

test('three.js loads only for STL, OBJ and PLY: a glTF weld does without it', () => {
  const hooked = refusing('no-three', /^three($|\/)/);
  const gear = join(models, 'objects', 'gearwheel.bin.stl');
  const stl = hooked([gear, 'gear-hooked.glb']);
  assert.equal(stl.code, 1, 'the hook refuses three.js, which an STL needs');
  assert.match(stl.stderr, /refused: three/);
  assert.equal(run([gear, 'gear-plain.glb']).code, 0);
  for (const output of ['gear-hooked.glb', 'gear-hooked.gltf']) {
    const r = hooked(['gear-plain.glb', output]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(summary(r.stdout).vertices, [1222, 1222]);
  }
});

test('an OBJ and a PLY written by three exporters weld, and read back with three loaders', () => {
  const soup = new THREE.TorusKnotGeometry(1, 0.4, 64, 8).toNonIndexed();
  soup.deleteAttribute('uv');
  soup.deleteAttribute('normal');
  const mesh = new THREE.Mesh(soup);
  writeFileSync(at('knot.obj'), new OBJExporter().parse(mesh));
  writeFileSync(at('knot.ply'), Buffer.from(new PLYExporter().parse(mesh, null, { binary: true })));

  const obj = run(['knot.obj', 'welded.obj']);
  assert.equal(obj.code, 0, obj.stderr);
  assert.deepEqual(summary(obj.stdout), { vertices: [3072, 512], triangles: [1024, 1024], 'open edges': [3072, 0] });
  const text = readFileSync(at('welded.obj'), 'utf8');
  assert.equal(text.match(/^v /gm).length, 512);
  assert.equal(text.match(/^f /gm).length, 1024);
  assert.equal(new OBJLoader().parse(text).children[0].geometry.getAttribute('position').count, 3 * 1024);

  const ply = run(['knot.ply', 'welded.ply']);
  assert.equal(ply.code, 0, ply.stderr);
  assert.deepEqual(summary(ply.stdout).vertices, [3072, 512]);
  const back = new PLYLoader().parse(arrayBuffer(readFileSync(at('welded.ply'))));
  assert.equal(back.getAttribute('position').count, 512);
  assert.equal(back.index.count, 3 * 1024);
});

test('a quantized GLB (normalized integers) written as PLY reads back as the values a shader sees, in world space', async () => {
  const document = new Document();
  document.createExtension(KHRMeshQuantization).setRequired(true);
  const buffer = document.createBuffer();
  const positions = new Int16Array([-32768, 0, 0, 32767, 0, 0, 0, 16384, 0, 0, 0, -16384, 100, 200, 300, -32767, 5, 7]);
  const normals = new Int8Array([0, 0, 127, 0, 0, 127, 0, 0, 127, 0, -128, 0, 0, -127, 0, 0, -127, 0]);
  const accessor = (type, array) => document.createAccessor().setType(type).setArray(array).setNormalized(true).setBuffer(buffer);
  const primitive = document.createPrimitive().setAttribute('POSITION', accessor('VEC3', positions)).setAttribute('NORMAL', accessor('VEC3', normals));
  const node = document.createNode().setMesh(document.createMesh('q').addPrimitive(primitive)).setScale([2, 2, 2]);
  document.createScene().addChild(node);
  await new NodeIO().registerExtensions([KHRMeshQuantization]).write(at('quantized.glb'), document);
  const r = run(['quantized.glb', 'quantized.ply', '--radius', '0']);
  assert.equal(r.code, 0, r.stderr);
  const back = new PLYLoader().parse(arrayBuffer(readFileSync(at('quantized.ply'))));
  const decode = (v, max) => Math.max(v / max, -1); // WebGL's rule for signed normalized integers
  const position = back.getAttribute('position').array;
  const normal = back.getAttribute('normal').array;
  assert.equal(position.length, positions.length);
  for (let i = 0; i < positions.length; i++) assert.ok(Math.abs(position[i] - 2 * decode(positions[i], 32767)) < 1e-6, `position ${i}: ${position[i]}`);
  for (let i = 0; i < normals.length; i++) assert.ok(Math.abs(normal[i] - decode(normals[i], 127)) < 1e-6, `normal ${i}: ${normal[i]}`);
});

test('the summary counts the edges used by one triangle exactly, and names a primitive whose index is out of range (fast-check)', () => {
  const runs = Number(process.env.MESHWELD_PROPERTY_RUNS ?? 100);
  const mesh = fc.integer({ min: 1, max: 9 }).chain((n) =>
    fc.record({ n: fc.constant(n), index: fc.option(fc.array(fc.integer({ min: 0, max: n - 1 }), { maxLength: 40 })) }),
  );
  const documentOf = (n, index) => {
    const document = new Document();
    const buffer = document.createBuffer();
    const position = document.createAccessor().setType('VEC3').setArray(new Float32Array(3 * n)).setBuffer(buffer);
    const primitive = document.createPrimitive().setAttribute('POSITION', position);
    if (index) primitive.setIndices(document.createAccessor().setType('SCALAR').setArray(Uint32Array.from(index)).setBuffer(buffer));
    document.createMesh('m').addPrimitive(primitive);
    return document;
  };
  fc.assert(
    fc.property(mesh, ({ n, index }) => {
      const uses = new Map();
      const corner = (i) => (index ? index[i] : i);
      const count = 3 * Math.floor((index ? index.length : n) / 3); // a stray corner or two is no triangle
      for (let t = 0; t < count; t += 3)
        for (let e = 0; e < 3; e++) {
          const [a, b] = [corner(t + e), corner(t + ((e + 1) % 3))];
          const key = `${Math.min(a, b)}-${Math.max(a, b)}`;
          uses.set(key, (uses.get(key) ?? 0) + 1);
        }
      const expected = [...uses.values()].filter((u) => u === 1).length;
      assert.deepEqual(measure(documentOf(n, index)), { vertices: n, triangles: count / 3, open: expected });
    }),
    { numRuns: runs, size: 'max' },
  );
  assert.throws(() => measure(documentOf(4, [0, 1, 4])), {
    message: "mesh 'm' primitive 0: indices[2] = 4 is out of range (4 vertices)",
  });
});

test('every error exits non-zero with one line naming the cause, and writes nothing', () => {
  writeFileSync(at('garbage.glb'), 'not a glb');
  writeFileSync(at('garbage.ply'), 'ply\nformat nonsense\n');
  const header = 'ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nproperty float nx\nproperty float ny\nproperty float nz\n';
  writeFileSync(at('nan.ply'), `${header}element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0 nan 0 1\n1 0 0 0 0 1\n0 1 0 0 0 1\n3 0 1 2\n`);
  mkdirSync(at('folder.glb'), { recursive: true });
  const bunny = join(models, 'objects', 'bunny.bin.stl');
  const broken = (name) => join(models, 'broken', name);
  const cases = [
    [['missing.stl', 'out.glb'], 1, "meshweld: cannot read missing.stl: no such file"],
    [['model.xyz', 'out.glb'], 2, "meshweld: unknown input format '.xyz' of model.xyz: expected .stl, .obj, .ply, .gltf or .glb"],
    [[bunny, 'out.fbx'], 2, "meshweld: unknown output format '.fbx' of out.fbx: expected .glb, .gltf, .stl, .ply or .obj"],
    [[bunny, 'out'], 2, 'meshweld: unknown output format (no extension) of out: expected .glb, .gltf, .stl, .ply or .obj'],
    [[broken('empty.stl'), 'out.glb'], 1, `meshweld: ${broken('empty.stl')} is not a valid STL file: 0 bytes, too short for a binary STL and not ASCII ('solid ...')`],
    [[broken('incorrectFaceCounter.bin.stl'), 'out.glb'], 1, `meshweld: ${broken('incorrectFaceCounter.bin.stl')} is not a valid STL file: its header announces 66 triangles (3384 bytes), the file has 284 bytes`],
    [[broken('twoVertices.ascii.stl'), 'out.glb'], 1, `meshweld: ${broken('twoVertices.ascii.stl')} is not a valid STL file: something isn't right with the vertices of face number 0`],
    [[broken('missingEndsolid.ascii.stl'), 'out.glb'], 1, `meshweld: ${broken('missingEndsolid.ascii.stl')} is not a valid STL file: it holds no triangles, lines or points`],
    [['garbage.glb', 'out.stl'], 1, 'meshweld: garbage.glb is not a valid GLB file: Invalid glTF 2.0 binary.'],
    [['garbage.ply', 'out.stl'], 1, 'meshweld: garbage.ply is not a valid PLY file: it holds no triangles, lines or points'],
    [['nan.ply', 'out.glb'], 1, "meshweld: nan.ply: mesh 'nan' primitive 0: vertex 0 has a non-finite NORMAL component 0 = NaN"],
    [[bunny, 'folder.glb'], 1, 'meshweld: cannot write folder.glb: it is a directory'],
    [[bunny, join('no', 'such', 'dir', 'out.glb')], 1, `meshweld: cannot write ${join('no', 'such', 'dir', 'out.glb')}: no such directory`],
    [[bunny, 'out.glb', '--radius', 'abc'], 2, 'meshweld: --radius must be a finite decimal number >= 0, got "abc"'],
    [[bunny, 'out.glb', '--radius=-1'], 2, 'meshweld: --radius must be a finite decimal number >= 0, got "-1"'],
    [[bunny, 'out.glb', '--radius', '-1'], 2, 'meshweld: --radius needs a value; write --radius=-1 for a value that starts with a dash'],
    [[bunny, 'out.glb', '--radius', '1e-4', '--radius', '1e-3'], 2, 'meshweld: --radius is given twice; give it once'],
    [[bunny, 'out.glb', '--radius', '0x10'], 2, 'meshweld: --radius must be a finite decimal number >= 0, got "0x10"'],
    [[bunny, 'out.glb', '--relative', ''], 2, 'meshweld: --relative must be a finite decimal number >= 0, got ""'],
    [[bunny, 'out.glb', '--normal-tolerance', 'Infinity'], 2, 'meshweld: --normal-tolerance must be a finite decimal number >= 0, got "Infinity"'],
    [[bunny, 'out.glb', '--radius', '1', '--relative', '1'], 2, 'meshweld: give --radius or --relative, not both'],
    [[bunny, 'out.glb', '--relative-to', 'world'], 2, `meshweld: --relative-to must be 'primitive' or 'scene', got "world"`],
    [[bunny, 'out.glb', '--method', 'hex'], 2, 'meshweld: --method must be one of auto, naive, grid-r, grid-2r, bcc, kdtree, grid, got "hex"'],
    [[bunny, 'out.glb', '--tolerance', '1'], 2, "meshweld: unknown option '--tolerance' (meshweld --help lists the options)"],
    [[bunny, 'out.glb', '--radius'], 2, "meshweld: option '--radius <value>' argument missing (meshweld --help lists the options)"],
    [[bunny], 2, 'meshweld: expected an input and an output file, got 1 name: meshweld <input> <output> [options]'],
    [[], 2, 'meshweld: expected an input and an output file, got 0 names: meshweld <input> <output> [options]'],
  ];
  for (const [args, code, line] of cases) {
    const r = run(args);
    assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr, `${line}\n`, args.join(' '));
    assert.equal(r.stdout, '');
  }
  assert.ok(!existsSync(at('out.glb')) && !existsSync(at('out.stl')), 'no output file is written');
  assert.deepEqual(readdirSync(work).filter((f) => f.includes('tmp')), [], 'no temporary file is left');
});

test('--help lists every option', () => {
  const r = run(['--help']);
  assert.equal(r.code, 0);
  for (const option of ['--radius', '--relative', '--normal-tolerance', '--uv-tolerance', '--method', '--keep-degenerate']) {
    assert.ok(r.stdout.includes(option), option);
  }
});

test('the shell examples of the README command-line section run as written', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Command line'), readme.indexOf('\n## ', readme.indexOf('\n## Command line') + 5));
  const commands = [...section.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((m) => m[1].split('\n'))
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line.startsWith('npx meshweld'));
  assert.ok(commands.length >= 4, `${commands.length} commands found`);
  const dir = at('readme');
  mkdirSync(dir);
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  for (const command of commands) {
    const r = spawnSync('sh', ['-c', command.replace(/^npx meshweld/, `"${process.execPath}" "${bin}"`)], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0, `${command}: ${r.stderr}`);
    const output = command.split(/\s+/)[3];
    assert.ok(existsSync(join(dir, output)), `${command} wrote ${output}`);
  }
});
