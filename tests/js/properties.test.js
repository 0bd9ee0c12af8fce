// Property-based tests with fast-check: arbitrary arrays of every accepted kind, strides, options
// (valid and not), attributes, indices and Welder batches. Every call either returns a result that
// a brute-force checker of the guarantees accepts, or throws a TypeError/RangeError whose message
// names the function and the bad input; and no call leaves scratch memory allocated.
// MESHWELD_PROPERTY_RUNS=2000 node --test tests/js/properties.test.js runs more cases.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { SKIPPED, methods, ready, stores, weld, weldMesh, Welder } from '../../js/index.js';
import { bound } from '../../js/inspect.js';
import { liveAllocations } from '../../js/heap.js';

await ready;

const RUNS = Number(process.env.MESHWELD_PROPERTY_RUNS ?? 100);
const KINDS = [Float32Array, Float64Array, Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Array];
const INTEGER = new Map([[Int8Array, [127, -1]], [Uint8Array, [255, 0]], [Uint8ClampedArray, [255, 0]], [Int16Array, [32767, -1]],
  [Uint16Array, [65535, 0]], [Int32Array, [2147483647, -1]], [Uint32Array, [4294967295, 0]]]);

/** null in `odds` cases out of odds + 1, else a value of arb. */
const rarely = (arb, odds) => fc.oneof({ weight: odds, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });

// Values that collide, nearly collide and sit exactly r apart; some non-finite for float kinds.
const value = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -4, max: 4 }).map((v) => v * 0.25) },
  { weight: 2, arbitrary: fc.double({ min: -2, max: 2, noNaN: true }) },
  { weight: 1, arbitrary: fc.constantFrom(0, -0, 1e-7, 1, 255, 32767, -32768) },
);
// A few non-finite values planted in a third of the cases (integer kinds cannot hold them).
const holes = rarely(fc.array(fc.tuple(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), fc.constantFrom(NaN, Infinity, -Infinity)), { minLength: 1, maxLength: 3 }), 2);

const pointsArbitrary = fc
  .record({
    kind: fc.constantFrom(...KINDS),
    dim: fc.constantFrom(2, 3),
    pad: fc.integer({ min: 0, max: 2 }),
    n: fc.integer({ min: 0, max: 40 }),
    extra: rarely(fc.integer({ min: 1, max: 2 }), 12), // a length that is not a multiple of the stride
    normalized: fc.boolean(),
  })
  .chain((spec) => fc.array(value, { minLength: spec.n * (spec.dim + spec.pad) + (spec.extra ?? 0), maxLength: spec.n * (spec.dim + spec.pad) + (spec.extra ?? 0) })
    .chain((values) => holes.map((planted) => {
      for (const [at, bad] of planted ?? []) if (values.length) values[Math.floor(at * values.length)] = bad;
      return { ...spec, values };
    })));

function makeArray({ kind, values }) {
  if (kind === Array) return [...values];
  return kind.from(values, (v) => (INTEGER.has(kind) ? (Number.isFinite(v) ? Math.round(v * 4) : 0) : v));
}

// The float32 values the weld sees, as the package documents them.
function seen(array, normalized) {
  const out = new Float32Array(array.length);
  const scale = INTEGER.get(array.constructor);
  for (let i = 0; i < array.length; i++) out[i] = normalized && scale ? Math.max(array[i] / scale[0], scale[1]) : array[i];
  return out;
}

// Valid options, and now and then one bad patch: a bad value or an unknown name.
const optionsArbitrary = fc
  .record({
    radius: fc.constantFrom(0, 1e-3, 0.1, 0.25, 0.3, 1),
    method: fc.constantFrom(...methods),
    store: fc.constantFrom(...stores),
    nonFinite: fc.constantFrom('error', 'skip', 'keep'),
    position: fc.constantFrom('first', 'first', 'centroid'),
    bad: rarely(
      fc.constantFrom({ radius: -1 }, { radius: NaN }, { radius: '1' }, { radius: undefined }, { radius: 1e39 }, { method: 'fast' },
        { store: 'exact' }, { nonFinite: 'drop' }, { tolerance: 0.1 }, { position: 'mean' }, { dim: 4 }),
      6,
    ),
  })
  .map(({ bad, ...options }) => ({ ...options, ...(bad ?? {}) }));

