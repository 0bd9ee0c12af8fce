// Drawing geometry: where a cell key of meshweld's cells() lies, and the shape of a kd-tree.
// Nothing here decides a merge; it only turns what the module reports into shapes.

const SQRT3 = Math.sqrt(3);

/** Hex lattice point (i, j) for lattice spacing c: ((i + j/2) c, j sqrt(3)/2 c). */
export function hexCentre(i, j, c) {
  return [(i + j / 2) * c, (j * SQRT3 * c) / 2];
}

/**
 * The polygon of cell (i, j) of a method with cell size c (as cells() reports it), world units.
 * grid-r and grid: the square [i c, (i+1) c); grid-2r: the store square of side c centred on (i c, j c);
 * hex: the pointy-top hexagon of circumradius c / sqrt(3) around its lattice point (checked
 * against cells(): every point lies in the hexagon of its store key).
 */
export function cellPolygon(method, i, j, c) {
  if (method === 'grid-r' || method === 'grid') return [[i * c, j * c], [(i + 1) * c, j * c], [(i + 1) * c, (j + 1) * c], [i * c, (j + 1) * c]];
  if (method === 'grid-2r') {
    const h = c / 2;
    return [[i * c - h, j * c - h], [i * c + h, j * c - h], [i * c + h, j * c + h], [i * c - h, j * c + h]];
  }
  if (method === 'hex') {
    const [x, y] = hexCentre(i, j, c);
    const R = c / SQRT3;
    return Array.from({ length: 6 }, (_, k) => {
      const a = Math.PI / 6 + (k * Math.PI) / 3;
      return [x + R * Math.cos(a), y + R * Math.sin(a)];
    });
  }
  return [];
}

export function cellCentre(method, i, j, c) {
  if (method === 'grid-r' || method === 'grid') return [(i + 0.5) * c, (j + 0.5) * c];
  if (method === 'grid-2r') return [i * c, j * c];
  return hexCentre(i, j, c);
}

/**
 * Segments (x0, y0, x1, y1) of the whole tiling of a method over a box, world units: for grid-2r
 * the store grid, with `search: true` the search grid offset by half a cell.
 */
export function tilingSegments(method, c, box, { search = false } = {}) {
  const [x0, y0, x1, y1] = box;
  const segments = [];
  if (method === 'grid-r' || method === 'grid-2r' || method === 'grid') {
    const shift = method === 'grid-2r' && !search ? 0.5 : 0;
    for (let i = Math.floor(x0 / c - shift); (i + shift) * c <= x1; i++) segments.push([(i + shift) * c, y0, (i + shift) * c, y1]);
    for (let j = Math.floor(y0 / c - shift); (j + shift) * c <= y1; j++) segments.push([x0, (j + shift) * c, x1, (j + shift) * c]);
  } else if (method === 'hex') {
    // three edges per hexagon (top, upper-left, lower-left) cover each shared edge once
    const R = c / SQRT3, dy = (SQRT3 * c) / 2;
    for (let j = Math.floor(y0 / dy) - 1; j * dy <= y1 + dy; j++) {
      for (let i = Math.floor(x0 / c - j / 2) - 1; (i + j / 2) * c <= x1 + c; i++) {
        const [x, y] = hexCentre(i, j, c);
        const v = (k) => [x + R * Math.cos(Math.PI / 6 + (k * Math.PI) / 3), y + R * Math.sin(Math.PI / 6 + (k * Math.PI) / 3)];
        for (const [a, b] of [[1, 2], [2, 3], [3, 4]]) segments.push([...v(a), ...v(b)]);
      }
    }
  }
  return segments;
}

/**
 * The shape of a kd-tree over points (x, y pairs): median splits, the axis of the longer side of
 * each node's box, down to leaves of at most `leaf` points or `maxDepth` levels.
 * Returns { splits: [[x0, y0, x1, y1, depth]], leaves: [[x0, y0, x1, y1]] }.
 */
export function kdShape(points, box, { leaf = 8, maxDepth = 11 } = {}) {
  const n = points.length / 2;
  const ids = new Uint32Array(n);
  for (let i = 0; i < n; i++) ids[i] = i;
  const splits = [], leaves = [];
  const stack = [[0, n, box, 0]];
  while (stack.length) {
    const [lo, hi, b, depth] = stack.pop();
    if (hi - lo <= leaf || depth >= maxDepth) {
      leaves.push(b);
      continue;
    }
    const axis = b[2] - b[0] >= b[3] - b[1] ? 0 : 1;
    const mid = (lo + hi) >> 1;
    select(ids, points, axis, lo, hi - 1, mid);
    const v = points[ids[mid] * 2 + axis];
    if (axis === 0) {
      splits.push([v, b[1], v, b[3], depth]);
      stack.push([lo, mid, [b[0], b[1], v, b[3]], depth + 1], [mid, hi, [v, b[1], b[2], b[3]], depth + 1]);
    } else {
      splits.push([b[0], v, b[2], v, depth]);
      stack.push([lo, mid, [b[0], b[1], b[2], v], depth + 1], [mid, hi, [b[0], v, b[2], b[3]], depth + 1]);
    }
  }
  return { splits, leaves };
}

// Quickselect: ids[lo..hi] reordered so that ids[k] holds the k-th smallest coordinate.
function select(ids, points, axis, lo, hi, k) {
  while (hi > lo) {
    const pivot = points[ids[(lo + hi) >> 1] * 2 + axis];
    let i = lo, j = hi;
    while (i <= j) {
      while (points[ids[i] * 2 + axis] < pivot) i++;
      while (points[ids[j] * 2 + axis] > pivot) j--;
      if (i <= j) {
        const t = ids[i];
        ids[i++] = ids[j];
        ids[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

/** Does the box [x0, y0, x1, y1] meet the disc of radius r around (x, y)? */
export function boxMeetsDisc(b, x, y, r) {
  const dx = Math.max(b[0] - x, 0, x - b[2]), dy = Math.max(b[1] - y, 0, y - b[3]);
  return dx * dx + dy * dy <= r * r;
}
