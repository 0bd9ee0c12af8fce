// WebAssembly figures in Node: ns per point for each method on 1e6 uniform points, r chosen so
// that about 30% merge, as bench/native/bench.c does natively.
//   node bench/uniform.mjs [--points N] [--method M]
import { ready, weld, methods } from '../js/index.js';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const n = Number(option('--points', 1e6));
const only = option('--method', null);
await ready;

console.log('dim method   store    outputs  median ns/point  min ns/point');
for (const dim of [3, 2]) {
  const points = new Float32Array(n * dim);
  let x = 1;
  for (let i = 0; i < points.length; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    points[i] = x / 4294967296;
  }
  const radius = dim === 3 ? Math.cbrt(0.4 / (n * 4.18879)) : Math.sqrt(0.4 / (n * 3.14159));
  for (const method of methods) {
    if (method === 'naive' || (only && method !== only)) continue;
    if ((method === 'hex' && dim !== 2) || (method === 'bcc' && dim !== 3)) continue;
    for (const store of method === 'kdtree' ? ['precise'] : ['loose', 'precise']) {
      let count = weld(points, { dim, radius, method, store }).count; // warm-up
      const times = [];
      for (let k = 0; k < 5; k++) {
        const t0 = performance.now();
        count = weld(points, { dim, radius, method, store }).count;
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      const ns = (ms) => ((ms * 1e6) / n).toFixed(0).padStart(8);
      console.log(`${dim}D  ${method.padEnd(8)} ${store.padEnd(8)} ${String(count).padStart(8)} ${ns(times[2])}        ${ns(times[0])}`);
    }
  }
}
