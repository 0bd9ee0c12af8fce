// The naive-port baseline: the reference article's 2r grid (cells of side 2r, a store grid
// offset by r, 2^dim look-ups, one point per cell, the "loose" rule) written the way a JavaScript
// developer would port its pseudocode: a Map keyed by the cell's coordinates as a string.
// No exact-duplicate pass, no care for rounding at cell borders: the article's method as written.

/**
 * Welds points (n * dim floats). Returns { remap, count, positions } like meshweld's weld: the
 * remap numbers outputs in order of first appearance, positions are the kept (first) points.
 */
export function articleWeld(points, dim, r) {
  const n = points.length / dim;
  const store = new Map(); // "i,j[,k]" -> output index
  const remap = new Uint32Array(n);
  const kept = [];
  const size = 2 * r;
  for (let p = 0; p < n; p++) {
    const x = points[p * dim];
    const y = points[p * dim + 1];
    const z = dim === 3 ? points[p * dim + 2] : 0;
    const cx = Math.floor(x / size);
    const cy = Math.floor(y / size);
    const cz = Math.floor(z / size);
    let found;
    search: for (let dx = 0; dx <= 1; dx++) {
      for (let dy = 0; dy <= 1; dy++) {
        for (let dz = 0; dz <= (dim === 3 ? 1 : 0); dz++) {
          const key = dim === 3 ? `${cx + dx},${cy + dy},${cz + dz}` : `${cx + dx},${cy + dy}`;
          found = store.get(key);
          if (found !== undefined) break search;
        }
      }
    }
    if (found !== undefined) {
      remap[p] = found;
      continue;
    }
    const sx = Math.floor(x / size + 0.5);
    const sy = Math.floor(y / size + 0.5);
    const sz = Math.floor(z / size + 0.5);
    const index = kept.length / dim;
    store.set(dim === 3 ? `${sx},${sy},${sz}` : `${sx},${sy}`, index);
    remap[p] = index;
    for (let a = 0; a < dim; a++) kept.push(points[p * dim + a]);
  }
  return { remap, count: kept.length / dim, positions: new Float32Array(kept) };
}
