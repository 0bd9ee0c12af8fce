// The point sets of the playground: a seeded generator per preset, in world units (a 100 x 60
// field). Every preset returns a Float32Array of x, y pairs.

export const WORLD = { width: 100, height: 60 };

export const presets = {
  uniform: 'uniform random',
  procgen: 'procgen patches',
  row: 'a row, r apart',
  lattice: 'dense lattice',
  clusters: 'clusters + outliers',
};

// Presets whose layout depends on r (they are rebuilt when r moves).
export const dependsOnRadius = new Set(['row', 'lattice']);

export function mulberry32(seed) {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function generate(preset, seed, n, r) {
  const random = mulberry32(seed * 7919 + 17);
  const out = [];
  const push = (x, y) => out.push(x, y);
  const { width: W, height: H } = WORLD;
  if (preset === 'uniform') {
    for (let i = 0; i < n; i++) push(1 + random() * (W - 2), 1 + random() * (H - 2));
  } else if (preset === 'procgen') {
    // 3 x 2 tiles generated one after the other, each a jittered lattice that includes its own
    // border: neighbouring tiles both emit the shared border, a hair apart.
    const cols = 3, rows = 2, x0 = 4, y0 = 4, tw = (W - 8) / cols, th = (H - 8) / rows;
    // spacing s such that each tile's (tw/s + 1)(th/s + 1) points add up to about n
    const k = Math.max(n / (cols * rows) - 1, 0.5);
    const spacing = (tw + th + Math.sqrt((tw + th) ** 2 + 4 * k * tw * th)) / (2 * k);
    const nx = Math.max(1, Math.round(tw / spacing)), ny = Math.max(1, Math.round(th / spacing));
    for (let ty = 0; ty < rows; ty++)
      for (let tx = 0; tx < cols; tx++) {
        const wobble = random() * Math.PI * 2;
        for (let j = 0; j <= ny; j++)
          for (let i = 0; i <= nx; i++) {
            const border = i === 0 || j === 0 || i === nx || j === ny;
            const jitter = border ? 0.12 : 0.2 * spacing;
            const bend = border ? 0 : 0.15 * spacing * Math.sin(wobble + i * 0.9 + j * 0.7);
            push(x0 + (tx + i / nx) * tw + (random() - 0.5) * jitter + bend,
              y0 + (ty + j / ny) * th + (random() - 0.5) * jitter);
          }
      }
  } else if (preset === 'row') {
    // rows of points exactly r apart (r is a multiple of 1/32, so every coordinate and every
    // difference is exact in float32), the rows 2r apart, filled outward from the middle
    const perRow = Math.floor((W - 10) / r) + 1;
    for (let k = 0; out.length / 2 < n; k++) {
      const y = H / 2 + (k % 2 ? -1 : 1) * Math.ceil(k / 2) * 2 * r;
      if (y < 1 || y > H - 1) break;
      for (let i = 0; i < perRow && out.length / 2 < n; i++) push(5 + i * r, y);
    }
  } else if (preset === 'lattice') {
    // a square lattice of spacing 3r/4, as square as the field allows
    const s = 0.75 * r;
    const maxX = Math.floor((W - 4) / s) + 1, maxY = Math.floor((H - 4) / s) + 1;
    const side = Math.ceil(Math.sqrt(n));
    const nx = Math.min(maxX, Math.max(side, Math.ceil(n / maxY))), ny = Math.min(maxY, Math.ceil(n / nx));
    const ox = (W - (nx - 1) * s) / 2, oy = (H - (ny - 1) * s) / 2;
    for (let j = 0; j < ny; j++)
      for (let i = 0; i < nx && out.length / 2 < n; i++) push(ox + i * s, oy + j * s);
  } else if (preset === 'clusters') {
    const clusters = Math.max(3, Math.min(40, Math.round(n / 60)));
    const centres = Array.from({ length: clusters }, () => [12 + random() * (W - 24), 10 + random() * (H - 20)]);
    const outliers = Math.max(2, Math.round(n * 0.02));
    for (let i = 0; i < n - outliers; i++) {
      const [cx, cy] = centres[i % clusters];
      const a = random() * Math.PI * 2, d = 1.6 * Math.sqrt(-2 * Math.log(1 - random()));
      push(cx + d * Math.cos(a), cy + d * Math.sin(a));
    }
    // far outliers: along the edges of the field, far from every cluster
    for (let i = 0; i < outliers; i++) {
      const t = random();
      const edge = i % 4;
      push(edge < 2 ? 0.5 + t * (W - 1) : edge === 2 ? 0.5 : W - 0.5, edge === 0 ? 0.5 : edge === 1 ? H - 0.5 : 0.5 + t * (H - 1));
    }
  } else {
    throw new RangeError(`unknown preset ${preset}`);
  }
  return Float32Array.from(out);
}