const isBad = (o) => 'tolerance' in o || o.method === 'fast' || o.store === 'exact' || o.nonFinite === 'drop' || o.position === 'mean' ||
  o.dim === 4 || !(typeof o.radius === 'number' && o.radius >= 0 && o.radius < 3e38);

function distance2(a, i, b, k, dim) {
  let d = 0;
  for (let c = 0; c < dim; c++) {
    const t = a[i * dim + c] - b[k * dim + c];
    d += t * t;
  }
  return d;
}

function checkError(e, who) {
  assert.ok(e instanceof TypeError || e instanceof RangeError, `${e.constructor.name}: ${e.message}`);
  assert.ok(e.message.startsWith(`meshweld: ${who}: `) || e.message.startsWith('meshweld: out of memory'), e.message);
}

// The guarantees of a weld of `input` (float32, packed dim) with remap/count/positions.
function checkWeld(input, dim, result, { radius, store, nonFinite, centroid }) {
  const n = input.length / dim;
  const finite = (i) => [...input.subarray(i * dim, (i + 1) * dim)].every(Number.isFinite);
  const R = bound({ method: result.method, store, dim, radius });
  let next = 0;
  const first = [];
  for (let i = 0; i < n; i++) {
    const k = result.remap[i];
    if (!finite(i) && nonFinite === 'skip') {
      assert.equal(k, SKIPPED, `non-finite point ${i} not skipped`);
      continue;
    }
    assert.ok(finite(i) || nonFinite === 'keep', `non-finite point ${i} accepted under ${nonFinite}`);
    assert.ok(k <= next, `remap not dense by first appearance at ${i}`);
    if (k === next) {
      first.push(i);
      next++;
    }
    if (finite(i) && finite(first[k])) {
      const d = distance2(input, i, input, first[k], dim);
      assert.ok(d <= R * R * (1 + 1e-6), `point ${i} is ${Math.sqrt(d)} from its output, beyond R = ${R}`);
    }
  }
  assert.equal(result.count, next);
  if (centroid) return;
  for (let k = 0; k < next; k++)
    for (let c = 0; c < dim; c++) assert.ok(Object.is(result.positions[k * dim + c], input[first[k] * dim + c]) || result.positions[k * dim + c] === input[first[k] * dim + c]);
  // no two outputs within r; identical positions share an output
  for (let a = 0; a < next; a++)
    for (let b = a + 1; b < next; b++) {
      if (!finite(first[a]) || !finite(first[b])) continue;
      assert.ok(distance2(result.positions, a, result.positions, b, dim) > radius * radius, `outputs ${a} and ${b} are within r`);
    }
  const byBits = new Map();
  for (let i = 0; i < n; i++) {
    if (result.remap[i] === SKIPPED) continue;
    const key = [...input.subarray(i * dim, (i + 1) * dim)].map((v) => (v === 0 ? 0 : v)).join(',');
    if (!finite(i) && [...input.subarray(i * dim, (i + 1) * dim)].some(Number.isNaN)) continue; // NaN payloads differ
    if (byBits.has(key)) assert.equal(result.remap[i], byBits.get(key), `identical points ${i} and an earlier one apart`);
    else byBits.set(key, result.remap[i]);
  }
}

