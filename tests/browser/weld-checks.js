// Runs the same welds on the page and in the worker; returns what the test asserts on.
import { ready, weld, Welder, countClosePairs } from 'meshweld';
import { SphereGeometry } from 'three';
import { boundaryEdges, weldGeometry } from 'meshweld/three';

export async function run() {
  await ready;
  const points = new Float32Array(3 * 20000);
  let s = 1;
  for (let i = 0; i < points.length; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    points[i] = s / 4294967296;
  }
  const results = {};
  for (const method of ['naive', 'grid-r', 'grid-2r', 'bcc', 'kdtree', 'auto']) {
    const r = weld(method === 'naive' ? points.subarray(0, 6000) : points, { radius: 0.01, method });
    results[method] = { count: r.count, pairs: countClosePairs(r.positions, { radius: 0.01 }), method: r.method };
  }
  const w = new Welder({ dim: 3, radius: 0.01 });
  const a = w.add(points.subarray(0, 30000));
  const b = w.add(points.subarray(30000));
  results.incremental = { count: w.count, first: a[0], last: b[b.length - 1], same: w.count === results.auto.count };
  w.dispose();
  let error = '';
  try {
    weld([0, NaN, 0], { radius: 1 });
  } catch (e) {
    error = e.message;
  }
  results.error = error;
  // the three.js helper: a sphere soup closes
  const sphere = weldGeometry(new SphereGeometry(1, 32, 16).toNonIndexed(), { attributes: 'position' });
  results.three = { vertices: sphere.getAttribute('position').count, triangles: sphere.index.count / 3, open: boundaryEdges(sphere).length / 2 };
  return results;
}
