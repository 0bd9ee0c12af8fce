// weldGeometry (meshweld/three) on an STL soup against weld() on the same positions: what the
// three.js layer costs over the bare weld, and what comparing normals and uvs costs over positions
// alone. Each comparison runs as interleaved pairs (A B, B A, ...), like "meshweld auto ÷ it".
import { BufferAttribute } from 'three';
import { meshweldModule, meshweldThreeModule } from './module.mjs';
import { median, minimum, pairs, timeOnce } from './timing.mjs';

export const TOLERANCES = { normal: 0.05, uv: 1e-4 };

/**
 * A copy of the soup (same position and normal attributes) with a uv attribute: the planar
 * projection of the positions on the plane of their two widest extents, scaled to [0, 1].
 */
function withUv(soup) {
  const positions = soup.getAttribute('position').array;
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i += 3) {
    for (let a = 0; a < 3; a++) {
      const v = positions[i + a];
      if (v < lo[a]) lo[a] = v;
      if (v > hi[a]) hi[a] = v;
    }
  }
  const [u, v] = [0, 1, 2].sort((a, b) => hi[b] - lo[b] - (hi[a] - lo[a])); // the two widest axes
  const scale = (a) => (hi[a] > lo[a] ? 1 / (hi[a] - lo[a]) : 0);
  const [su, sv] = [scale(u), scale(v)];
  const n = positions.length / 3;
  const uv = new Float32Array(n * 2);
  for (let i = 0; i < n; i++) {
    uv[2 * i] = (positions[3 * i + u] - lo[u]) * su;
    uv[2 * i + 1] = (positions[3 * i + v] - lo[v]) * sv;
  }
  const geometry = soup.clone();
  geometry.setAttribute('uv', new BufferAttribute(uv, 2));
  return { geometry, axes: 'xyz'[u] + 'xyz'[v] };
}

const TOLERANCES_TEXT = '{ normal: 0.05, uv: 1e-4 }';

/**
 * Times, on the dataset's soup: weldGeometry by position against weld(points, { radius }), and
 * weldGeometry with TOLERANCES against weldGeometry by position. Returns the three calls' rows
 * and the two ratios (medians of the pairs' ratios).
 */
export async function benchGeometry(ds, { rules, progress }) {
  const { weld } = await meshweldModule();
  const { weldGeometry } = await meshweldThreeModule();
  const soup = ds.geometry();
  const { geometry, axes } = withUv(soup); // untimed, beforehand
  const points = geometry.getAttribute('position').array;
  const radius = ds.radius;
  const call = (label, run, count) => ({ label, run, count, times: [] });
  const bare = call('`weld(points, { radius })`', (ctx) => weld(ctx.points, { radius: ctx.radius }), (raw) => raw.count);
  const geometryCall = (attributes, text) =>
    call(
      `\`weldGeometry(geometry, { radius, attributes: ${text} })\``,
      (ctx) => weldGeometry(ctx.geometry, { radius: ctx.radius, attributes }),
      (raw) => raw.userData.meshweld.vertices,
    );
  const byPosition = geometryCall('position', "'position'");
  const withTolerances = geometryCall(TOLERANCES, TOLERANCES_TEXT);
  const ctx = { points, geometry, radius };

  const compare = async (anchor, other) => {
    progress(`  ${anchor.label} ÷ ${other.label} (interleaved)`);
    await timeOnce(anchor, ctx); // warm-up; pairs() warms the other
    const result = await pairs(anchor, ctx, other, ctx, ctx, rules);
    anchor.times.push(...result.anchorTimes);
    other.times.push(...result.times);
    anchor.outputs = anchor.count(result.anchorRaw);
    other.outputs = other.count(result.raw);
    return { median: median(result.ratios), values: result.ratios };
  };
  const positionOverWeld = await compare(byPosition, bare);
  const tolerancesOverPosition = await compare(withTolerances, byPosition);
  const row = ({ label, times, outputs }) => ({ label, times, medianMs: median(times), minMs: minimum(times), outputs });
  return {
    uvAxes: axes,
    rows: [row(bare), row(byPosition), row(withTolerances)],
    positionOverWeld,
    tolerancesOverPosition,
  };
}