test('weld: every array kind, stride and option either welds within the guarantees or throws by name', () => {
  const baseline = liveAllocations();
  fc.assert(
    fc.property(pointsArbitrary, optionsArbitrary, (spec, options) => {
      const { dim, pad } = spec;
      const stride = dim + pad;
      const array = makeArray(spec);
      const normalized = spec.normalized && INTEGER.has(spec.kind);
      const call = { dim, ...(pad ? { stride } : {}), ...(normalized ? { normalized: true } : {}), ...options };
      if (dim === 2 && call.method === 'bcc') call.method = 'hex';
      if (dim === 3 && call.method === 'hex') call.method = 'bcc';
      let result;
      try {
        result = weld(array, call);
      } catch (e) {
        checkError(e, 'weld');
        const named = isBad(options) || array.length % stride !== 0 || /non-finite coordinate|too large for the radius/.test(e.message);
        assert.ok(named, `a valid call was refused: ${e.message}`);
        return;
      }
      assert.equal(array.length % stride, 0, 'a length that is not a multiple of the stride was accepted');
      assert.ok(!isBad(options), `bad options accepted: ${JSON.stringify(options)}`);
      const all = seen(array, normalized);
      const packed = new Float32Array((all.length / stride) * dim);
      for (let i = 0; i < all.length / stride; i++) packed.set(all.subarray(i * stride, i * stride + dim), i * dim);
      checkWeld(packed, dim, result, { radius: result.radius, store: call.store, nonFinite: call.nonFinite, centroid: call.position === 'centroid' });
      assert.equal(liveAllocations(), baseline);
    }),
    { numRuns: RUNS },
  );
  assert.equal(liveAllocations(), baseline, 'a failed call left scratch allocated');
});

test('Welder: batches concatenated give the one-shot remap, or a named error', () => {
  const baseline = liveAllocations();
  fc.assert(
    fc.property(
      fc.constantFrom(2, 3),
      fc.array(fc.array(fc.oneof({ weight: 30, arbitrary: value }, { weight: 1, arbitrary: fc.constantFrom(NaN, Infinity) }), { maxLength: 30 }), { maxLength: 4 }),
      fc.constantFrom(...methods),
      fc.constantFrom(...stores),
      fc.constantFrom(0, 0.1, 0.25),
      (dim, batches, method, store, radius) => {
        if (dim === 2 && method === 'bcc') method = 'hex';
        if (dim === 3 && method === 'hex') method = 'bcc';
        const w = new Welder({ dim, method, store, radius });
        const remaps = [];
        const accepted = [];
        try {
          for (const batch of batches) {
            const points = Float32Array.from(batch.slice(0, batch.length - (batch.length % dim)));
            try {
              remaps.push(...w.add(points));
              accepted.push(...points);
            } catch (e) {
              checkError(e, 'Welder.add');
              assert.ok(points.some((v) => !Number.isFinite(v)) || /too large/.test(e.message), e.message);
            }
          }
          const once = weld(Float32Array.from(accepted), { dim, method, store, radius });
          assert.deepEqual(remaps, [...once.remap]);
          assert.equal(w.count, once.count);
          assert.deepEqual(w.positions(), once.positions);
        } finally {
          w.dispose();
        }
      },
    ),
    { numRuns: RUNS },
  );
  assert.equal(liveAllocations(), baseline);
});

test('weldMesh lines: repeats dropped in either direction, the first kept, as a Set of segments finds them', () => {
  // 8 vertices on 5 places along x (vertices 5, 6, 7 weld into 0, 1, 2): segments repeat often
  const positions = Float32Array.from({ length: 24 }, (_, i) => (i % 3 === 0 ? (i / 3) % 5 : 0));
  fc.assert(
    fc.property(fc.array(fc.nat(7), { maxLength: 80, size: 'max' }), fc.boolean(), (list, removeDegenerate) => {
      const indices = list.slice(0, list.length - (list.length % 2));
      const r = weldMesh(positions, indices, { radius: 0.1, primitive: 'lines', removeDuplicates: true, removeDegenerate });
      const want = [];
      const seen = new Set();
      let degenerate = 0;
      let duplicates = 0;
      for (let e = 0; e < indices.length; e += 2) {
        const [a, b] = [r.remap[indices[e]], r.remap[indices[e + 1]]];
        if (a === b && removeDegenerate) degenerate++;
        else if (seen.has(`${Math.min(a, b)},${Math.max(a, b)}`)) duplicates++;
        else seen.add(`${Math.min(a, b)},${Math.max(a, b)}`), want.push(a, b);
      }
      assert.deepEqual([...r.indices], want);
      assert.deepEqual([r.degenerateRemoved, r.duplicatesRemoved, r.elementCount], [degenerate, duplicates, want.length / 2]);
    }),
    { numRuns: RUNS },
  );
});

