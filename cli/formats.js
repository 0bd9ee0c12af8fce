// Reading and writing mesh files as glTF-Transform documents: glTF and GLB through NodeIO, STL, OBJ
// and PLY through three.js' loaders and exporters. Every failure is an Error with a one-line message.
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { ComponentTypeToTypedArray, Document, Format, GLB_BUFFER, ImageUtils, Logger, NodeIO, Primitive } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { boundaryEdges, ready } from 'meshweld';
import { INPUTS, OUTPUTS, UserError, formatOf } from './kinds.js';

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

// three.js loaders and exporters report problems through console.error, console.warn and even
// console.log, and carry on: catch what they print, which becomes the run's notes (or its error).
function quietly(parse) {
  const messages = [];
  const saved = [console.error, console.warn, console.log];
  console.error = console.warn = console.log = (...args) => messages.push(args.map(String).join(' '));
  try {
    return { result: parse(), messages };
  } finally {
    [console.error, console.warn, console.log] = saved;
  }
}

// Messages as notes: each distinct one once, at most a few, with a count of the rest, so that a
// file with thousands of odd lines gives a few lines, not thousands.
function addNotes(notes, messages, limit = 5) {
  const distinct = [...new Set(messages.map((m) => m.replace(/\s+/g, ' ').trim()).filter(Boolean))];
  notes.push(...distinct.slice(0, limit));
  if (distinct.length > limit) notes.push(`${distinct.length - limit} more messages like these`);
}

