// The datasets of the benchmark: real STL models and seeded synthetic sets. Each is built on
// demand (build() returns a Float32Array of n * dim coordinates), so only one lives at a time.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { BufferAttribute, BufferGeometry } from 'three';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { gaussian, mulberry32 } from './prng.mjs';

const require = createRequire(import.meta.url);

// The mean number of neighbours within r that makes about 30% of uniform points merge with the
// precise store (measured: 0.85 gives 0.30 in 2D, 0.29 in 3D).
const NEIGHBOURS_FOR_30_PERCENT = 0.85;

/** r for n uniform points in the unit square or cube, so that about 30% merge. */
export function uniformRadius(n, dim) {
  const density = n; // points per unit area or volume
  return dim === 3
    ? Math.cbrt(NEIGHBOURS_FOR_30_PERCENT / (density * (4 / 3) * Math.PI))
    : Math.sqrt(NEIGHBOURS_FOR_30_PERCENT / (density * Math.PI));
}

function diagonal(points, dim) {
  const lo = new Array(dim).fill(Infinity);
  const hi = new Array(dim).fill(-Infinity);
  for (let i = 0; i < points.length; i += dim) {
    for (let a = 0; a < dim; a++) {
      const v = points[i + a];
      if (v < lo[a]) lo[a] = v;
      if (v > hi[a]) hi[a] = v;
    }
  }
  return Math.hypot(...hi.map((h, a) => h - lo[a]));
}