test('weldMesh: arbitrary indices, primitives, attributes and tolerances', () => {
  const baseline = liveAllocations();
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: -2, max: 2 }).map((v) => v * 0.5), { minLength: 3, maxLength: 45 }),
      rarely(fc.array(fc.integer({ min: 0, max: 16 }), { maxLength: 24 }), 1),
      fc.constantFrom('triangles', 'lines', 'points'),
      rarely(fc.array(fc.constantFrom(0, 0.5, 1, NaN), { minLength: 15, maxLength: 15 }), 1),
      fc.constantFrom(0, 0.5, 0.6),
      fc.boolean(),
      fc.boolean(),
      rarely(fc.nat(44), 2),
      (values, indices, primitive, uv, radius, removeDuplicates, removeDegenerate, hole) => {
        const positions = Float32Array.from(values.slice(0, values.length - (values.length % 3)));
        const n = positions.length / 3;
        if (hole !== null && n > 0) positions[hole % positions.length] = NaN; // a point left out: nonFinite 'skip'
        const attributes = uv && n <= 15 ? { a: { array: Float32Array.from(uv.slice(0, n)), itemSize: 1 } } : undefined;
        const options = { radius, primitive, removeDuplicates, removeDegenerate, nonFinite: 'skip', ...(attributes ? { attributes, tolerances: { a: 0.5 } } : {}) };
        let r;
        try {
          r = weldMesh(positions, indices, options);
        } catch (e) {
          checkError(e, 'weldMesh');
          assert.match(e.message, /indices\[\d+\] = \d+ is out of range|index count \d+ is not a multiple|unindexed vertex count \d+ is not a multiple/);
          return;
        }
        const corners = { triangles: 3, lines: 2, points: 1 }[primitive];
        const count = indices ? indices.length : n;
        assert.equal(r.elementCount + r.degenerateRemoved + r.duplicatesRemoved + r.skippedElements, count / corners);
        const out = r.indices ?? Uint32Array.from({ length: r.vertexCount }, (_, k) => k);
        for (const v of out) assert.ok(v < r.vertexCount);
        for (let e = 0; e < out.length; e += corners) {
          const element = [...out.subarray(e, e + corners)];
          if (corners > 1 && removeDegenerate) assert.equal(new Set(element).size, corners, `a collapsed ${primitive} element kept`);
        }
        if (corners < 3) {
          // segments and points follow the remap: a skipped vertex drops its element, a collapsed
          // segment goes unless kept, a repeated one (either direction) with removeDuplicates, and a
          // cloud keeps each output once, in order of first appearance
          const want = [];
          const seen = new Set();
          let degenerate = 0;
          let duplicates = 0;
          let skipped = 0;
          for (let e = 0; e < count; e += corners) {
            const v = Array.from({ length: corners }, (_, j) => r.remap[indices ? indices[e + j] : e + j]);
            if (v.includes(SKIPPED)) skipped++;
            else if (corners === 2 && v[0] === v[1] && removeDegenerate) degenerate++;
            else if ((corners === 1 || removeDuplicates) && seen.has(`${Math.min(...v)},${Math.max(...v)}`)) duplicates++;
            else seen.add(`${Math.min(...v)},${Math.max(...v)}`), want.push(...v);
          }
          assert.deepEqual([r.elementCount * corners, r.degenerateRemoved, r.duplicatesRemoved, r.skippedElements], [want.length, degenerate, duplicates, skipped]);
          if (r.indices) assert.deepEqual([...r.indices], want);
        }
        if (r.indices && corners > 1) assert.equal(r.indices.constructor, r.vertexCount <= 65535 ? Uint16Array : Uint32Array);
        if (attributes) {
          const a = attributes.a.array;
          for (let i = 0; i < n; i++) {
            if (r.remap[i] === SKIPPED) continue; // left out (nonFinite: 'skip')
            const kept = r.attributes.a.array[r.remap[i]];
            assert.ok(Object.is(kept, a[i]) || Math.abs(kept - a[i]) <= 0.5, `vertex ${i}: attribute ${a[i]} merged into ${kept}`);
          }
        }
        assert.equal(liveAllocations(), baseline);
      },
    ),
    { numRuns: RUNS },
  );
  assert.equal(liveAllocations(), baseline);
});
