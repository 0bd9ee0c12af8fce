// Reading and writing mesh files as glTF-Transform documents: glTF and GLB through NodeIO, STL, OBJ
// and PLY through three.js' loaders and exporters. Every failure is an Error with a one-line message.
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { Document, Format, NodeIO, Primitive } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { boundaryEdges } from 'meshweld';
import { INPUTS, OUTPUTS, UserError, formatOf } from './kinds.js';

const io = () => new NodeIO().registerExtensions(ALL_EXTENSIONS);

// three.js, with the loaders and exporters used here, loads on first use: only STL, OBJ and PLY
// need it, and loading it is a good part of the command's start-up, which a glTF-to-glTF weld
// then does not pay.
let three = null;
function loadThree() {
  three ??= Promise.all([
    import('three'),
    import('three/examples/jsm/loaders/OBJLoader.js'),
    import('three/examples/jsm/loaders/PLYLoader.js'),
    import('three/examples/jsm/loaders/STLLoader.js'),
    import('three/examples/jsm/exporters/OBJExporter.js'),
    import('three/examples/jsm/exporters/PLYExporter.js'),
    import('three/examples/jsm/exporters/STLExporter.js'),
  ]).then(([{ BufferAttribute, BufferGeometry, Matrix4, Mesh, Scene }, { OBJLoader }, { PLYLoader }, { STLLoader }, { OBJExporter }, { PLYExporter }, { STLExporter }]) => (
    { BufferAttribute, BufferGeometry, Matrix4, Mesh, Scene, OBJLoader, PLYLoader, STLLoader, OBJExporter, PLYExporter, STLExporter }
  ));
  return three;
}

// three.js attribute names to glTF semantics
const SEMANTICS = { position: 'POSITION', normal: 'NORMAL', uv: 'TEXCOORD_0', uv1: 'TEXCOORD_1', color: 'COLOR_0' };
const TYPES = { 1: 'SCALAR', 2: 'VEC2', 3: 'VEC3', 4: 'VEC4' };

// three.js loaders report some problems through console.error and carry on: catch them.
function quietly(parse) {
  const messages = [];
  const saved = [console.error, console.warn];
  console.error = console.warn = (...args) => messages.push(args.join(' '));
  try {
    return { result: parse(), messages };
  } finally {
    [console.error, console.warn] = saved;
  }
}

// The bytes as an ArrayBuffer of their own: the file's buffer itself when it holds nothing else.
function arrayBuffer(bytes) {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes.buffer;
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}

function parseSTL(bytes, path, { STLLoader }) {
  const binarySize = bytes.length >= 84 ? 84 + 50 * bytes.readUInt32LE(80) : -1;
  const ascii = /^\s*solid/.test(bytes.subarray(0, 512).toString('latin1'));
  if (binarySize !== bytes.length && !ascii) {
    throw new UserError(
      bytes.length < 84
        ? `${path} is not a valid STL file: ${bytes.length} bytes, too short for a binary STL and not ASCII ('solid ...')`
        : `${path} is not a valid STL file: its header announces ${bytes.readUInt32LE(80)} triangles (${binarySize} bytes), the file has ${bytes.length} bytes`,
    );
  }
  const { result, messages } = quietly(() => new STLLoader().parse(arrayBuffer(bytes)));
  const bad = messages.find((m) => /vertices/.test(m));
  if (bad) throw new UserError(`${path} is not a valid STL file: ${bad.replace(/^THREE\.STLLoader: /, '').toLowerCase()}`);
  result.deleteAttribute('normal'); // face normals, which would keep every corner apart
  return [{ name: basename(path, extname(path)), geometry: result, mode: Primitive.Mode.TRIANGLES }];
}

function parseOBJ(bytes, { OBJLoader }) {
  const text = bytes.toString('utf8');
  const group = new OBJLoader().parse(text);
  const hasNormals = /^\s*vn\s/m.test(text);
  const parts = [];
  group.traverse((object) => {
    if (!object.geometry) return;
    // without vn lines OBJLoader makes flat face normals, which would keep every corner apart
    if (!hasNormals) object.geometry.deleteAttribute('normal');
    const mode = object.isLineSegments ? Primitive.Mode.LINES : object.isPoints ? Primitive.Mode.POINTS : Primitive.Mode.TRIANGLES;
    parts.push({ name: object.name, geometry: object.geometry, mode });
  });
  return parts;
}

