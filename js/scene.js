// The world-space measures of a glTF-Transform document that the transform's relativeTo 'scene'
// needs: the scenes' bounding-box diagonal, and how much the nodes that draw a mesh stretch it.
// Not part of the public API.
import { PropertyType } from '@gltf-transform/core';
import { isIntegerArray, normalizer } from './points.js';

// Largest stretch (spectral norm) of a 4x4 column-major matrix's linear part: power iteration on
// MᵀM, in scalars, until its vector stops moving (a scene of thousands of nodes calls it once per
// node). A matrix whose largest entry is so far from 1 that the iteration's products would
// overflow or lose bits in subnormals (node scales past about 1e120 or below 1e-120) is first
// brought near 1 by a power of two 2^-k, and s by 2^k after: every step scales exactly by a power
// of two, so elsewhere this would give the same bits, and there it gives the stretch, not 0 or
// Infinity.
function stretch(m) {
  const largest = Math.max(...[0, 1, 2, 4, 5, 6, 8, 9, 10].map((i) => Math.abs(m[i])));
  let up = [1, 1]; // 2^k as two factors (2^k itself may not exist)
  if (!(largest > 2 ** -400 && largest < 2 ** 400) && largest > 0 && Number.isFinite(largest)) {
    const k = Math.round(Math.log2(largest));
    up = [2 ** Math.ceil(k / 2), 2 ** Math.floor(k / 2)];
    m = m.map((v) => v / up[0] / up[1]);
  }
  let v0 = 1, v1 = 0.7, v2 = 0.3;
  let s = 0;
  for (let it = 0; it < 64; it++) {
    const w0 = m[0] * v0 + m[4] * v1 + m[8] * v2;
    const w1 = m[1] * v0 + m[5] * v1 + m[9] * v2;
    const w2 = m[2] * v0 + m[6] * v1 + m[10] * v2;
    const u0 = m[0] * w0 + m[1] * w1 + m[2] * w2;
    const u1 = m[4] * w0 + m[5] * w1 + m[6] * w2;
    const u2 = m[8] * w0 + m[9] * w1 + m[10] * w2;
    const norm = Math.hypot(u0, u1, u2);
    if (!(norm > 0)) return 0;
    s = Math.sqrt(norm / Math.hypot(v0, v1, v2));
    const n0 = u0 / norm, n1 = u1 / norm, n2 = u2 / norm;
    if (n0 === v0 && n1 === v1 && n2 === v2) break; // a fixed point: every further step gives this s
    v0 = n0, v1 = n1, v2 = n2;
  }
  return s * up[0] * up[1];
}

// a x b for 4x4 column-major matrices, each sum in the order gl-matrix's mat4.multiply takes it
// (getWorldMatrix multiplies with it), so that a world matrix made here has the same bits.
function multiply(a, b) {
  const out = new Array(16);
  for (let c = 0; c < 16; c += 4) {
    const b0 = b[c], b1 = b[c + 1], b2 = b[c + 2], b3 = b[c + 3];
    for (let r = 0; r < 4; r++) out[c + r] = b0 * a[r] + b1 * a[4 + r] + b2 * a[8 + r] + b3 * a[12 + r];
  }
  return out;
}

// The matrices that carry a node's mesh into world space: its world matrix; for a skinned mesh,
// whose node's own transform glTF ignores, each joint's world matrix times its inverse bind matrix
// (a vertex moves by a blend of them, which stretches no more than the one that stretches most,
// and lies in the box of its images under them). worlds: the world matrices made so far.
function drawMatrices(node, worlds) {
  const world = (n) => worlds.get(n) ?? n.getWorldMatrix();
  const skin = node.getSkin();
  const joints = skin ? skin.listJoints() : [];
  if (joints.length === 0) return [world(node)];
  const inverse = skin.getInverseBindMatrices()?.getArray() ?? null;
  return joints.map((joint, j) =>
    inverse && inverse.length >= 16 * (j + 1) ? multiply(world(joint), Array.from(inverse.subarray(16 * j, 16 * (j + 1)))) : world(joint));
}