// A count and its noun: '1 mesh', '2 meshes', '1,024 triangles'.
const plural = (n, word, words = `${word}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? word : words}`;

// The notes gathered while a file is read, by its document: writeMesh puts them first among its
// own notes, so a caller that prints the notes of the write prints these too, once.
const readingNotes = new WeakMap();

/** The notes gathered while reading a document (taken: a second call returns none). */
export function readNotes(document) {
  const notes = readingNotes.get(document) ?? [];
  readingNotes.delete(document);
  return notes;
}

// The bytes as an ArrayBuffer of their own: the file's buffer itself when it holds nothing else.
function arrayBuffer(bytes) {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes.buffer;
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}

// A binary STL is an 80-byte header, a triangle count and 50 bytes a triangle: a file of exactly
// that size is binary, whatever its header says (many binary headers start with 'solid'). Any
// other file is ASCII if it starts with 'solid' (in any case, after a byte order mark and white
// space) and holds text. three's loader decides by its own rule (lowercase 'solid' within the
// first five bytes, and 84 bytes at least), so ASCII goes to it as text that follows that rule:
// without the byte order mark and the leading white space, keywords in lowercase (names and
// numbers do not change meaning), padded to 84 bytes.
function parseSTL(bytes, path, notes, { STLLoader }) {
  const fail = (why) => {
    throw new UserError(`${path} is not a valid STL file: ${why}`);
  };
  const announced = bytes.length >= 84 ? bytes.readUInt32LE(80) : -1;
  const binarySize = 84 + 50 * announced;
  const sizeMismatch = () => `its header announces ${announced} triangles (${binarySize} bytes), the file has ${bytes.length} bytes`;
  let parsed;
  if (bytes.length >= 84 && binarySize === bytes.length) {
    parsed = quietly(() => new STLLoader().parse(arrayBuffer(bytes)));
  } else {
    const text = bytes.toString('utf8').replace(/^\uFEFF/, '').trimStart();
    if (!/^solid/i.test(text)) fail(bytes.length < 84 ? `${bytes.length} bytes, too short for a binary STL and not ASCII ('solid ...')` : sizeMismatch());
    // Text holds no NUL byte: a binary file whose header starts with 'solid' does, in its count
    // and coordinates, and has the wrong size.
    if (bytes.includes(0)) fail(bytes.length < 84 ? `${bytes.length} bytes, too short for a binary STL, and not text` : `${sizeMismatch()} (it starts with 'solid' but is not text)`);
    let ascii = text.toLowerCase().padEnd(84, '\n');
    // Bytes 80 to 83 of the text could, once in billions of sizes, announce its size exactly.
    if (84 + 50 * Buffer.from(ascii.slice(0, 84)).readUInt32LE(80) === Buffer.byteLength(ascii)) ascii += '\n';
    parsed = quietly(() => new STLLoader().parse(ascii));
  }
  const { result, messages } = parsed;
  const bad = messages.find((m) => /vertices/.test(m));
  if (bad) fail(bad.replace(/^THREE\.STLLoader: /, '').toLowerCase());
  addNotes(notes, messages.map((m) => `${path}: ${m}`));
  result.deleteAttribute('normal'); // face normals, which would keep every corner apart
  return [{ name: basename(path, extname(path)), geometry: result, mode: Primitive.Mode.TRIANGLES }];
}

function parseOBJ(bytes, path, notes, { OBJLoader }) {
  const text = bytes.toString('utf8');
  const { result: group, messages } = quietly(() => new OBJLoader().parse(text));
  addNotes(notes, messages.map((m) => `${path}: ${m}`));
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

// The elements a PLY header declares, [{ name, count, properties: [{ name, list, type, countType }] }],
// and where its data starts; null when the file has no end_header line (three's loader then reads
// nothing).
function plyHeader(bytes) {
  const end = bytes.indexOf('end_header');
  if (end < 0) return null;
  const lines = bytes.toString('latin1', 0, end).split(/\r\n|\r|\n/);
  const elements = [];
  let format = '';
  for (const line of lines) {
    const [keyword, ...words] = line.trim().split(/\s+/);
    if (keyword === 'format') format = words[0];
    else if (keyword === 'element') elements.push({ name: words[0], count: Number(words[1]), properties: [] });
    else if (keyword === 'property' && elements.length) {
      const list = words[0] === 'list';
      elements.at(-1).properties.push({ name: words.at(-1), list, type: list ? words[2] : words[0], countType: list ? words[1] : null });
    }
  }
  const body = bytes.indexOf('\n', end) + 1 || bytes.length;
  return { format, elements, body };
}

const isIndexList = (p) => p.list && (p.name === 'vertex_indices' || p.name === 'vertex_index');

// The values of a binary PLY's types: their sizes and DataView readers.
const PLY_TYPES = Object.fromEntries([
  [['char', 'int8'], 1, 'getInt8'], [['uchar', 'uint8'], 1, 'getUint8'], [['short', 'int16'], 2, 'getInt16'],
  [['ushort', 'uint16'], 2, 'getUint16'], [['int', 'int32'], 4, 'getInt32'], [['uint', 'uint32'], 4, 'getUint32'],
  [['float', 'float32'], 4, 'getFloat32'], [['double', 'float64'], 8, 'getFloat64'],
].flatMap(([names, size, read]) => names.map((name) => [name, { size, read }])));

// A PLY's data read element by element, as three's loader reads it: where it ends before the
// header's elements do ({ element, held }, or null when it holds them all), and the corner lists of
// its faces ({ sizes, corners }: each face's number of corners, and the corners one after another;
// null without faces). Binary data whose types are not PLY's: null, for three's loader to refuse.
function plyData(bytes, { format, elements, body }) {
  const faces = elements.some((e) => e.name === 'face' && e.count > 0) ? { sizes: [], corners: [] } : null;
  if (format === 'ascii') {
    const tokens = bytes.toString('latin1', body).trim().split(/\s+/).filter(Boolean);
    let k = 0;
    for (const element of elements) {
      const listed = element.name === 'face' && faces ? element.properties.find(isIndexList) : null;
      for (let j = 0; j < element.count; j++) {
        for (const property of element.properties) {
          if (k >= tokens.length) return { short: { element, held: j }, faces };
          const n = property.list ? Number.parseInt(tokens[k], 10) || 0 : 0;
          if (property === listed) {
            faces.sizes.push(n);
            // a corner that is not a whole number stays its text, for the check below to name it
            for (let c = 1; c <= n; c++) faces.corners.push(/^\+?\d+$/.test(tokens[k + c]) ? Number(tokens[k + c]) : tokens[k + c]);
          }
          k += property.list ? 1 + n : 1;
        }
        if (k > tokens.length) return { short: { element, held: j }, faces };
      }
    }
    return { short: null, faces };
  }
  const little = format === 'binary_little_endian';
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = body;
  for (const element of elements) {
    const types = element.properties.map((p) => [PLY_TYPES[p.type], p.list ? PLY_TYPES[p.countType] : null]);
    if (types.some(([type, count], i) => !type || (element.properties[i].list && !count))) return null;
    const listed = element.name === 'face' && faces ? element.properties.find(isIndexList) : null;
    for (let j = 0; j < element.count; j++) {
      for (let i = 0; i < element.properties.length; i++) {
        const [type, count] = types[i];
        if (at + (count ?? type).size > bytes.length) return { short: { element, held: j }, faces };
        if (!count) {
          at += type.size;
          continue;
        }
        const n = view[count.read](at, little);
        at += count.size;
        if (at + n * type.size > bytes.length) return { short: { element, held: j }, faces };
        if (element.properties[i] === listed) {
          faces.sizes.push(n);
          for (let c = 0; c < n; c++) faces.corners.push(view[type.read](at + c * type.size, little));
        }
        at += n * type.size;
      }
    }
  }
  return { short: null, faces };
}

// Triangles of faces of any number of corners: a face's corners 0, k, k + 1 for k from 1, the
// split three's loader makes of a quad; faces of fewer than 3 corners make none.
function fanTriangles({ sizes, corners }) {
  const out = [];
  for (let f = 0, at = 0; f < sizes.length; at += sizes[f++])
    for (let k = 1; k + 1 < sizes[f]; k++) out.push(corners[at], corners[at + k], corners[at + k + 1]);
  return out;
}

function parsePLY(bytes, path, notes, { BufferAttribute, PLYLoader }) {
  const fail = (why) => {
    throw new UserError(`${path} is not a valid PLY file: ${why}`);
  };
  if (bytes.length === 0) fail('the file is empty');
  if (!/^ply[\r\n]/.test(bytes.toString('latin1', 0, 4))) fail("it does not start with a 'ply' line");
  const header = plyHeader(bytes);
  const face = header?.elements.find((e) => e.name === 'face');
  if (face && face.count > 0 && !face.properties.some(isIndexList)) fail('its face element has no vertex_indices list');
  const data = header ? plyData(bytes, header) : null;
  if (data?.short) fail(`its header declares ${data.short.element.count} ${data.short.element.name} elements, the data holds ${data.short.held}`);
  if (data?.faces) {
    // three's loader reads a corner that is not a vertex's index as some other vertex (text as 0,
    // -1 as the last of 65,536): the triangle would be silently wrong
    const vertices = header.elements.find((e) => e.name === 'vertex')?.count ?? 0;
    const { sizes, corners } = data.faces;
    const bad = corners.findIndex((c) => !Number.isInteger(c) || c < 0 || c >= vertices);
    if (bad >= 0) {
      let f = 0, first = 0; // the face holding the corner, and that face's first corner
      while (first + sizes[f] <= bad) first += sizes[f++];
      fail(`corner ${bad - first} of face ${f} is ${JSON.stringify(corners[bad])}: expected a vertex index, a whole number from 0 to ${vertices - 1}`);
    }
  }
  let parsed;
  try {
    parsed = quietly(() => new PLYLoader().parse(arrayBuffer(bytes)));
  } catch (error) {
    if (!(error instanceof RangeError) || !header) throw error;
    const declared = header.elements.map((e) => `${e.count} ${e.name}`).join(', ');
    fail(`its data ends before the elements its header declares (${declared})`);
  }
  const { result: geometry, messages } = parsed;
  addNotes(notes, messages.map((m) => `${path}: ${m.replace(/^unhandled /, 'header line not read: ')}`));
  // three's loader reads faces of 3 and 4 corners and leaves out any other. Faces of more corners
  // are split here as it splits a quad (fans from their first corner), unless the faces carry
  // their own uvs or colors, which the loader reads for triangles and quads only: then they are
  // left out, and said so.
  const sizes = data?.faces?.sizes ?? [];
  const drawn = sizes.some((n) => n === 3 || n === 4); // faces the loader reads
  const polygons = sizes.filter((n) => n > 4).length;
  const lines = sizes.filter((n) => n < 3).length;
  if (polygons + lines > 0) {
    const has = (...names) => face.properties.some((p) => names.includes(p.name));
    const perFace = has('texcoord') || (has('red', 'diffuse_red', 'r', 'diffuse_r') && has('green', 'diffuse_green', 'g', 'diffuse_g') && has('blue', 'diffuse_blue', 'b', 'diffuse_b'));
    if (perFace) {
      // the loader gives every face three colors, six for a quad, those of the faces it leaves
      // out too: theirs are taken out, so that each triangle keeps its own (none read: no corner
      // to color)
      const color = geometry.getAttribute('color');
      if (color && !drawn) geometry.deleteAttribute('color');
      else if (color) {
        const array = new color.array.constructor(geometry.getAttribute('position').count * 3);
        let from = 0, to = 0;
        for (const n of sizes) {
          const items = n === 4 ? 6 : 3;
          if (n === 3 || n === 4) array.set(color.array.subarray(3 * from, 3 * (from + items)), 3 * to), to += items;
          from += items;
        }
        geometry.setAttribute('color', new BufferAttribute(array, 3, color.normalized));
      }
      notes.push(`${path}: ${plural(polygons + lines, 'face')} of ${lines ? 'fewer than 3 or ' : ''}more than 4 corners left out: three's loader reads the uvs and colors of faces of 3 and 4 corners only`);
    } else {
      const triangles = fanTriangles(data.faces);
      geometry.setIndex(triangles.length > 0 ? triangles : null);
      if (polygons) notes.push(`${path}: ${plural(polygons, 'face')} of more than 4 corners split into triangles from their first corner`);
      if (lines) notes.push(`${path}: ${plural(lines, 'face')} of fewer than 3 corners left out (they hold no triangle)`);
    }
  }
  const corners = geometry.getAttribute('position').count;
  for (const [name, attribute] of Object.entries(geometry.attributes)) {
    if (attribute.count !== corners) fail(`three's loader read ${name} for ${attribute.count} of its ${corners} corners (it reads a face's uvs from a texcoord list of 2 values a corner)`);
  }
  // Faces make triangles; a file without them (no face element, none of them, or none with 3
  // corners) is a cloud of points, whatever its number of vertices. Faces that carry their own uvs
  // or colors come from the loader as a soup: three corners of their own per triangle, no index.
  const soup = !geometry.index && drawn;
  const mode = face?.count > 0 && (geometry.index || soup) ? Primitive.Mode.TRIANGLES : Primitive.Mode.POINTS;
  if (face?.count > 0 && mode === Primitive.Mode.POINTS) notes.push(`${path}: its faces hold no triangle: its vertices are read as points`);
  if (mode === Primitive.Mode.POINTS) geometry.setIndex(null);
  return [{ name: basename(path, extname(path)), geometry, mode }];
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

// Compressed geometry, which needs a decoder the command does not ship.
const COMPRESSION = {
  KHR_draco_mesh_compression: 'Draco-compressed meshes',
  EXT_meshopt_compression: 'meshoptimizer-compressed buffers',
};

const ELEMENT_SIZES = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT2: 4, MAT3: 9, MAT4: 16 };

// glTF-Transform's warnings while reading, as notes.
class NotesLogger extends Logger {
  constructor(notes) {
    super(Logger.Verbosity.WARN);
    this.notes = notes;
  }
  debug() {}
  info() {}
  warn(text) {
    this.notes.push(text);
  }
  error(text) {
    this.notes.push(text);
  }
}

// The sizes a glTF declares, checked against the bytes it holds: glTF-Transform reads a buffer
// shorter than its views as a shorter accessor (fewer triangles, silently) or fails on an offset.
// Buffers that an extension fills (meshopt's fallback) hold no bytes here and are not checked.
function checkSizes({ json, resources }, fail) {
  const buffers = (json.buffers ?? []).map((def, i) => {
    if (def.extensions?.EXT_meshopt_compression?.fallback) return Infinity;
    const data = def.uri ? resources[def.uri] : resources[GLB_BUFFER];
    if (!data) return def.uri || i === 0 ? fail(`buffer ${i} has no data`) : Infinity;
    const name = def.uri && !def.uri.startsWith('__') ? ` (${def.uri})` : '';
    if (data.byteLength < def.byteLength) fail(`buffer ${i}${name} holds ${data.byteLength} bytes, its byteLength is ${def.byteLength}`);
    return data.byteLength;
  });
  const views = (json.bufferViews ?? []).map((def, i) => {
    if (!(def.buffer in buffers)) fail(`buffer view ${i} names buffer ${def.buffer}, which does not exist`);
    const end = (def.byteOffset ?? 0) + def.byteLength;
    if (end > buffers[def.buffer]) fail(`buffer view ${i} ends at byte ${end} of buffer ${def.buffer}, which holds ${buffers[def.buffer]} bytes`);
    return def;
  });
  const needs = (what, { bufferView, byteOffset = 0 }, count, elementBytes) => {
    if (bufferView === undefined || count === 0) return;
    const view = views[bufferView] ?? fail(`${what} names buffer view ${bufferView}, which does not exist`);
    const end = byteOffset + (view.byteStride ?? elementBytes) * (count - 1) + elementBytes;
    if (end > view.byteLength) fail(`${what} needs ${end} bytes of buffer view ${bufferView}, which holds ${view.byteLength}`);
  };
  (json.accessors ?? []).forEach((def, i) => {
    const TypedArray = ComponentTypeToTypedArray[def.componentType];
    if (!TypedArray) fail(`accessor ${i} has componentType ${def.componentType}`);
    if (!(def.type in ELEMENT_SIZES)) fail(`accessor ${i} has type ${def.type}`);
    if (!Number.isInteger(def.count) || def.count < 0) fail(`accessor ${i} has count ${def.count}`);
    needs(`accessor ${i}`, def, def.count, ELEMENT_SIZES[def.type] * TypedArray.BYTES_PER_ELEMENT);
    if (def.sparse) {
      const indexType = ComponentTypeToTypedArray[def.sparse.indices?.componentType];
      if (!indexType) fail(`accessor ${i} has sparse indices of componentType ${def.sparse.indices?.componentType}`);
      needs(`accessor ${i}'s sparse indices`, def.sparse.indices, def.sparse.count, indexType.BYTES_PER_ELEMENT);
      needs(`accessor ${i}'s sparse values`, def.sparse.values, def.sparse.count, ELEMENT_SIZES[def.type] * TypedArray.BYTES_PER_ELEMENT);
    }
  });
}

// A glTF or GLB file through NodeIO: its JSON first, refused when it needs a decoder the command
// lacks, its sizes checked, then the document, whose every accessor holds what its count says.
async function readGLTF(bytes, path, ext, notes) {
  const kind = ext.slice(1).toUpperCase();
  const fail = (why) => {
    throw new UserError(`${path} is not a valid ${kind} file: ${why}`);
  };
  const refuseCompression = (json) => {
    for (const [name, what] of Object.entries(COMPRESSION)) {
      if (json.extensionsRequired?.includes(name)) fail(`it uses ${name} (${what}), which meshweld does not decode`);
    }
  };
  const reader = new NodeIO().setLogger(new NotesLogger(notes));
  let jsonDoc;
  if (ext === '.glb') {
    // The lengths a GLB's header and chunks announce, against the file's: NodeIO would fail on
    // them with a bare 'Invalid typed array length'.
    if (bytes.length >= 20 && bytes.readUInt32LE(0) === 0x46546c67) {
      const announced = bytes.readUInt32LE(8);
      if (announced > bytes.length) fail(`its header announces ${announced} bytes, the file has ${bytes.length}`);
      const end = 20 + bytes.readUInt32LE(12);
      if (end > bytes.length) fail(`its JSON chunk ends at byte ${end}, the file has ${bytes.length}`);
      if (end + 8 <= bytes.length && end + 8 + bytes.readUInt32LE(end) > bytes.length) {
        fail(`its binary chunk ends at byte ${end + 8 + bytes.readUInt32LE(end)}, the file has ${bytes.length}`);
      }
    }
    jsonDoc = await reader.binaryToJSON(new Uint8Array(bytes));
  } else {
    // The JSON alone first: a file that needs a decoder is refused before its resources are read.
    let json = null;
    try {
      json = JSON.parse(bytes.toString('utf8'));
    } catch {
      // NodeIO reads it again below and names the problem (or finds a GLB under a .gltf name).
    }
    if (json) refuseCompression(json);
    try {
      jsonDoc = await reader.readAsJSON(path);
    } catch (error) {
      if (error.code === 'ENOENT' || error.code === 'EISDIR') fail(`cannot read its resource ${error.path}: ${error.code === 'ENOENT' ? 'no such file' : 'it is a directory'}`);
      throw error;
    }
  }
  const { json } = jsonDoc;
  refuseCompression(json);
  // A compression extension the file only uses comes with uncompressed data: read that, without
  // the extension, which would ask for its decoder.
  const optional = Object.keys(COMPRESSION).filter((name) => json.extensionsUsed?.includes(name));
  for (const name of optional) notes.push(`${path} uses ${name} as an option: its uncompressed data was read`);
  reader.registerExtensions(ALL_EXTENSIONS.filter((extension) => !optional.includes(extension.EXTENSION_NAME)));
  checkSizes(jsonDoc, fail);
  const document = await reader.readJSON(jsonDoc);
  const accessors = document.getRoot().listAccessors();
  (json.accessors ?? []).forEach((def, i) => {
    const held = accessors[i]?.getArray()?.length ?? 0;
    const needed = def.count * ELEMENT_SIZES[def.type];
    if (held !== needed) fail(`accessor ${i} holds ${held} values, its count ${def.count} needs ${needed}`);
  });
  return document;
}

/** Reads a mesh file into a glTF-Transform document (its notes: readNotes). */
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
  await ready; // measure, which a caller runs on the document next, needs the WebAssembly module
  const notes = [];
  try {
    let document;
    if (ext === '.glb' || ext === '.gltf') {
      document = await readGLTF(bytes, path, ext, notes);
    } else {
      const parts = ext === '.stl' ? parseSTL(bytes, path, notes, t) : ext === '.obj' ? parseOBJ(bytes, path, notes, t) : parsePLY(bytes, path, notes, t);
      document = toDocument(parts);
    }
    check(document, path, kind);
    readingNotes.set(document, notes);
    return document;
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

// The triangles a primitive draws: their count, and their corners three by three (null for a
// TRIANGLES primitive without indices, whose corners are its vertices in order). Strips and fans
// make n - 2 triangles of n drawn vertices, by glTF's rule: a strip's triangle k is (k, k+1, k+2),
// with the last two swapped for odd k so that every triangle keeps the strip's winding; a fan's is
// (k+1, k+2, 0). Null for points and lines.
function trianglesOf(primitive) {
  const index = primitive.getIndices()?.getArray() ?? null;
  const n = index ? index.length : primitive.getAttribute('POSITION').getCount();
  const mode = primitive.getMode();
  if (mode === Primitive.Mode.TRIANGLES) {
    const count = Math.floor(n / 3);
    return { count, corners: index ? index.subarray(0, 3 * count) : null };
  }
  if (mode !== Primitive.Mode.TRIANGLE_STRIP && mode !== Primitive.Mode.TRIANGLE_FAN) return null;
  const count = Math.max(n - 2, 0);
  const corners = new Uint32Array(3 * count);
  const at = index ? (i) => index[i] : (i) => i;
  for (let k = 0; k < count; k++) {
    if (mode === Primitive.Mode.TRIANGLE_STRIP) {
      const odd = k & 1;
      corners[3 * k] = at(k);
      corners[3 * k + 1] = at(k + 1 + odd);
      corners[3 * k + 2] = at(k + 2 - odd);
    } else {
      corners[3 * k] = at(k + 1);
      corners[3 * k + 1] = at(k + 2);
      corners[3 * k + 2] = at(0);
    }
  }
  return { count, corners };
}

/**
 * The triangle primitives of a document's default scene (the root's, else its first) as a three.js
 * Scene, each in world space as its nodes draw it; with no scene, every mesh once as it is.
 */
function toScene(document, notes, t) {
  const { BufferAttribute, BufferGeometry, Matrix4, Mesh, Scene } = t;
  const scene = new Scene();
  const root = document.getRoot();
  const scenes = root.listScenes();
  const chosen = root.getDefaultScene() ?? scenes[0] ?? null;
  const drawn = [];
  let instanced = 0;
  if (chosen) {
    chosen.traverse((node) => {
      if (!node.getMesh()) return;
      drawn.push([node.getMesh(), node.getWorldMatrix()]);
      if (node.getExtension('EXT_mesh_gpu_instancing')) instanced++;
    });
    const inScenes = new Set();
    for (const s of scenes) s.traverse((node) => node.getMesh() && inScenes.add(node.getMesh()));
    const here = new Set(drawn.map(([mesh]) => mesh));
    const meshes = root.listMeshes().filter((mesh) => mesh.listPrimitives().length > 0);
    const elsewhere = meshes.filter((mesh) => inScenes.has(mesh) && !here.has(mesh)).length;
    const nowhere = meshes.filter((mesh) => !inScenes.has(mesh)).length;
    if (scenes.length > 1) {
      const name = chosen.getName() ? ` '${chosen.getName()}'` : ` (#${scenes.indexOf(chosen)})`;
      const only = elsewhere ? `; ${plural(elsewhere, 'mesh', 'meshes')} drawn only there not written` : '';
      notes.push(`${plural(scenes.length - 1, 'other scene')} not written, the file holds the default scene${name}${only}`);
    }
    if (nowhere) notes.push(`${plural(nowhere, 'mesh', 'meshes')} in no scene not written`);
  } else {
    for (const mesh of root.listMeshes()) drawn.push([mesh, new Matrix4().toArray()]);
  }
  let skipped = 0;
  let written = 0;
  for (const [mesh, matrix] of drawn) {
    // A mirroring transform (negative determinant) turns the triangles inside out, as a renderer
    // knows and a file does not: their corners are swapped to keep them facing out.
    const mirrored = new Matrix4().fromArray(matrix).determinant() < 0;
    for (const primitive of mesh.listPrimitives()) {
      const triangles = primitive.getAttribute('POSITION') ? trianglesOf(primitive) : null;
      if (!triangles) {
        skipped++;
        continue;
      }
      const geometry = new BufferGeometry();
      for (const [semantic, key] of [['POSITION', 'position'], ['NORMAL', 'normal'], ['TEXCOORD_0', 'uv'], ['COLOR_0', 'color']]) {
        const accessor = primitive.getAttribute(semantic);
        if (accessor) geometry.setAttribute(key, new BufferAttribute(floats(accessor, t), accessor.getElementSize()));
      }
      const corners = triangles.corners ? Uint32Array.from(triangles.corners) : Uint32Array.from({ length: 3 * triangles.count }, (_, i) => i);
      if (mirrored) for (let i = 0; i < corners.length; i += 3) [corners[i + 1], corners[i + 2]] = [corners[i + 2], corners[i + 1]];
      geometry.setIndex(new BufferAttribute(corners, 1));
      written += triangles.count;
      const object = new Mesh(geometry);
      object.name = mesh.getName();
      object.matrixAutoUpdate = false;
      object.matrix.fromArray(matrix);
      scene.add(object);
    }
  }
  if (skipped) notes.push(`${skipped} primitive${skipped === 1 ? '' : 's'} of points or lines not written (the format holds triangles)`);
  if (instanced) notes.push(`${plural(instanced, 'node')} with EXT_mesh_gpu_instancing: each mesh written once, at its node, not at its instances`);
  const counted = measure(document).triangles;
  if (written !== counted) notes.push(`the file holds ${plural(written, 'triangle')}, the meshes as the scene's nodes draw them (the summary counts each mesh once)`);
  scene.updateMatrixWorld(true);
  return scene;
}

// The buffers and images of a .gltf output, named after it and written beside it: '<name>.bin',
// '<name>_1.bin', ..., '<name>_<image's file name>'; never the input's names, which could be its
// own files (overwritten) or lead elsewhere ('../', folders). Each URI is the file name encoded,
// and files maps it back. restore() puts the document's own URIs back.
function nameResources(document, output) {
  const root = document.getRoot();
  const base = basename(output, extname(output));
  const taken = new Set([basename(output).toLowerCase()]); // (case-insensitive file systems)
  const unique = (stem, extension) => {
    let name = `${stem}.${extension}`;
    for (let i = 1; taken.has(name.toLowerCase()); i++) name = `${stem}_${i}.${extension}`;
    taken.add(name.toLowerCase());
    return name;
  };
  const files = new Map();
  const saved = [];
  const assign = (property, name) => {
    const uri = encodeURIComponent(name);
    files.set(uri, name);
    property.setURI(uri);
  };
  // Only buffers that hold accessors are written, and named: the first is '<name>.bin'.
  for (const buffer of root.listBuffers()) {
    if (!buffer.listParents().some((parent) => parent.propertyType === 'Accessor')) continue;
    const uri = buffer.getURI();
    saved.push(() => buffer.setURI(uri));
    assign(buffer, unique(base, 'bin'));
  }
  const safe = (text) => text.replace(/[\\/:*?"<>|\x00-\x1f]+/g, '_').replace(/^[.\s]+/, '');
  root.listTextures().forEach((texture, i) => {
    const [uri, mimeType] = [texture.getURI(), texture.getMimeType()];
    saved.push(() => texture.setURI(uri).setMimeType(mimeType));
    let file = uri.split(/[\\/]/).pop();
    try {
      file = decodeURIComponent(file);
    } catch {
      // a file name with a stray '%', taken as it is
    }
    const dot = file.lastIndexOf('.');
    const extension = mimeType ? ImageUtils.mimeTypeToExtension(mimeType) : dot > 0 ? file.slice(dot + 1) : 'bin';
    let stem = safe(dot > 0 ? file.slice(0, dot) : file);
    if (!stem || stem.startsWith('__')) stem = safe(texture.getName()) || `image${i}`; // embedded images' names are made up
    assign(texture, unique(`${base}_${stem}`, safe(extension) || 'bin'));
  });
  return { files, restore: () => saved.forEach((put) => put()) };
}

/**
 * Writes a document to path (every file under a temporary name first, then renamed). notes
 * receives the notes of reading the document (readNotes), then those of writing it.
 */
export async function writeMesh(document, path, notes = []) {
  const ext = formatOf(path, OUTPUTS, 'output');
  await ready; // toScene measures the document
  notes.push(...readNotes(document));
  const files = []; // [final path, bytes], the file named path last
  // glTF-Transform's warnings while writing (sparse accessors, say), as notes.
  const io = () => new NodeIO().registerExtensions(ALL_EXTENSIONS).setLogger(new NotesLogger(notes));
  if (ext === '.glb') {
    files.push([path, await io().writeBinary(document)]);
  } else if (ext === '.gltf') {
    const { files: names, restore } = nameResources(document, path);
    let written;
    try {
      written = await io().writeJSON(document, { format: Format.GLTF, basename: basename(path, extname(path)) });
    } finally {
      restore();
    }
    for (const [uri, bytes] of Object.entries(written.resources)) {
      if (!names.has(uri)) throw new Error(`resource ${uri} has no file name`);
      files.push([join(dirname(path), names.get(uri)), bytes]);
    }
    files.push([path, Buffer.from(JSON.stringify(written.json, null, 2))]);
  } else {
    const t = await loadThree();
    const scene = toScene(document, notes, t);
    const { result, messages } = quietly(() => {
      if (ext === '.stl') {
        const view = new t.STLExporter().parse(scene, { binary: true });
        return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
      }
      // parse returns the file too; without a callback it skips requestAnimationFrame, absent in Node
      if (ext === '.ply') return new Uint8Array(new t.PLYExporter().parse(scene, null, { binary: true, littleEndian: true }));
      return Buffer.from(new t.OBJExporter().parse(scene));
    });
    addNotes(notes, messages);
    files.push([path, result]);
  }
  const why = (error) => (error.code === 'ENOENT' ? 'no such directory' : error.code === 'EACCES' ? 'permission denied' : error.code === 'EISDIR' ? 'it is a directory' : error.message);
  // Every final name is checked before any file is written: a directory there would stop the
  // renames halfway, with some files of the output in place and others not.
  for (const [final] of files) {
    const found = await stat(final).catch(() => null);
    if (found?.isDirectory()) throw new UserError(`cannot write ${final}: it is a directory`);
  }
  const temporary = files.map(([final]) => join(dirname(final), `.${basename(final)}.${process.pid}.meshweld-tmp`));
  let current = path;
  try {
    for (let i = 0; i < files.length; i++) {
      current = files[i][0];
      await writeFile(temporary[i], files[i][1]);
    }
    // The resources first, the file that names them last: a reader never finds a new .gltf
    // whose buffers are still the old ones.
    for (let i = 0; i < files.length; i++) {
      current = files[i][0];
      await rename(temporary[i], files[i][0]);
    }
  } catch (error) {
    await Promise.all(temporary.map((t) => rm(t, { force: true })));
    throw new UserError(`cannot write ${current}: ${why(error)}`);
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
    const drawn = trianglesOf(primitive);
    if (!drawn) return;
    triangles += drawn.count;
    try {
      open += drawn.corners ? boundaryEdges(drawn.corners, n).length / 2 : 3 * drawn.count; // a soup's edges are all open
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      throw new UserError(`mesh ${mesh.getName() ? `'${mesh.getName()}'` : `#${m}`} primitive ${p}: ${error.message.replace(/^meshweld: boundaryEdges: /, '')}`);
    }
  }));
  return { vertices, triangles, open };
}