const stlCache = new Map();
function stlSoup(file) {
  if (!stlCache.has(file)) {
    const bytes = readFileSync(require.resolve(`stl-models/objects/${file}`));
    const soup = new STLLoader().parse(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    const points = soup.getAttribute('position').array;
    stlCache.set(file, { soup, points, diagonal: diagonal(points, 3) });
  }
  return stlCache.get(file);
}

function stlDataset(model, relative) {
  const file = `${model}.bin.stl`;
  const { soup, points, diagonal: d } = stlSoup(file);
  return {
    name: `stl-${model}-${relative.toExponential()}`,
    family: 'stl',
    dim: 3,
    n: points.length / 3,
    radius: d * relative,
    description: `stl-models ${file}, the triangle soup as loaded by three's STLLoader; r = ${relative.toExponential()} of the bounding-box diagonal`,
    build: () => points,
    geometry: () => soup, // positions (build()'s points) and normals
    normals: "STLLoader's per-face normals",
  };
}

function npmBunny() {
  const { positions, cells } = require('bunny');
  const points = new Float32Array(cells.length * 9);
  let k = 0;
  for (const cell of cells) for (const corner of cell) for (const v of positions[corner]) points[k++] = v;
  const relative = 1e-5;
  return {
    name: 'npm-bunny',
    family: 'stl',
    dim: 3,
    n: cells.length * 3,
    radius: diagonal(points, 3) * relative,
    description: `npm bunny (${positions.length} vertices) unrolled into a triangle soup; r = ${relative.toExponential()} of the bounding-box diagonal`,
    build: () => points,
    normals: 'per-face normals from computeVertexNormals (an unindexed soup), as an STL file has them',
    geometry() {
      const soup = new BufferGeometry();
      soup.setAttribute('position', new BufferAttribute(points, 3));
      soup.computeVertexNormals();
      return soup;
    },
  };
}

// Procedural tiles: tiles x tiles independent patches of side x side vertices of a height field
// over the unit square. Neighbouring tiles generate their shared border vertices themselves.
const NUDGE = new Float32Array(1);
const NUDGE_BITS = new Uint32Array(NUDGE.buffer);
function nextUp(v) {
  if (v === 0) return 2 ** -149;
  NUDGE[0] = v;
  NUDGE_BITS[0] += v > 0 ? 1 : -1;
  return NUDGE[0];
}

function tiles(variant, count, side, sweep = true) {
  const n = count * count * side * side;
  const steps = count * (side - 1); // lattice steps across the unit square
  const radius = 1e-5;
  const text = {
    exact: 'borders coincide exactly',
    ulp: 'every other tile (checkerboard) one float32 step up on every coordinate',
    noise: 'every coordinate with uniform noise of +-1e-6',
  }[variant];
  return {
    name: `tiles-${variant}`,
    family: 'tiles',
    dim: 3,
    n,
    radius,
    sweep, // false: meshweld auto only (the other methods behave as on tiles-noise)
    description:
      `${count}x${count} procedural tiles of ${side}x${side} vertices (a height field over the unit square, spacing ` +
      `${(1 / steps).toExponential(1)}), ${text}; r = 1e-5${sweep ? '' : '; meshweld auto only (every method runs on tiles-noise)'}`,
    build() {
      const points = new Float32Array(n * 3);
      const noise = mulberry32(6);
      let k = 0;
      for (let ty = 0; ty < count; ty++) {
        for (let tx = 0; tx < count; tx++) {
          const up = variant === 'ulp' && (tx + ty) % 2 === 1;
          for (let j = 0; j < side; j++) {
            for (let i = 0; i < side; i++) {
              const x = (tx * (side - 1) + i) / steps;
              const y = (ty * (side - 1) + j) / steps;
              const z = 0.05 * Math.sin(9 * x) * Math.cos(7 * y) + 0.01 * Math.sin(41 * x + 29 * y);
              for (const v of [x, y, z]) {
                let f = Math.fround(v);
                if (up) f = nextUp(f);
                else if (variant === 'noise') f = Math.fround(v + (noise() - 0.5) * 2e-6);
                points[k++] = f;
              }
            }
          }
        }
      }
      return points;
    },
  };
}

function uniformSet(dim, n) {
  return {
    name: `uniform-${dim}d-${label(n)}`,
    family: 'uniform',
    dim,
    n,
    radius: uniformRadius(n, dim),
    description: `${n.toLocaleString('en-US')} uniform points in the unit ${dim === 3 ? 'cube' : 'square'}, r so that ~30% merge (precise store)`,
    build() {
      const random = mulberry32(1000 + dim);
      const points = new Float32Array(n * dim);
      for (let i = 0; i < points.length; i++) points[i] = random();
      return points;
    },
  };
}

function clusters(n, { shuffled = false } = {}) {
  const size = 100;
  const outliers = Math.round(n / 100);
  const centres = Math.floor((n - outliers) / size);
  const total = centres * size + outliers;
  const radius = 1e-3;
  return {
    name: shuffled ? 'clusters-shuffled' : 'clusters',
    family: 'adversarial',
    dim: 3,
    n: total,
    radius,
    description: `${centres} gaussian clusters of ${size} points (sigma = r/2) in the unit cube, plus ${outliers} outliers in a cube of side 1e4; r = 1e-3${shuffled ? '; the same points in random order' : ''}`,
    build() {
      const random = mulberry32(77);
      const normal = gaussian(random);
      const points = new Float32Array(total * 3);
      let k = 0;
      for (let c = 0; c < centres; c++) {
        const centre = [random(), random(), random()];
        for (let p = 0; p < size; p++) for (let a = 0; a < 3; a++) points[k++] = centre[a] + normal() * radius * 0.5;
      }
      for (let o = 0; o < outliers; o++) for (let a = 0; a < 3; a++) points[k++] = (random() - 0.5) * 1e4;
      if (shuffled) {
        const order = mulberry32(78);
        for (let i = total - 1; i > 0; i--) {
          const j = Math.floor(order() * (i + 1));
          for (let a = 0; a < 3; a++) [points[3 * i + a], points[3 * j + a]] = [points[3 * j + a], points[3 * i + a]];
        }
      }
      return points;
    },
  };
}

function core(n) {
  const radius = 1e-3;
  return {
    name: 'core-3d-1M',
    family: 'adversarial',
    dim: 3,
    n,
    radius,
    description: `${n.toLocaleString('en-US')} points at a distance u^4 from the centre of the unit ball (u uniform, random directions): a dense core in a sparse cloud, as in a scan whose density falls with distance; about a fifth within r of the centre; r = 1e-3`,
    build() {
      const random = mulberry32(91);
      const points = new Float32Array(n * 3);
      for (let i = 0; i < n; i++) {
        let x, y, z, length;
        do {
          x = 2 * random() - 1, y = 2 * random() - 1, z = 2 * random() - 1;
          length = Math.hypot(x, y, z);
        } while (length > 1 || length === 0);
        const far = random() ** 4 / length;
        points[3 * i] = x * far, points[3 * i + 1] = y * far, points[3 * i + 2] = z * far;
      }
      return points;
    },
  };
}

function row(n) {
  const radius = 2 ** -12; // x = i r is exact in float32: neighbours exactly r apart
  return {
    name: 'row',
    family: 'adversarial',
    dim: 3,
    n,
    radius,
    description: `a row of ${n.toLocaleString('en-US')} points exactly r apart along x (r = 2^-12)`,
    build() {
      const points = new Float32Array(n * 3);
      for (let i = 0; i < n; i++) {
        points[3 * i] = i * radius;
        points[3 * i + 1] = 0.25;
        points[3 * i + 2] = 0.5;
      }
      return points;
    },
  };
}

function lattice(side) {
  const radius = 2 ** -8;
  return {
    name: 'lattice-2d',
    family: 'adversarial',
    dim: 2,
    n: side * side,
    radius,
    description: `a ${side}x${side} square lattice at spacing r/2 (r = 2^-8), 2D`,
    build() {
      const points = new Float32Array(side * side * 2);
      for (let j = 0, k = 0; j < side; j++) {
        for (let i = 0; i < side; i++) {
          points[k++] = (i * radius) / 2;
          points[k++] = (j * radius) / 2;
        }
      }
      return points;
    },
  };
}

function label(n) {
  return n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`;
}

/** The datasets of a run, in order: the full set, or a smaller one with quick. */
export function datasets({ quick }) {
  if (quick) {
    return [
      stlDataset('bunny', 1e-5),
      stlDataset('gearwheel', 2e-3),
      npmBunny(),
      tiles('noise', 8, 32),
      uniformSet(2, 5e4),
      uniformSet(3, 5e4),
      uniformSet(3, 2e5),
      clusters(2e4),
      row(1e4),
      lattice(100),
    ];
  }
  return [
    stlDataset('bunny', 1e-5),
    stlDataset('bunny', 2e-3),
    stlDataset('gearwheel', 1e-5),
    stlDataset('gearwheel', 2e-3),
    npmBunny(),
    tiles('exact', 32, 32, false),
    tiles('ulp', 32, 32, false),
    tiles('noise', 32, 32),
    uniformSet(2, 1e5),
    uniformSet(2, 1e6),
    uniformSet(2, 4e6),
    uniformSet(3, 1e5),
    uniformSet(3, 1e6),
    uniformSet(3, 4e6),
    clusters(2e5),
    clusters(2e5, { shuffled: true }),
    core(1e6),
    row(1e5),
    lattice(317),
  ];
}