function parsePLY(bytes, path, { PLYLoader }) {
  const geometry = new PLYLoader().parse(arrayBuffer(bytes));
  const mode = geometry.index || geometry.getAttribute('position')?.count % 3 === 0 ? Primitive.Mode.TRIANGLES : Primitive.Mode.POINTS;
  return [{ name: basename(path, extname(path)), geometry, mode: geometry.index ? Primitive.Mode.TRIANGLES : mode }];
}

/** three.js geometries as a glTF-Transform document: one node and mesh each. */
function toDocument(parts) {
  const document = new Document();
  const buffer = document.createBuffer();
  const scene = document.createScene();
  document.getRoot().setDefaultScene(scene);
  for (const { name, geometry, mode } of parts) {
    const primitive = document.createPrimitive().setMode(mode);
    for (const [key, attribute] of Object.entries(geometry.attributes)) {
      const semantic = SEMANTICS[key] ?? `_${key.toUpperCase()}`;
      const array = attribute.isInterleavedBufferAttribute ? Float32Array.from({ length: attribute.count * attribute.itemSize }, (_, i) => attribute.getComponent(Math.floor(i / attribute.itemSize), i % attribute.itemSize)) : attribute.array;
      primitive.setAttribute(
        semantic,
        document.createAccessor().setType(TYPES[attribute.itemSize]).setArray(array).setNormalized(attribute.normalized).setBuffer(buffer),
      );
    }
    if (geometry.index) {
      const array = geometry.index.array instanceof Uint16Array || geometry.index.array instanceof Uint32Array ? geometry.index.array : Uint32Array.from(geometry.index.array);
      primitive.setIndices(document.createAccessor().setType('SCALAR').setArray(array).setBuffer(buffer));
    }
    const mesh = document.createMesh(name).addPrimitive(primitive);
    scene.addChild(document.createNode(name).setMesh(mesh));
  }
  return document;
}

function check(document, path, kind) {
  const primitives = document.getRoot().listMeshes().flatMap((m) => m.listPrimitives());
  let vertices = 0;
  for (const p of primitives) {
    const position = p.getAttribute('POSITION');
    if (!position) continue;
    vertices += position.getCount();
    const array = position.getArray();
    for (let i = 0; i < array.length; i++) {
      if (!Number.isFinite(array[i])) throw new UserError(`${path} is not a valid ${kind} file: vertex ${Math.floor(i / 3)} has a coordinate ${array[i]}`);
    }
  }
  if (vertices === 0) throw new UserError(`${path} is not a valid ${kind} file: it holds no triangles, lines or points`);
  return document;
}

/** Reads a mesh file into a glTF-Transform document. */
export async function readMesh(path) {
  const ext = formatOf(path, INPUTS, 'input');
  let bytes;
  try {
    bytes = await readFile(path);
  } catch (error) {
    const why = error.code === 'ENOENT' ? 'no such file' : error.code === 'EISDIR' ? 'it is a directory' : error.message;
    throw new UserError(`cannot read ${path}: ${why}`);
  }
  const kind = ext.slice(1).toUpperCase();
  const t = ext === '.glb' || ext === '.gltf' ? null : await loadThree(); // (outside the try: not the file's fault)
  try {
    if (ext === '.glb' || ext === '.gltf') {
      const document = ext === '.glb' ? await io().readBinary(new Uint8Array(bytes)) : await io().read(path);
      return check(document, path, kind);
    }
    const parts = ext === '.stl' ? parseSTL(bytes, path, t) : ext === '.obj' ? parseOBJ(bytes, t) : parsePLY(bytes, path, t);
    return check(toDocument(parts), path, kind);
  } catch (error) {
    if (error instanceof UserError) throw error;
    throw new UserError(`${path} is not a valid ${kind} file: ${String(error.message).split('\n')[0]}`);
  }
}

// The values a shader sees, float32: normalized integers decoded by three's attribute (the rule
// its exporters read them by), quantized values as they are.
function floats(accessor, { BufferAttribute }) {
  const attribute = new BufferAttribute(accessor.getArray(), accessor.getElementSize(), accessor.getNormalized());
  if (!attribute.normalized) return Float32Array.from(attribute.array);
  const out = new Float32Array(attribute.count * attribute.itemSize);
  for (let i = 0, k = 0; i < attribute.count; i++) for (let c = 0; c < attribute.itemSize; c++) out[k++] = attribute.getComponent(i, c);
  return out;
}

