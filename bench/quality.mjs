// What a result is worth, measured outside the timing: pairs of outputs still within r (the
// exact kd-tree validator of meshweld's guarantee 1), and the largest distance from an input to
// its output point in units of r.
import { meshweldModule } from './module.mjs';

/** The validator stops counting here: huge failures print as ">= 100,000". */
export const PAIR_LIMIT = 1e5;

/** FNV-1a over 32-bit words, as bench/native/bench.c computes it over a remap. */
export function hashWords(words) {
  let h = 2166136261;
  for (let i = 0; i < words.length; i++) h = Math.imul(h ^ words[i], 16777619) >>> 0;
  return h >>> 0;
}

const pairCache = new Map(); // identical outputs (the precise stores, the exact welders) count once

/** Pairs of output points within r (capped at PAIR_LIMIT): { pairs, capped }. */
export async function closePairs(positions, ds) {
  const { countClosePairs } = await meshweldModule();
  const key = `${ds.name}:${positions.length}:${hashWords(new Uint32Array(positions.buffer, positions.byteOffset, positions.length))}`;
  if (!pairCache.has(key)) {
    const pairs = countClosePairs(positions, { dim: ds.dim, radius: ds.radius, limit: PAIR_LIMIT });
    pairCache.set(key, { pairs, capped: pairs >= PAIR_LIMIT });
  }
  return pairCache.get(key);
}

export function clearPairCache() {
  pairCache.clear();
}

/** max over inputs of |input - its output point| / r, in double precision. */
export function maxDisplacement(points, remap, positions, ds) {
  const dim = ds.dim;
  let worst = 0;
  for (let i = 0; i < remap.length; i++) {
    const k = remap[i] * dim;
    let d2 = 0;
    for (let a = 0; a < dim; a++) {
      const d = points[i * dim + a] - positions[k + a];
      d2 += d * d;
    }
    if (d2 > worst) worst = d2;
  }
  return Math.sqrt(worst) / ds.radius;
}

/** Everything about one normalised result { count, remap, positions, method }. */
export async function assess(result, points, ds) {
  const { pairs, capped } = await closePairs(result.positions, ds);
  return {
    count: result.count,
    pairs,
    pairsCapped: capped,
    displacement: maxDisplacement(points, result.remap, result.positions, ds),
    hash: hashWords(result.remap),
  };
}
