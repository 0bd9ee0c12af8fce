// Writes the seed corpus of the fuzz targets, tests/fuzz/corpus/<target>/, in the byte format each
// target reads (see tests/fuzz/fuzz.h, fz_points, and the comment at the top of each target).
// Deterministic: the same files on every run. `node tests/fuzz/make-corpus.mjs`
// Inputs a fuzzer found and that are kept as regressions are named found-*: they are left as they
// are.
//
// The seeds are what a fuzzer would take long to build from nothing: a few hundred points of
// uniform data, lattices on cell boundaries, exact duplicates with -0 and +0, pairs exactly r
// apart, clusters (some millions of cells apart), huge coordinates with a tiny radius, denormals,
// NaN and infinities, every method and store in 2D and 3D, allocation failures, and for the mesh
// layer real index buffers.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

let state = 0x1234567;
function random() {
  // mulberry32
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (n) => Math.floor(random() * n);

// indices into fz_radii in fuzz.h
const RADIUS = { 0: 0, 1e-45: 1, 1e-40: 2, FLT_MIN: 3, 1e-30: 4, 1e-12: 5, 1e-7: 6, 1e-5: 7, 1e-3: 8, 0.01: 9, 0.1: 10,
  0.25: 11, 0.3: 12, 0.5: 13, 1: 14, 1.5: 15, 2: 16, 10: 17, 1000: 18, 1e7: 19, 1e20: 20, 1e30: 21, 1e38: 22, FLT_MAX: 23 };
const METHODS = { auto: 0, naive: 1, 'grid-r': 2, 'grid-2r': 3, hex: 4, bcc: 5, kdtree: 6, grid: 7 };

class Bytes {
  constructor(dim = 3) {
    this.bytes = [];
    this.points = 0;
    this.dim = dim;
  }
  u8(v) {
    this.bytes.push(v & 255);
    return this;
  }
  u16(v) {
    return this.u8(v).u8(v >>> 8);
  }
  u32(v) {
    return this.u16(v & 0xffff).u16(v >>> 16);
  }
  f32(v) {
    const b = new DataView(new ArrayBuffer(4));
    b.setFloat32(0, v, true);
    return this.u32(b.getUint32(0, true));
  }
  // a point: mode byte, then (after the first point) the index of an earlier point. The modes
  // that start from an earlier point make the first point a plain one instead: returns false.
  #start(mode, earlier = 0) {
    if (this.points === 0 && (mode & 7) >= 3) {
      this.raw([0, 0, 0].slice(0, this.dim));
      return false;
    }
    this.u8(mode);
    if (this.points > 0) this.u16(earlier % this.points);
    this.points++;
    return true;
  }
  raw(coords) {
    this.#start(0);
    for (const v of coords) this.u8(176).f32(v); // selector 176..207: the float's bits
    return this;
  }
  halves(ks) {
    this.#start(1);
    for (const k of ks) this.u8(int(96)).u8(k); // k * r / 2
    return this;
  }
  special(indices) {
    this.#start(2);
    for (const k of indices) this.u8(160).u8(k); // fz_specials[k]
    return this;
  }
  copy(earlier, flips = 0) {
    this.#start(3 | (flips << 3), earlier);
    return this;
  }
  plusR(earlier, bits) {
    this.#start(4 | (bits << 3), earlier);
    return this;
  }
  direction(earlier, d, inside = true) {
    if (this.#start(5 | (inside ? 8 : 0), earlier)) for (const v of d) this.u8(v);
    return this;
  }
  near(earlier, offsets) {
    if (this.#start(6, earlier)) for (const v of offsets) this.u8(v);
    return this;
  }
  lattice(step, ks) {
    if (this.#start(7 | (step << 3), 0)) for (const k of ks) this.u8(k);
    return this;
  }
}

// point sets, written into a Bytes after its header
const sets = {
  uniform(b, dim, n, extent) {
    for (let i = 0; i < n; i++) b.raw(Array.from({ length: dim }, () => Math.fround(random() * extent)));
  },
  lattice(b, dim, n) {
    for (let i = 0; i < n; i++) b.lattice(int(8), Array.from({ length: dim }, () => int(24) - 12));
  },
  duplicates(b, dim, n) {
    b.raw(Array(dim).fill(0));
    for (let i = 1; i < n; i++) {
      if (i % 3 === 0) b.halves(Array.from({ length: dim }, () => int(5) - 2));
      else b.copy(int(i), int(8));
    }
  },
  pairs(b, dim, n) {
    b.raw(Array.from({ length: dim }, () => Math.fround(random() * 4)));
    for (let i = 1; i < n; i++) {
      if (i % 2) b.direction(int(i), [int(256), int(256), int(256)].slice(0, dim), i % 4 === 1);
      else b.plusR(int(i), int(32));
    }
  },
  clusters(b, dim, n) {
    for (let i = 0; i < n; i++) {
      if (i % 10 === 0) b.raw(Array.from({ length: dim }, () => Math.fround(random() * 50)));
      else b.near(i - (i % 10), Array.from({ length: dim }, () => int(256)));
    }
  },
  huge(b, dim, n) {
    // fz_specials 22..31 are huge: 1e10 .. FLT_MAX and the grid's edge
    for (let i = 0; i < n; i++) {
      if (i % 4 === 3) b.copy(int(i), int(8));
      else b.special(Array.from({ length: dim }, () => (random() < 0.6 ? 22 + int(10) : int(22))));
    }
  },
  nonfinite(b, dim, n) {
    for (let i = 0; i < n; i++) {
      if (i === n - 2) b.special(Array.from({ length: dim }, (_, a) => (a === dim - 1 ? 32 + int(4) : int(22))));
      else b.halves(Array.from({ length: dim }, () => int(16) - 8));
    }
  },
  // clusters millions of cells apart, points a few r apart: 3D cell keys of more than 64 bits
  farClusters(b, dim, n) {
    const centres = Array.from({ length: 5 }, () => Array.from({ length: dim }, () => Math.fround((random() - 0.5) * 2e6)));
    for (let i = 0; i < n; i++) b.raw(centres[Math.floor((i * 5) / n)].map((c) => Math.fround(c + random() * 0.5)));
  },
  denormal(b, dim, n) {
    // fz_specials 10..13: +-1e-45, 3e-45, 1e-40; 8, 9: +-FLT_MIN; 0, 1: +-0
    const tiny = [0, 1, 8, 9, 10, 11, 12, 13];
    for (let i = 0; i < n; i++) b.special(Array.from({ length: dim }, () => tiny[int(tiny.length)]));
  },
};

const corpora = { weld: [], welder: [], mesh: [], query: [] };

function weldHeader(method, store, dim, radius, { layout = 0, flags = 0, plan = 0 } = {}) {
  return new Bytes(dim).u8(METHODS[method]).u8(store).u8(dim === 2 ? 1 : 7).u8(RADIUS[radius]).u8(layout).u8(flags).u8(plan);
}

// ---- weld: every method and store, in 2D and 3D, on each kind of data ----
const methodsOf = (dim) => Object.keys(METHODS).filter((m) => !(m === 'hex' && dim === 3) && !(m === 'bcc' && dim === 2));
for (const dim of [2, 3]) {
  for (const method of methodsOf(dim)) {
    for (const store of [0, 1]) {
      let b = weldHeader(method, store, dim, 0.25);
      sets.uniform(b, dim, 90, 3);
      corpora.weld.push([`uniform-${method}-${store ? 'precise' : 'loose'}-${dim}d`, b]);
      b = weldHeader(method, store, dim, 0.5, { layout: 1 }); // stride dim + 1
      sets.lattice(b, dim, 120);
      corpora.weld.push([`lattice-${method}-${store ? 'precise' : 'loose'}-${dim}d`, b]);
    }
    let b = weldHeader(method, int(2), dim, 0.1);
    sets.pairs(b, dim, 120);
    corpora.weld.push([`pairs-r-apart-${method}-${dim}d`, b]);
    b = weldHeader(method, int(2), dim, 1);
    sets.duplicates(b, dim, 150);
    corpora.weld.push([`duplicates-signed-zero-${method}-${dim}d`, b]);
    b = weldHeader(method, int(2), dim, 0.3, { plan: 192 + int(8) });
    sets.clusters(b, dim, 100);
    corpora.weld.push([`clusters-failing-allocation-${method}-${dim}d`, b]);
    b = weldHeader(method, 0, dim, 1e-3, { flags: 0x18 }); // huge values allowed
    sets.huge(b, dim, 40);
    corpora.weld.push([`huge-tiny-radius-${method}-${dim}d`, b]);
  }
  for (const [name, radius] of [['radius-zero', 0], ['radius-denormal', 1e-45], ['radius-flt-min', 'FLT_MIN'], ['radius-1e-40', 1e-40]]) {
    const b = weldHeader(['auto', 'grid-r', 'kdtree'][int(3)], int(2), dim, radius);
    sets.denormal(b, dim, 60);
    corpora.weld.push([`denormals-${name}-${dim}d`, b]);
  }
  let b = weldHeader('grid-2r', 0, dim, 'FLT_MAX', { flags: 0x18 });
  sets.uniform(b, dim, 30, 1e37);
  corpora.weld.push([`radius-flt-max-${dim}d`, b]);
  b = weldHeader('auto', 1, dim, 10);
  sets.uniform(b, dim, 50, 1);
  corpora.weld.push([`radius-beyond-extent-${dim}d`, b]);
  for (const method of ['grid-2r', 'kdtree']) {
    b = weldHeader(method, 0, dim, 0.25, { flags: 7 }); // non-finite values allowed
    sets.nonfinite(b, dim, 40);
    corpora.weld.push([`nonfinite-${method}-${dim}d`, b]);
  }
  b = weldHeader('auto', 0, dim, 0.25, { layout: 0x1c | (int(8) << 5) }); // a bad stride
  sets.uniform(b, dim, 10, 2);
  corpora.weld.push([`bad-stride-${dim}d`, b]);
  b = weldHeader('grid-r', 0, dim, 0.25, { flags: 0xc0 }); // a count whose byte size overflows
  sets.uniform(b, dim, 4, 2);
  corpora.weld.push([`count-overflow-${dim}d`, b]);
  b = weldHeader('hex', 0, dim, 0.25, { flags: 0xe0 }); // a NULL buffer (and hex in 3D)
  sets.uniform(b, dim, 4, 2);
  corpora.weld.push([`null-buffer-${dim}d`, b]);
}
// a NaN after a coordinate beyond every grid (fz_specials 24 is 1e30, 32 NaN): auto must refuse it
for (const dim of [2, 3])
  for (const method of ['auto', 'grid', 'kdtree']) {
    const b = weldHeader(method, 1, dim, 1e-5, { flags: 0x1f, plan: 0x40 }); // non-finite and huge values; weldKept
    b.raw([0, 0, 0].slice(0, dim)).special([24, 0, 0].slice(0, dim)).special([0, 32, 0].slice(0, dim)).raw([1, 1, 1].slice(0, dim));
    corpora.weld.push([`late-nan-${method}-${dim}d`, b]);
  }
corpora.weld.push(['empty', weldHeader('auto', 0, 3, 1)]);
corpora.weld.push(['one-point', weldHeader('bcc', 1, 3, 1).raw([1, 2, 3])]);
corpora.weld.push(['bad-options', new Bytes().u8(0xff).u8(0xff).u8(0xff).u8(250).u8(0).u8(0).u8(0).raw([0, 0, 0])]);

// ---- welder: several batches with planted errors ----
function welderHeader(method, store, dim, radius, batches, { flags = 0, plan = 0 } = {}) {
  const b = weldHeader(method, store, dim, radius, { flags, plan });
  b.u8(batches.length - 1);
  for (const [size, action, extra] of batches) b.u16(size).u8(action).u8(extra);
  return b;
}
const PLAIN = 0, NAN_PLANTED = 170, FAIL = 200, STRIDE = 230, EMPTY = 250;
for (const dim of [2, 3]) {
  for (const method of methodsOf(dim)) {
    for (const store of [0, 1]) {
      const batches = [[20, PLAIN, 0], [1, NAN_PLANTED, int(256)], [35, FAIL, int(64)], [0, EMPTY, 0], [50, STRIDE, int(8)], [0, PLAIN, 0]];
      let b = welderHeader(method, store, dim, 0.25, batches);
      sets.clusters(b, dim, 120);
      corpora.welder.push([`batches-${method}-${store ? 'precise' : 'loose'}-${dim}d`, b]);
    }
  }
  // auto meets huge coordinates in a later batch: it switches to the kd-tree for good, and a
  // failed allocation in that batch (the 2nd, 4th, 6th or 9th) must leave it as it was
  for (const store of [0, 1])
    for (const fail of [1, 3, 5, 8]) {
      const b = welderHeader('auto', store, dim, 1e-3, [[30, PLAIN, 0], [30, FAIL, fail], [30, PLAIN, 0]], { flags: 0x18 });
      sets.uniform(b, dim, 30, 0.05);
      sets.huge(b, dim, 30);
      sets.pairs(b, dim, 30);
      corpora.welder.push([`auto-switches-${store ? 'precise' : 'loose'}-failing-${fail}-${dim}d`, b]);
    }
  const b = welderHeader('kdtree', 0, dim, 0, [[10, PLAIN, 0], [10, PLAIN, 0], [10, FAIL, 3], [10, PLAIN, 0]]);
  sets.duplicates(b, dim, 40);
  corpora.welder.push([`radius-zero-${dim}d`, b]);
}

// ---- mesh: index buffers and attributes ----
function trianglesSeed(vertexCount, flags, mode, remapFn, indices, plan = 0) {
  const b = new Bytes().u8(0).u16(vertexCount).u8(flags).u8(mode).u8(plan);
  for (let v = 0; v < vertexCount; v++) {
    const r = remapFn(v);
    if (r === 'self') b.u8(210);
    else b.u8(0).u8(r);
  }
  if ((mode & 7) === 0) return b.u16(indices); // the soup: its index count
  for (const i of indices) {
    if (typeof i === 'number') b.u8(0).u16(i);
    else b.u8(216 + i.special); // vertex_count, +1, -1, UINT32_MAX, 0x80000000, 0, raw, UINT32_MAX - 1
  }
  return b;
}
{
  const quads = [];
  for (let q = 0; q < 30; q++) quads.push(4 * q, 4 * q + 1, 4 * q + 2, 4 * q, 4 * q + 2, 4 * q + 3);
  const rotations = [0, 1, 2, 1, 2, 0, 2, 0, 1, 2, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 3, 3, 3];
  for (const flags of [0, 1, 2, 3]) {
    corpora.mesh.push([`quads-flags-${flags}`, trianglesSeed(120, flags, 0x10 | 1, (v) => (v % 7 === 0 ? 'self' : v % 50), quads)]);
    corpora.mesh.push([`rotations-flags-${flags}`, trianglesSeed(4, flags, 0x10 | 2, () => 'self', rotations)]);
  }
  corpora.mesh.push(['in-place-duplicates', trianglesSeed(60, 2, 0x18 | 1, (v) => v % 20, quads.slice(0, 90), 192 + 1)]);
  corpora.mesh.push(['soup', trianglesSeed(90, 0, 0x10, (v) => v % 31, 90)]);
  corpora.mesh.push(['soup-longer-than-vertices', trianglesSeed(10, 0, 0, () => 'self', 15)]);
  corpora.mesh.push(['index-out-of-range', trianglesSeed(6, 0, 0x10 | 1, () => 'self', [0, 1, 2, 3, 4, { special: 0 }, 5, { special: 3 }, 1])]);
  corpora.mesh.push(['index-count-not-multiple-of-3', trianglesSeed(6, 0, 1, () => 'self', [0, 1, 2, 3])]);
  corpora.mesh.push(['empty-indices', trianglesSeed(0, 0, 0x81, () => 0, [])]);
}
function attributesSeed(dim, radius, method, layout, flags, plan, attributes, points) {
  // attributes: [sizeByte, toleranceByte] pairs
  const b = new Bytes(dim).u8(1).u8(dim === 2 ? 1 : 7).u8(RADIUS[radius]).u8(METHODS[method]).u8(layout).u8(flags).u8(plan).u8(attributes.length);
  for (const [a, t] of attributes) b.u8(a).u8(t);
  b.u16(points.count);
  points.write(b);
  b.u32(0x9e3779b9);
  for (let i = 0; i < 400; i++) b.u8(int(256));
  return b;
}
for (const dim of [2, 3]) {
  // normal (3 floats, tolerance 0.05 = index 4) and uv (2 floats, tolerance 1e-6 = index 2, or 0)
  const normalUv = [[2, 4 << 1], [1, 2 << 1]];
  const soup = { count: 150, write: (b) => sets.duplicates(b, dim, 150) };
  corpora.mesh.push([`attributes-normal-uv-${dim}d`, attributesSeed(dim, 0.25, 'auto', 0, 0, 0, normalUv, soup)]);
  corpora.mesh.push([`attributes-kdtree-${dim}d`, attributesSeed(dim, 0.25, 'kdtree', 1, 0, 192, normalUv, soup)]);
  corpora.mesh.push([`attributes-radius-zero-${dim}d`, attributesSeed(dim, 0, 'auto', 0, 0, 0, [[0, 0]], soup)]);
  corpora.mesh.push([`attributes-huge-${dim}d`, attributesSeed(dim, 1e-3, 'auto', 0, 0x18, 0, [[2, 3 << 1]], { count: 40, write: (b) => sets.huge(b, dim, 40) })]);
  corpora.mesh.push([`attributes-nonfinite-${dim}d`, attributesSeed(dim, 0.1, 'auto', 0, 7, 0, [[3, 5 << 1]], { count: 40, write: (b) => sets.nonfinite(b, dim, 40) })]);
  corpora.mesh.push([`attributes-bad-${dim}d`, attributesSeed(dim, 0.1, 'grid-r', 0, 0, 0, [[0xf0, 0], [2, 121 << 1], [1, 255]], { count: 10, write: (b) => sets.uniform(b, dim, 10, 1) })]);
  corpora.mesh.push([`attributes-none-${dim}d`, attributesSeed(dim, 0.5, 'auto', 2, 0, 0, [], { count: 100, write: (b) => sets.clusters(b, dim, 100) })]);
}

// ---- query: close pairs, cells, gather, names ----
for (const dim of [2, 3]) {
  let b = new Bytes(dim).u8(0).u8(dim === 2 ? 1 : 7).u8(RADIUS[0.25]).u8(0).u8(0).u8(0).u8(0);
  sets.pairs(b, dim, 150);
  corpora.query.push([`pairs-${dim}d`, b]);
  b = new Bytes(dim).u8(0).u8(dim === 2 ? 1 : 7).u8(RADIUS[1]).u8(1).u8(0).u8(0).u8(200);
  sets.duplicates(b, dim, 150);
  corpora.query.push([`pairs-limit-${dim}d`, b]);
  b = new Bytes(dim).u8(0).u8(dim === 2 ? 1 : 7).u8(RADIUS[0.1]).u8(0).u8(7).u8(0).u8(0);
  sets.nonfinite(b, dim, 30);
  corpora.query.push([`pairs-nonfinite-${dim}d`, b]);
  for (const radius of [0.25, 1e-3, 'FLT_MIN']) {
    b = new Bytes(dim).u8(1).u8(dim === 2 ? 1 : 7).u8(RADIUS[radius]).u8(radius === 0.25 ? 0 : 0x18);
    if (radius === 0.25) sets.pairs(b, dim, 64);
    else sets.huge(b, dim, 64);
    corpora.query.push([`cells-${radius}-${dim}d`, b]);
  }
  b = new Bytes(dim).u8(1).u8(dim === 2 ? 1 : 7).u8(RADIUS[0.5]).u8(0);
  sets.lattice(b, dim, 64);
  corpora.query.push([`cells-lattice-${dim}d`, b]);
  for (const centroid of [0, 1]) {
    b = new Bytes(dim).u8(2).u8(dim === 2 ? 1 : 7).u8(1).u8(20).u8(centroid).u8(0).u8(100);
    sets.clusters(b, dim, 100);
    for (let i = 0; i < 100; i++) b.u8(int(20));
    corpora.query.push([`gather-${centroid ? 'centroid' : 'first'}-${dim}d`, b]);
    b = new Bytes(dim).u8(2).u8(dim === 2 ? 1 : 7).u8(0).u8(224 + int(8)).u8(centroid).u8(0).u8(10);
    sets.uniform(b, dim, 10, 1);
    for (let i = 0; i < 10; i++) b.u8(int(4));
    corpora.query.push([`gather-huge-count-${centroid ? 'centroid' : 'first'}-${dim}d`, b]);
  }
}
for (let k = 0; k < 8; k++) {
  const b = new Bytes().u8(3).u8(int(256)).u8(int(256)).u8(int(256)).u8(k & 1).u8(int(224)).u8(7);
  for (const c of ['grid-2r', 'kdtree', 'hexagon', 'auto', 'bcc', 'naive', 'grid-r', 'hex'][k]) b.u8(c.charCodeAt(0) & 0xfe);
  b.u32(-int(20));
  corpora.query.push([`names-${k}`, b]);
}

// (added last, so that the random numbers of the seeds above stay as they were)
for (const dim of [2, 3]) {
  const b = weldHeader('grid', 1, dim, 0.1);
  sets.farClusters(b, dim, 100);
  corpora.weld.push([`far-clusters-${dim}d`, b]);
}

// cells of points billions of cells from the origin, with r = 1e-7: the hexagons' skewed keys
// still fit int past 2^31 cells along x, BCC's half-cell keys stop fitting at 2^30
for (const dim of [2, 3]) {
  const b = new Bytes(dim).u8(1).u8(dim === 2 ? 1 : 7).u8(RADIUS[1e-7]).u8(0);
  b.raw([785.06665, 515.058777, 0].slice(0, dim));
  for (const v of [100, 300, 500, 700, 745, 760, 800, 1000, 1600, 3000]) b.raw([v, v * 0.656, v * 0.5].slice(0, dim));
  corpora.query.push([`cells-far-${dim}d`, b]);
}

// a crowd: 180 vertices at two positions within r (or 120 at one, radius 0) whose attributes (3
// values at tolerance 0, 4 at 1e-6) keep more than 48 representatives apart at a position: rings
// split by value. (Inputs this large slow the target tenfold as the fuzzer mutates them: the seeds
// stay near the split's threshold, and the joint cells of dense clusters, which take some 400
// points, are left to the C tests.)
for (const dim of [2, 3]) {
  for (const radius of [0.25, 0]) {
    const count = radius > 0 ? 180 : 120;
    const points = {
      count,
      write: (b) => {
        b.raw([0.5, 0.25, 0.75].slice(0, dim));
        b.raw([0.5 + radius / 5, 0.25, 0.75].slice(0, dim));
        for (let i = 2; i < count; i++) b.copy(radius > 0 ? int(2) : 0, int(8));
      },
    };
    const name = `attributes-crowd${radius > 0 ? '' : '-radius-zero'}-${dim}d`;
    corpora.mesh.push([name, attributesSeed(dim, radius, 'auto', 0, 0, 0, [[2, 0], [3, 2 << 1]], points)]);
  }
}

// the engine's target reads the weld target's bytes: the same seeds
corpora.engine = corpora.weld;

for (const [target, seeds] of Object.entries(corpora)) {
  const dir = join(here, 'corpus', target);
  mkdirSync(dir, { recursive: true });
  for (const old of readdirSync(dir)) if (!old.startsWith('found-')) rmSync(join(dir, old));
  for (const [name, b] of seeds) writeFileSync(join(dir, name), Uint8Array.from(b.bytes));
  const bytes = seeds.reduce((s, [, b]) => s + b.bytes.length, 0);
  console.log(`${target}: ${seeds.length} seeds, ${bytes} bytes`);
}
