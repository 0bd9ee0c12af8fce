// The world-space measures of a glTF-Transform document that the transform's relativeTo 'scene'
// needs: the scenes' bounding-box diagonal, and how much the nodes that draw a mesh stretch it.
// Not part of the public API.
import { PropertyType } from '@gltf-transform/core';
import { isIntegerArray, normalizer } from './points.js';

// Largest stretch (spectral norm) of a 4x4 column-major matrix's linear part: power iteration on
// MᵀM, in scalars, until its vector stops moving (a scene of thousands of nodes calls it once per
// node).
function stretch(m) {
  let [v0, v1, v2] = [1, 0.7, 0.3];
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
    const [n0, n1, n2] = [u0 / norm, u1 / norm, u2 / norm];
    if (n0 === v0 && n1 === v1 && n2 === v2) break; // a fixed point: every further step gives this s
    [v0, v1, v2] = [n0, n1, n2];
  }
  return s;
}

// The scenes' bounding-box diagonal in world space, for relativeTo 'scene': the box glTF-Transform's
// getBounds gives each scene (every drawn vertex of every instance through its world matrix, a mesh
// instance left out when its box is not finite), without its cost per vertex and instance (seconds
// on a few thousand instances): each mesh's drawn vertices are decoded once, and an instance whose
// matrix only scales and moves takes its mesh's box (m0 x + m12, rounded, is monotonic in x).
export function sceneDiagonal(document) {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  const meshes = new Map();
  const world = [0, 0, 0];
  for (const scene of document.getRoot().listScenes())
    for (const child of scene.listChildren())
      child.traverse((node) => {
        const mesh = node.getMesh();
        if (!mesh) return;
        if (!meshes.has(mesh)) meshes.set(mesh, localVertices(mesh));
        const { points, box } = meshes.get(mesh);
        if (points === null) return; // a box that no matrix makes finite
        const m = node.getWorldMatrix();
        const low = [Infinity, Infinity, Infinity];
        const high = [-Infinity, -Infinity, -Infinity];
        const expand = (x, y, z) => {
          transform(world, x, y, z, m);
          for (let k = 0; k < 3; k++) low[k] = Math.min(low[k], world[k]), high[k] = Math.max(high[k], world[k]);
        };
        if (m[1] === 0 && m[2] === 0 && m[3] === 0 && m[4] === 0 && m[6] === 0 && m[7] === 0 && m[8] === 0 && m[9] === 0 && m[11] === 0 && m[15] === 1) {
          expand(box[0], box[1], box[2]); // each world axis follows one local axis, up or down
          expand(box[3], box[4], box[5]);
        } else {
          for (let i = 0; i < points.length; i += 3) expand(points[i], points[i + 1], points[i + 2]);
        }
        if (!low.every(Number.isFinite) || !high.every(Number.isFinite)) return;
        for (let k = 0; k < 3; k++) min[k] = Math.min(min[k], low[k]), max[k] = Math.max(max[k], high[k]);
      });
  return Number.isFinite(min[0]) ? Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]) : 0;
}

// out = the point (x, y, z) through the 4x4 column-major matrix m, divided by w (1 where w is 0 or
// NaN), as gl-matrix's transformMat4 computes it.
function transform(out, x, y, z, m) {
  const w = m[3] * x + m[7] * y + m[11] * z + m[15] || 1;
  out[0] = (m[0] * x + m[4] * y + m[8] * z + m[12]) / w;
  out[1] = (m[1] * x + m[5] * y + m[9] * z + m[13]) / w;
  out[2] = (m[2] * x + m[6] * y + m[10] * z + m[14]) / w;
}

// A mesh's drawn vertices (each primitive's indexed ones, or all), decoded as its shader sees them
// (a VEC2 position has z = 0), and their box; points null when a value is not finite or an index
// has no vertex, since no instance of it then has a finite box.
function localVertices(mesh) {
  const parts = [];
  const box = [Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity];
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
// draw it, so that no merge exceeds the radius in world space under any of them.
export function meshScale(mesh) {
  let largest = 0;
  for (const parent of mesh?.listParents() ?? []) {
    if (parent.propertyType === PropertyType.NODE) largest = Math.max(largest, stretch(parent.getWorldMatrix()));
  }
  return largest > 0 ? largest : 1;
}
