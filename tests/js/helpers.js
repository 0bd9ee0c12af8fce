// Shared by the JS tests: fixtures, a brute-force checker of the guarantees, a seeded PRNG.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const fixtureDir = join(root, 'tests', 'fixtures');

export function fixtures() {
  return readFileSync(join(fixtureDir, 'manifest.txt'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const [file, dim, radius] = line.split(' ');
      const bytes = readFileSync(join(fixtureDir, file));
      const points = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
      return { file, dim: Number(dim), radius: Number(radius), points };
    });
}

export const expected = () => JSON.parse(readFileSync(join(fixtureDir, 'expected.json'), 'utf8'));

export function fnv1a(remap) {
  let h = 2166136261;
  for (const v of remap)
    for (let b = 0; b < 4; b++) {
      h ^= (v >>> (8 * b)) & 0xff;
      h = Math.imul(h, 16777619) >>> 0;
    }
  return h >>> 0;
}

export function mulberry32(seed) {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Objects dropped for the garbage collector to free, and a wait for it. The package frees a
 * dropped Welder from a FinalizationRegistry callback, in a task some time after the collection:
 * this registry, on the same objects, says when the collector has let them go, and a few more
 * turns of the event loop let the package's own callbacks run. `gc` is a full collection.
 */
export function collector(gc) {
  let dropped = 0;
  let collected = 0;
  const watch = new FinalizationRegistry(() => collected++);
  return {
    /** Marks an object that nothing will refer to any more. */
    drop(object) {
      watch.register(object, null);
      dropped++;
    },
    /** A full collection, then the time for the finalizers of everything dropped so far to run. */
    async settle() {
      gc();
      for (let turn = 0; turn < 1000 && collected < dropped; turn++) await new Promise((resolve) => setTimeout(resolve, 2));
      for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
    },
    get dropped() {
      return dropped;
    },
    get collected() {
      return collected;
    },
  };
}

// squared distance in double, as the library defines "within r"
function distance2(a, i, b, j, dim) {
  let d = 0;
  for (let k = 0; k < dim; k++) {
    const e = a[i * dim + k] - b[j * dim + k];
    d += e * e;
  }
  return d;
}

/** Checks guarantees 1-4 by brute force; returns a list of violations (empty when all hold). */
export function violations(points, dim, radius, result, R) {
  const problems = [];
  const n = points.length / dim;
  const r = Math.fround(radius);
  const { remap, count, positions } = result;
  let next = 0;
  for (let i = 0; i < n; i++) {
    if (remap[i] > next) problems.push(`remap[${i}] = ${remap[i]} skips ahead of ${next}`);
    if (remap[i] === next) {
      next++;
      for (let k = 0; k < dim; k++)
        if (positions[remap[i] * dim + k] !== points[i * dim + k]) problems.push(`output ${remap[i]} is not input ${i}`);
    }
  }
  if (next !== count) problems.push(`count ${count} but ${next} outputs used`);
  for (let a = 0; a < count; a++)
    for (let b = a + 1; b < count; b++)
      if (distance2(positions, a, positions, b, dim) <= r * r) problems.push(`outputs ${a} and ${b} within r`);
  for (let i = 0; i < n; i++)
    if (distance2(points, i, positions, remap[i], dim) > R * R) problems.push(`point ${i} moved farther than R`);
  const seen = new Map();
  for (let i = 0; i < n; i++) {
    const key = Array.from(points.subarray(i * dim, i * dim + dim), (v) => v + 0).join(',');
    if (seen.has(key) && seen.get(key) !== remap[i]) problems.push(`identical point ${i} split`);
    seen.set(key, remap[i]);
  }
  return problems.slice(0, 5);
}

/** The before/after figures of the command's summary: { vertices: [a, b], triangles: [..], 'open edges': [..] }. */
export function summary(stdout) {
  const rows = {};
  for (const line of stdout.split('\n')) {
    const m = /^(vertices|triangles|open edges)\s+([\d,]+)\s+([\d,]+)$/.exec(line);
    if (m) rows[m[1]] = [Number(m[2].replaceAll(',', '')), Number(m[3].replaceAll(',', ''))];
  }
  return rows;
}
