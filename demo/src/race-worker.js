// The race, off the page's thread: every method welds the points it is sent, timed here; the
// sweep times each method on uniform clouds of growing size. Messages in: { id, kind: 'race',
// points, r, store, methods, naiveMax } or { id, kind: 'sweep', counts, methods, naiveMax };
// out: one message per measurement, then { id, kind: 'done' }.
import { ready, weld } from 'meshweld';
import { mulberry32 } from './points.js';
import { naiveChecks } from './derive.js';

const SWEEP_R = 0.25; // the sweep's clouds hold one point per unit square; r is a quarter of that

let meshopt;
function loadMeshopt() {
  meshopt ??= import('meshoptimizer/simplifier')
    .then(async ({ MeshoptSimplifier }) => (await MeshoptSimplifier.ready, MeshoptSimplifier))
    .catch(() => null);
  return meshopt;
}

// The median time of one run: runs are batched so that each sample lasts a few milliseconds
// (browsers round their clocks to a tenth of a millisecond or coarser), samples repeated until
// about `budget` ms have passed.
function time(run, budget = 40) {
  let result, batch = 1;
  const start = performance.now();
  result = run();
  const once = Math.max(performance.now() - start, 0.001);
  batch = Math.max(1, Math.min(1000, Math.ceil(4 / once)));
  const samples = [];
  let spent = once;
  while (samples.length < 15 && (samples.length < 3 || spent < budget) && !(once > budget && samples.length >= 1)) {
    const t = performance.now();
    for (let k = 0; k < batch; k++) result = run();
    const ms = performance.now() - t;
    samples.push(ms / batch);
    spent += ms;
  }
  samples.sort((a, b) => a - b);
  return { ms: Math.max(samples[samples.length >> 1], 1e-4), runs: samples.length * batch, result };
}

// 2D points as 3D positions (z = 0): meshoptimizer reads positions with a stride of 3 floats or more
function as3D(points) {
  const out = new Float32Array((points.length / 2) * 3);
  for (let i = 0; i < points.length / 2; i++) (out[3 * i] = points[2 * i]), (out[3 * i + 1] = points[2 * i + 1]);
  return out;
}

function cloud(n, seed) {
  const random = mulberry32(seed);
  const side = Math.sqrt(n);
  const out = new Float32Array(2 * n);
  for (let k = 0; k < 2 * n; k++) out[k] = random() * side;
  return out;
}

const post = (message) => self.postMessage(message);

self.onmessage = async ({ data }) => {
  await ready;
  const { id } = data;
  if (data.kind === 'race') {
    const { points, r, store } = data;
    const n = points.length / 2;
    for (const method of data.methods) {
      if (method === 'naive' && n > data.naiveMax) {
        post({ id, kind: 'result', method, skipped: true });
        continue;
      }
      const { ms, runs, result } = time(() => weld(points, { dim: 2, radius: r, method, store }));
      post({ id, kind: 'result', method, ms, runs, count: result.count, checks: method === 'naive' ? naiveChecks(points, result.remap, n) : null });
    }
    const simplifier = await loadMeshopt();
    if (simplifier) {
      const p3 = as3D(points);
      const { ms, runs, result } = time(() => simplifier.generatePositionRemap(p3, 3));
      let count = 0;
      for (let i = 0; i < result.length; i++) if (result[i] === i) count++;
      post({ id, kind: 'result', method: 'meshopt', ms, runs, count });
    } else {
      post({ id, kind: 'result', method: 'meshopt', skipped: true });
    }
  } else if (data.kind === 'sweep') {
    const simplifier = await loadMeshopt();
    for (const n of data.counts) {
      const points = cloud(n, n);
      for (const method of data.methods) {
        if (method === 'naive' && n > data.naiveMax) continue;
        const { ms } = time(() => weld(points, { dim: 2, radius: SWEEP_R, method, store: 'loose' }), 60);
        post({ id, kind: 'point', method, n, ms });
      }
      if (simplifier) {
        const p3 = as3D(points);
        const { ms } = time(() => simplifier.generatePositionRemap(p3, 3), 60);
        post({ id, kind: 'point', method: 'meshopt', n, ms });
      }
    }
    post({ id, kind: 'meshopt', available: !!simplifier });
  }
  post({ id, kind: 'done' });
};