/** The triangle primitives of a document's scenes as a three.js Scene, each in world space. */
function toScene(document, notes, t) {
  const { BufferAttribute, BufferGeometry, Matrix4, Mesh, Scene } = t;
  const scene = new Scene();
  const root = document.getRoot();
  const drawn = [];
  for (const s of root.listScenes()) s.traverse((node) => node.getMesh() && drawn.push([node.getMesh(), node.getWorldMatrix()]));
  if (root.listScenes().length === 0) for (const mesh of root.listMeshes()) drawn.push([mesh, new Matrix4().toArray()]);
  let skipped = 0;
  for (const [mesh, matrix] of drawn) {
    for (const primitive of mesh.listPrimitives()) {
      if (primitive.getMode() !== Primitive.Mode.TRIANGLES || !primitive.getAttribute('POSITION')) {
        skipped++;
        continue;
      }
      const geometry = new BufferGeometry();
      for (const [semantic, key] of [['POSITION', 'position'], ['NORMAL', 'normal'], ['TEXCOORD_0', 'uv'], ['COLOR_0', 'color']]) {
        const accessor = primitive.getAttribute(semantic);
        if (accessor) geometry.setAttribute(key, new BufferAttribute(floats(accessor, t), accessor.getElementSize()));
      }
      const indices = primitive.getIndices();
      if (indices) geometry.setIndex(new BufferAttribute(Uint32Array.from(indices.getArray()), 1));
      const object = new Mesh(geometry);
      object.name = mesh.getName();
      object.matrixAutoUpdate = false;
      object.matrix.fromArray(matrix);
      scene.add(object);
    }
  }
  if (skipped) notes.push(`${skipped} primitive${skipped === 1 ? '' : 's'} of points or lines not written (the format holds triangles)`);
  scene.updateMatrixWorld(true);
  return scene;
}

/** Writes a document to path (every file under a temporary name first, then renamed). */
export async function writeMesh(document, path, notes = []) {
  const ext = formatOf(path, OUTPUTS, 'output');
  const files = []; // [final path, bytes]
  if (ext === '.glb') {
    files.push([path, await io().writeBinary(document)]);
  } else if (ext === '.gltf') {
    const { json, resources } = await io().writeJSON(document, { format: Format.GLTF, basename: basename(path, extname(path)) });
    files.push([path, Buffer.from(JSON.stringify(json, null, 2))]);
    for (const [uri, bytes] of Object.entries(resources)) files.push([join(dirname(path), decodeURIComponent(uri)), bytes]);
  } else {
    const t = await loadThree();
    const scene = toScene(document, notes, t);
    if (ext === '.stl') {
      const view = new t.STLExporter().parse(scene, { binary: true });
      files.push([path, new Uint8Array(view.buffer, view.byteOffset, view.byteLength)]);
    } else if (ext === '.ply') {
      // parse returns the file too; without a callback it skips requestAnimationFrame, absent in Node
      const out = new t.PLYExporter().parse(scene, null, { binary: true, littleEndian: true });
      files.push([path, new Uint8Array(out)]);
    } else {
      files.push([path, Buffer.from(new t.OBJExporter().parse(scene))]);
    }
  }
  const temporary = files.map(([final]) => join(dirname(final), `.${basename(final)}.${process.pid}.meshweld-tmp`));
  try {
    for (let i = 0; i < files.length; i++) await writeFile(temporary[i], files[i][1]);
    for (let i = 0; i < files.length; i++) await rename(temporary[i], files[i][0]);
  } catch (error) {
    await Promise.all(temporary.map((t) => rm(t, { force: true })));
    const why = error.code === 'ENOENT' ? 'no such directory' : error.code === 'EACCES' ? 'permission denied' : error.code === 'EISDIR' ? 'it is a directory' : error.message;
    throw new UserError(`cannot write ${path}: ${why}`);
  }
  return files.map(([final]) => final);
}

/** Vertices, triangles and open edges (edges used by exactly one triangle) of a document. */
export function measure(document) {
  let vertices = 0;
  let triangles = 0;
  let open = 0;
  document.getRoot().listMeshes().forEach((mesh, m) => mesh.listPrimitives().forEach((primitive, p) => {
    const position = primitive.getAttribute('POSITION');
    if (!position) return;
    const n = position.getCount();
    vertices += n;
    if (primitive.getMode() !== Primitive.Mode.TRIANGLES) return;
    const index = primitive.getIndices()?.getArray() ?? null;
    const count = 3 * Math.floor((index ? index.length : n) / 3);
    triangles += count / 3;
    try {
      open += index ? boundaryEdges(index.subarray(0, count), n).length / 2 : count; // a soup's edges are all open
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      throw new UserError(`mesh ${mesh.getName() ? `'${mesh.getName()}'` : `#${m}`} primitive ${p}: ${error.message.replace(/^meshweld: boundaryEdges: /, '')}`);
    }
  }));
  return { vertices, triangles, open };
}