// The scenes' bounding-box diagonal in world space, for relativeTo 'scene': the box glTF-Transform's
// getBounds gives each scene (every drawn vertex of every instance through its world matrix, a mesh
// instance left out when its box is not finite), without its cost per vertex and instance (seconds
// on a few thousand instances): each mesh's drawn vertices are decoded once, an instance whose
// matrix only scales and moves takes its mesh's box (m0 x + m12, rounded, is monotonic in x), and
// the world matrices are made top-down, a node's from its parent's, as getWorldMatrix makes them
// bottom-up. worlds (a Map) receives them, for meshScale. A skinned mesh is measured through its
// joints (drawMatrices), in the pose the nodes hold, once every node's matrix is made.
export function sceneDiagonal(document, worlds = new Map()) {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  const meshes = new Map();
  const low = new Float64Array(6); // an instance's box
  const drawn = []; // the nodes that draw a mesh
  const visit = (node, parent) => {
    // a scene's root asks glTF-Transform, which also follows a parent node it may have
    const m = parent ? multiply(parent, node.getMatrix()) : node.getWorldMatrix();
    worlds.set(node, m);
    for (const child of node.listChildren()) visit(child, m);
    if (node.getMesh()) drawn.push(node);
  };
  for (const scene of document.getRoot().listScenes()) for (const child of scene.listChildren()) visit(child, null);
  for (const node of drawn) {
    const mesh = node.getMesh();
    if (!meshes.has(mesh)) meshes.set(mesh, localVertices(mesh));
    const { points, box } = meshes.get(mesh);
    if (points === null) continue; // a box that no matrix makes finite
    for (const m of drawMatrices(node, worlds)) {
      // each world axis follows one local axis, up or down: the box's two corners; else every vertex
      const axial = m[1] === 0 && m[2] === 0 && m[3] === 0 && m[4] === 0 && m[6] === 0 && m[7] === 0 && m[8] === 0 && m[9] === 0 && m[11] === 0 && m[15] === 1;
      if (!instanceBox(axial ? box : points, axial ? 6 : points.length, m, low)) continue;
      const [x0, y0, z0, x1, y1, z1] = low;
      min[0] = Math.min(min[0], x0), min[1] = Math.min(min[1], y0), min[2] = Math.min(min[2], z0);
      max[0] = Math.max(max[0], x1), max[1] = Math.max(max[1], y1), max[2] = Math.max(max[2], z1);
    }
  }
  return Number.isFinite(min[0]) ? Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]) : 0;
}

// The box of the points [0, end) of from (x, y, z each) through the 4x4 column-major matrix m, each
// divided by w (1 where w is 0 or NaN) as gl-matrix's transformMat4 computes it, into out (low x, y,
// z, high x, y, z); false when it is not finite.
function instanceBox(from, end, m, out) {
  const [m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15] = m;
  let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
  for (let i = 0; i < end; i += 3) {
    const x = from[i], y = from[i + 1], z = from[i + 2];
    const w = m3 * x + m7 * y + m11 * z + m15 || 1;
    const wx = (m0 * x + m4 * y + m8 * z + m12) / w;
    const wy = (m1 * x + m5 * y + m9 * z + m13) / w;
    const wz = (m2 * x + m6 * y + m10 * z + m14) / w;
    x0 = Math.min(x0, wx), y0 = Math.min(y0, wy), z0 = Math.min(z0, wz);
    x1 = Math.max(x1, wx), y1 = Math.max(y1, wy), z1 = Math.max(z1, wz);
  }
  out[0] = x0, out[1] = y0, out[2] = z0, out[3] = x1, out[4] = y1, out[5] = z1;
  return Number.isFinite(x0) && Number.isFinite(y0) && Number.isFinite(z0) && Number.isFinite(x1) && Number.isFinite(y1) && Number.isFinite(z1);
}

// A mesh's drawn vertices (each primitive's indexed ones, or all), decoded as its shader sees them
// (a VEC2 position has z = 0), and their box; points null when a value is not finite or an index
// has no vertex, since no instance of it then has a finite box.
function localVertices(mesh) {
  const parts = [];
  const box = Float64Array.of(Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity);
  for (const primitive of mesh.listPrimitives()) {
    const position = primitive.getAttribute('POSITION');
    if (!position) continue;
    const array = position.getArray();
    const size = position.getElementSize();
    const count = position.getCount();
    const decode = position.getNormalized() && isIntegerArray(array) ? normalizer(array) : (v) => v;
    const indices = primitive.getIndices()?.getArray() ?? null;
    const drawn = indices === null ? null : new Uint8Array(count);
    if (indices) for (let j = 0; j < indices.length; j++) if (indices[j] < count) drawn[indices[j]] = 1; else return { points: null, box };
    const points = new Float64Array(3 * (drawn ? drawn.reduce((a, b) => a + b, 0) : count));
    for (let i = 0, o = 0; i < count; i++) {
      if (drawn && !drawn[i]) continue;
      for (let k = 0; k < 3; k++, o++) {
        const v = k < size ? decode(array[i * size + k]) : 0;
        points[o] = v;
        box[k] = Math.min(box[k], v);
        box[3 + k] = Math.max(box[3 + k], v);
      }
    }
    parts.push(points);
  }
  if (!box.every(Number.isFinite)) return { points: null, box };
  const points = new Float64Array(parts.reduce((n, part) => n + part.length, 0));
  parts.reduce((at, part) => (points.set(part, at), at + part.length), 0);
  return { points, box };
}

// A world-space radius in a mesh's own units: divided by the largest stretch of the nodes that
// draw it (of their joints, for a skinned mesh), so that no merge exceeds the radius in world
// space under any of them. worlds: the world
// matrices sceneDiagonal made (a node it did not reach asks glTF-Transform).
export function meshScale(mesh, worlds = new Map()) {
  let largest = 0;
  for (const parent of mesh?.listParents() ?? []) {
    if (parent.propertyType === PropertyType.NODE) for (const m of drawMatrices(parent, worlds)) largest = Math.max(largest, stretch(m));
  }
  return largest > 0 ? largest : 1;
}
