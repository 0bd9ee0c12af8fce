// The teaching demo (demo/): built with Vite like `npm run build:demo`, served statically and
// driven in headless Chromium. Each method's view (grid included), the r slider, dragging and
// adding points (mouse and touch), the step mode and its keys, 100,000 points, the spatial
// engine's trace stepped through, the 3D mesh section, the BCC view dragged in 3D, and the race,
// asserted on what the page shows; one screenshot per view goes to tests/artifacts/demo/. Any
// console error, page error or failed request fails the test.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { root } from './helpers.js';
import { openSite } from './serve.js';

const artifacts = join(root, 'tests', 'artifacts', 'demo');
let site;

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  site = await openSite('demo', { root: join(root, 'demo'), configFile: join(root, 'demo', 'vite.config.js') });
  const { out } = site;
  assert.ok(existsSync(join(out, 'index.html')) && existsSync(join(out, 'favicon.svg')), 'the build wrote no site');
  assert.match(readFileSync(join(out, 'index.html'), 'utf8'), /src="\.\/assets\//, 'assets must be linked relatively (base ./)');
});

after(() => site?.close());

// traceWeld as the contract in demo/src/trace.js describes it, for builds whose meshweld has no
// meshweld/inspect yet: 2D only, plain JS, enough to drive the engine view. Cells of side
// max(2r, 1.236 x the uniform spacing), sorted by (i, j); each cell's points tested against the
// same cell's later points and the 4 neighbour cells after it; the walk merges into the earliest
// kept earlier neighbour (the naive result).
const TRACE_STAND_IN = `
export function traceWeld(points, { dim, radius }) {
  const n = points.length / dim, phases = [], clock = () => performance.now();
  let t = clock();
  const lap = (name) => { const now = clock(); phases.push({ name, ms: now - t }); t = now; };
  const first = new Map(), twin = new Int32Array(n), distinct = [];
  for (let i = 0; i < n; i++) {
    const key = points[2 * i] + ',' + points[2 * i + 1];
    if (first.has(key)) twin[i] = first.get(key); else { first.set(key, i); twin[i] = i; distinct.push(i); }
  }
  lap('duplicates');
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const i of distinct) { x0 = Math.min(x0, points[2 * i]); x1 = Math.max(x1, points[2 * i]); y0 = Math.min(y0, points[2 * i + 1]); y1 = Math.max(y1, points[2 * i + 1]); }
  const cellSize = Math.max(2 * radius * (1 + 2 ** -16), 1.2360679774997896 * Math.sqrt(((x1 - x0) * (y1 - y0) || 1) / n));
  const ci = (i) => Math.floor(points[2 * i] / cellSize), cj = (i) => Math.floor(points[2 * i + 1] / cellSize);
  const order = Uint32Array.from(distinct).sort((a, b) => ci(a) - ci(b) || cj(a) - cj(b) || a - b);
  const keys = [], start = [];
  order.forEach((i, k) => { if (!k || ci(i) !== ci(order[k - 1]) || cj(i) !== cj(order[k - 1])) { keys.push(ci(i), cj(i), 0); start.push(k); } });
  start.push(order.length);
  const index = new Map();
  for (let c = 0; c < start.length - 1; c++) index.set(keys[3 * c] + ',' + keys[3 * c + 1], c);
  lap('sort');
  const pairs = [];
  let tests = 0;
  const close = (a, b) => { tests++; return Math.hypot(points[2 * a] - points[2 * b], points[2 * a + 1] - points[2 * b + 1]) <= radius; };
  for (let c = 0; c < start.length - 1; c++) {
    const [i, j] = [keys[3 * c], keys[3 * c + 1]];
    for (let p = start[c]; p < start[c + 1]; p++) {
      const a = order[p];
      for (let q = p + 1; q < start[c + 1]; q++) if (close(a, order[q])) pairs.push(Math.min(a, order[q]), Math.max(a, order[q]));
      for (const [di, dj] of [[0, 1], [1, -1], [1, 0], [1, 1]]) {
        const d = index.get((i + di) + ',' + (j + dj));
        if (d === undefined) continue;
        for (let q = start[d]; q < start[d + 1]; q++) if (close(a, order[q])) pairs.push(Math.min(a, order[q]), Math.max(a, order[q]));
      }
    }
  }
  lap('pairs');
  const earlier = new Map();
  for (let k = 0; k < pairs.length; k += 2) { if (!earlier.has(pairs[k + 1])) earlier.set(pairs[k + 1], []); earlier.get(pairs[k + 1]).push(pairs[k]); }
  lap('graph');
  const remap = new Uint32Array(n), kept = new Uint8Array(n);
  let count = 0;
  for (let i = 0; i < n; i++) {
    if (twin[i] !== i) { remap[i] = remap[twin[i]]; continue; }
    const into = (earlier.get(i) ?? []).sort((a, b) => a - b).find((a) => kept[a]);
    if (into === undefined) { kept[i] = 1; remap[i] = count++; } else remap[i] = remap[into];
  }
  lap('walk');
  return { remap, count, cellSize, engine: 'spatial', distinct: Uint32Array.from(distinct), order,
    cellKeys: Int32Array.from(keys), cellStart: Uint32Array.from(start), pairs: Uint32Array.from(pairs), tests, phases };
}
`;

// A page on the demo with every console error, page error and failed request recorded. With
// `trace`, a build without meshweld/inspect gets TRACE_STAND_IN in place of its stand-in module.
async function open(query = '', { touch = false, trace = false } = {}) {
  const page = await site.browser.newPage({ viewport: { width: 1200, height: 900 }, hasTouch: touch });
  const problems = [];
  const fallback = readdirSync(join(site.out, 'assets')).find((f) => f.startsWith('inspect-fallback'));
  if (trace && fallback) {
    await page.route(`**/assets/${fallback}`, (route) => route.fulfill({ contentType: 'text/javascript', body: TRACE_STAND_IN }));
  }
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  page.on('response', (r) => r.status() >= 400 && problems.push(`HTTP ${r.status()}: ${r.url()}`));
  await page.goto(site.url + query);
  await page.waitForSelector('html[data-ready]', { timeout: 30000 });
  await settle(page);
  return { page, problems };
}

// render() runs in an animation frame after each change: two frames later it has run.
const settle = (page) => page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
const text = (page, selector) => page.locator(selector).textContent();
const number = async (page, selector) => Number((await text(page, selector)).replace(/[^0-9.]/g, ''));
const pixels = (page) => page.evaluate(() => document.querySelector('#cloud').toDataURL());
const query = async (page) => new URLSearchParams(await page.evaluate(() => location.search));
// How long a wait for the page to take in a change may last: generous, since a loaded machine
// (CI, tests in parallel) can be slow. It bounds a wait; it asserts nothing about speed.
const PATIENCE = 20000;
const waitForQuery = (page, key, value) =>
  page.waitForFunction(([k, v]) => new URLSearchParams(location.search).get(k) === v, [key, value], { timeout: PATIENCE });

// An edit in the URL (move=i_x_y, add=x_y), its coordinates within a pixel of the expected ones.
async function near(page, key, want) {
  await page.waitForFunction((k) => new URLSearchParams(location.search).has(k), key, { timeout: PATIENCE });
  const got = (await query(page)).get(key).split('_').map(Number);
  assert.equal(got.length, want.length, `${key}=${got}`);
  got.forEach((v, k) => assert.ok(Math.abs(v - want[k]) <= 0.25, `${key}=${got.join('_')}, expected about ${want.join('_')}`));
}

// The pixel position of world point (x, y) on the 100 x 60 field of the canvas.
async function at(page, x, y) {
  const box = await page.locator('#cloud').boundingBox();
  return [box.x + (x / 100) * box.width, box.y + (y / 60) * box.height];
}

async function pick(page, group, value) {
  await page.click(`#${group} button[data-value="${value}"]`);
  await settle(page);
  assert.equal(await page.getAttribute(`#${group} button[data-value="${value}"]`, 'aria-pressed'), 'true');
}

test('the page loads whole: text, figures, table, code, favicon, URL state', async () => {
  const { page, problems } = await open();
  assert.equal(await page.title(), 'Welding points, cell by cell · meshweld');
  assert.ok((await page.locator('article h2').count()) >= 8, 'the explanation sections');
  for (const id of ['fig-rules', 'fig-grid-r', 'fig-grid-2r', 'fig-hex', 'fig-kd']) {
    assert.equal(await page.locator(`#${id} svg`).count(), 1, `${id} is drawn`);
  }
  assert.equal(await page.locator('#fig-twins svg').count(), 4);
  // drag each figure's point; in the 2r figure, near the corner of its search cell the reach nears 3√2 r
  for (const id of ['fig-grid-r', 'fig-grid-2r', 'fig-hex', 'fig-kd']) {
    await page.locator(`#${id}`).scrollIntoViewIfNeeded();
    const before = await page.locator(`#${id} svg`).innerHTML();
    const handle = await page.locator(`#${id} .handle`).boundingBox();
    const figure = await page.locator(`#${id} svg`).boundingBox();
    await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
    await page.mouse.down();
    await page.mouse.move(figure.x + figure.height * 0.435, figure.y + figure.height * 0.435, { steps: 5 });
    await page.mouse.up();
    assert.notEqual(await page.locator(`#${id} svg`).innerHTML(), before, `${id} follows the drag`);
  }
  const reach = parseFloat(await text(page, '#fig-grid-2r text.far'));
  assert.ok(reach > 3.5 && reach <= 4.25, `reach ${reach} r from the dragged point`);
  // the twins figure quotes the module: exact copies share an output, B's search starts at its own cell
  assert.equal(await text(page, '#twins-remap'), '[0, 0, 1, 0]');
  assert.match(await text(page, '#twins-order'), /^\(1, 0\), \(0, 0\)/);
  assert.equal(await page.locator('#methods-table tbody tr').count(), 6);
  assert.equal(await page.getAttribute('#methods-table tr.current', 'data-row'), 'grid-2r');
  assert.match(await text(page, '#code-call'), /method: 'grid-2r', store: 'loose'/);
  assert.match(await text(page, '#code-loop'), /Math\.floor\(p\.x \/ c \+ 0\.5\)/);
  const q = await query(page);
  assert.deepEqual([q.get('method'), q.get('store'), q.get('preset')], ['grid-2r', 'loose', 'procgen']);
  const n = await number(page, '#out-in'), kept = await number(page, '#out-out');
  assert.ok(kept > 0 && kept < n, `${kept} out of ${n}: the procgen borders weld`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('each method draws its own view, numbers and code; precise stores give the naive result', async () => {
  const { page, problems } = await open('?preset=procgen&n=300&r=1&seed=1');
  const expected = {
    naive: { bound: '1.00 r', lookups: null },
    'grid-r': { bound: '2.83 r', lookups: '9' },
    'grid-2r': { bound: '4.24 r', lookups: '4' },
    hex: { bound: '5.29 r', lookups: '3' },
    kdtree: { bound: '1.00 r', lookups: '1' },
    grid: { bound: '1.00 r', lookups: null },
  };
  const seen = new Map();
  for (const [method, want] of Object.entries(expected)) {
    await pick(page, 'method', method);
    await waitForQuery(page, 'method', method);
    assert.equal(await text(page, '#out-bound'), want.bound, `${method}: R`);
    if (want.lookups) assert.equal(await text(page, '#out-lookups'), want.lookups, `${method}: look-ups`);
    else if (method === 'naive') assert.ok((await number(page, '#out-lookups')) > 1, 'naive: distance checks per point');
    else {
      const cellsTouched = await number(page, '#out-lookups');
      assert.ok(cellsTouched >= 1 && cellsTouched <= 4, `grid: ${cellsTouched} cells per r-box`);
    }
    const far = await number(page, '#out-far');
    assert.ok(far > 0 && far <= parseFloat(want.bound), `${method}: largest merge ${far} r within R`);
    assert.match(await text(page, '#code-call'), new RegExp(`method: '${method}'`));
    assert.match(await text(page, '#out-method'), new RegExp(`^${method}`));
    assert.equal(await page.getAttribute('#methods-table tr.current', 'data-row'), method);
    const image = await pixels(page);
    for (const [other, earlier] of seen) assert.notEqual(image, earlier, `${method} draws the same canvas as ${other}`);
    seen.set(method, image);
    await page.locator('#playground').screenshot({ path: join(artifacts, `method-${method}.png`) });
  }
  await pick(page, 'method', 'naive');
  const naive = await number(page, '#out-out');
  await pick(page, 'store', 'precise');
  for (const method of ['grid-r', 'grid-2r', 'hex', 'kdtree', 'grid']) {
    await pick(page, 'method', method);
    assert.equal(await number(page, '#out-out'), naive, `${method} precise differs from naive`);
    assert.equal(await text(page, '#out-bound'), '1.00 r');
  }
  await waitForQuery(page, 'store', 'precise');
  assert.deepEqual(problems, []);
  await page.close();
});

test('the r slider moves r, and every number and drawing follows', async () => {
  const { page, problems } = await open('?method=grid-2r&store=loose&preset=uniform&n=2000&r=0.5&seed=4');
  const before = { out: await number(page, '#out-out'), image: await pixels(page), R: await text(page, '[data-live="R"]') };
  assert.equal(await text(page, '#radius-out'), '0.5');
  await page.focus('#radius');
  for (let k = 0; k < 12; k++) await page.keyboard.press('ArrowRight'); // 12 steps of 1/8
  await settle(page);
  assert.equal(await text(page, '#radius-out'), '2');
  await waitForQuery(page, 'r', '2');
  assert.ok((await number(page, '#out-out')) < before.out, 'a larger r merges more');
  assert.notEqual(await pixels(page), before.image);
  assert.equal(await text(page, '[data-live="R"]'), '8.49', 'R in the text: 4.24 r at r = 2');
  assert.notEqual(await text(page, '[data-live="R"]'), before.R);
  assert.match(await text(page, '#code-call'), /radius: 2,/);
  assert.match(await text(page, '#code-loop'), /^const r = 2;/);
  assert.match(await text(page, '#methods-table tr[data-row="hex"]'), /5\.29 r = 10\.58/);
  await page.locator('#playground').screenshot({ path: join(artifacts, 'radius-2.png') });
  assert.deepEqual(problems, []);
  await page.close();
});

test('hover explains a point; dragging and clicking change the weld; the URL reproduces it', async () => {
  // a row of 5 points r = 2 apart at x = 5, 7, 9, 11, 13 (y = 30): naive keeps 0, 2 and 4
  const { page, problems } = await open('?method=naive&preset=row&n=5&r=2');
  assert.equal(await number(page, '#out-in'), 5);
  assert.equal(await number(page, '#out-out'), 3);
  await page.mouse.move(...(await at(page, 7, 30)));
  await settle(page);
  assert.match(await text(page, '#step-text'), /^Point 1 .*output 0 is the first within r, 1\.00 r away: merged/);
  await page.mouse.move(...(await at(page, 9, 30)));
  await settle(page);
  assert.match(await text(page, '#step-text'), /^Point 2 .*none within r: kept as output 1/);

  // drag point 1 away: it becomes an output of its own, and point 2 stays one
  const start = await pixels(page);
  await page.mouse.move(...(await at(page, 7, 30)));
  await page.mouse.down();
  await page.mouse.move(...(await at(page, 30, 40)), { steps: 4 });
  await page.mouse.move(...(await at(page, 50, 45)), { steps: 4 });
  await page.mouse.up();
  await settle(page);
  assert.equal(await number(page, '#out-out'), 4);
  assert.notEqual(await pixels(page), start);
  await near(page, 'move', [1, 50, 45]);

  // click empty space: a sixth point, far from all, a fifth output
  await page.mouse.click(...(await at(page, 80, 10)));
  await settle(page);
  assert.equal(await number(page, '#out-in'), 6);
  assert.equal(await number(page, '#out-out'), 5);
  await near(page, 'add', [80, 10]);
  await page.locator('#playground').screenshot({ path: join(artifacts, 'dragged.png') });

  // the link reproduces the edited view (the pointer leaves the canvas: no hover highlight)
  await page.mouse.move(5, 5);
  await settle(page);
  const link = await page.evaluate(() => location.search);
  const again = await open(link);
  assert.equal(await number(again.page, '#out-in'), 6);
  assert.equal(await number(again.page, '#out-out'), 5);
  assert.equal(await pixels(again.page), await pixels(page));
  assert.deepEqual([...problems, ...again.problems], []);
  await again.page.close();
  await page.close();
});

test('step mode walks the greedy loop forward and back, and plays to the end', async () => {
  const { page, problems } = await open('?method=grid-2r&store=loose&preset=row&n=5&r=2');
  const whole = await pixels(page);
  await page.click('#step-start');
  await settle(page);
  assert.equal(await text(page, '#step-count'), 'step 0 of 5');
  assert.match(await text(page, '#step-text'), /^Nothing welded yet/);
  assert.notEqual(await pixels(page), whole);
  // zoom in on the row with the wheel: the cells grow, the URL keeps the view
  await page.mouse.move(...(await at(page, 9, 30)));
  for (let k = 0; k < 8; k++) await page.mouse.wheel(0, -100);
  await settle(page);
  await page.mouse.move(5, 5);
  await settle(page);
  await page.waitForFunction(() => Number(new URLSearchParams(location.search).get('zoom')) > 5, null, { timeout: PATIENCE });
  assert.equal(await page.isDisabled('#zoom-reset'), false);
  await page.click('#step-forward');
  await settle(page);
  assert.equal(await text(page, '#step-count'), 'step 1 of 5');
  assert.match(await text(page, '#step-text'), /^Point 0 .*kept as output 0 and stored in cell/);
  const one = await pixels(page);
  await page.click('#step-forward');
  await settle(page);
  assert.match(await text(page, '#step-text'), /^Point 1 .*holds output 0, 1\.00 r away: merged, with no distance check/);
  assert.notEqual(await pixels(page), one);
  await waitForQuery(page, 'step', '2');
  await page.locator('#playground').screenshot({ path: join(artifacts, 'step-merge.png') });
  await page.click('#step-back');
  await settle(page);
  assert.equal(await text(page, '#step-count'), 'step 1 of 5');
  assert.equal(await pixels(page), one, 'a step back redraws the same state');
  // the precise store scans every cell before it merges
  await pick(page, 'store', 'precise');
  await page.click('#step-forward');
  await settle(page);
  assert.match(await text(page, '#step-text'), /^Point 1 .*all 4 cells searched; the earliest kept point within r is output 0/);
  await page.click('#step-play');
  await page.waitForFunction(() => document.querySelector('#step-count').textContent === 'step 5 of 5', null, { timeout: PATIENCE });
  await settle(page);
  assert.equal(await text(page, '#step-play'), 'play', 'playing stops at the end');
  await page.click('#step-all');
  await settle(page);
  assert.match(await text(page, '#step-count'), /^the whole weld/);
  assert.equal(await number(page, '#out-out'), 3);
  assert.deepEqual(problems, []);
  await page.close();
});

test('100,000 points: every grid method and the kd-tree weld them, the page stays usable', async () => {
  const { page, problems } = await open('?method=grid-2r&preset=uniform&n=100000&r=0.25&seed=2');
  assert.equal(await text(page, '#out-in'), '100,000');
  assert.equal(await text(page, '#count-out'), '100,000');
  const counts = {};
  for (const method of ['grid-r', 'hex', 'kdtree', 'grid-2r']) {
    await pick(page, 'method', method);
    counts[method] = await number(page, '#out-out');
    assert.ok(counts[method] > 1000 && counts[method] < 100000, `${method}: ${counts[method]} out`);
  }
  const image = await pixels(page);
  await page.mouse.click(...(await at(page, 50.3, 30.3))); // add one, or pick and drop one
  await settle(page);
  assert.ok((await number(page, '#out-in')) >= 100000);
  await page.locator('#playground').screenshot({ path: join(artifacts, 'points-100000.png') });
  // naive would be quadratic here: it waits to be asked
  await pick(page, 'method', 'naive');
  assert.equal(await page.locator('#naive-note').isVisible(), true);
  assert.equal(await text(page, '#out-out'), '–');
  assert.notEqual(await pixels(page), image);
  assert.deepEqual(problems, []);
  await page.close();
});

// A cube as an OBJ triangle soup: 12 triangles, 36 corners of their own.
function cubeSoup() {
  const corner = (k) => [k & 1, (k >> 1) & 1, (k >> 2) & 1];
  const faces = [[0, 2, 3], [0, 3, 1], [4, 5, 7], [4, 7, 6], [0, 1, 5], [0, 5, 4], [2, 6, 7], [2, 7, 3], [0, 4, 6], [0, 6, 2], [1, 3, 7], [1, 7, 5]];
  const lines = [];
  faces.forEach((face, t) => {
    for (const k of face) lines.push(`v ${corner(k).join(' ')}`);
    lines.push(`f ${3 * t + 1} ${3 * t + 2} ${3 * t + 3}`);
  });
  return `${lines.join('\n')}\n`;
}

test('3D: a dropped STL and a chosen OBJ weld into closed meshes, open edges shown before and after', async () => {
  const { page, problems } = await open('?method=grid-2r&store=loose');
  await page.waitForSelector('html[data-mesh-ready]', { timeout: 30000 }); // three.js loads after the playground
  const section = page.locator('#mesh');
  await section.scrollIntoViewIfNeeded();
  const blank = await page.locator('#mesh-after').screenshot();
  // drop the sample gear wheel onto the section, as a file dragged from the desktop
  const stl = readFileSync(join(root, 'node_modules', 'stl-models', 'objects', 'gearwheel.bin.stl'));
  await page.evaluate((bytes) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([new Uint8Array(bytes)], 'gearwheel.bin.stl'));
    document.querySelector('#mesh').dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, [...stl]);
  await page.waitForFunction(() => document.querySelector('#mesh').dataset.loaded === '1', null, { timeout: PATIENCE });
  await settle(page);
  const figures = async () => Promise.all(
    ['before-vertices', 'before-triangles', 'before-open', 'after-vertices', 'after-triangles', 'after-open'].map((id) => text(page, `#mesh-${id}`)),
  );
  assert.deepEqual(await figures(), ['7,332', '2,444', '7,332', '1,222', '2,444', '0']);
  assert.match(await text(page, '#mesh-status'), /^gearwheel\.bin\.stl: welded with r = /);
  assert.match(await text(page, '#mesh-code'), /method: 'grid-2r', store: 'loose'/);
  const welded = await page.locator('#mesh-after').screenshot();
  assert.notEqual(Buffer.compare(welded, blank), 0, 'the after view is drawn');
  await section.screenshot({ path: join(artifacts, 'mesh-gearwheel.png') });

  // a coarser r: the loose store merges gear teeth, the precise one keeps every vertex
  await page.selectOption('#mesh-tolerance', { label: '0.001 × diagonal' });
  await settle(page);
  const loose = await number(page, '#mesh-after-vertices');
  assert.ok(loose < 1222, `loose store at 1e-3: ${loose} vertices`);
  await waitForQuery(page, 'tol', '0.001');
  await pick(page, 'store', 'precise');
  assert.equal(await text(page, '#mesh-after-vertices'), '1,222');
  await pick(page, 'method', 'hex');
  assert.match(await text(page, '#mesh-status'), /bcc, its 3D counterpart, runs here/);
  assert.match(await text(page, '#mesh-code'), /method: 'bcc'/);
  await page.check('#mesh-wireframe');
  await settle(page);
  assert.notEqual(Buffer.compare(await page.locator('#mesh-after').screenshot(), welded), 0, 'wireframe view');
  await section.screenshot({ path: join(artifacts, 'mesh-wireframe.png') });

  // an OBJ through the file input
  await page.setInputFiles('#mesh-file', { name: 'cube.obj', mimeType: 'text/plain', buffer: Buffer.from(cubeSoup()) });
  await page.waitForFunction(() => document.querySelector('#mesh-status').textContent.startsWith('cube.obj'), null, { timeout: PATIENCE });
  assert.deepEqual(await figures(), ['36', '12', '36', '8', '12', '0']);
  assert.deepEqual(problems, []);
  await page.close();
});

test('grid: its data-sized cells, the r-box of a hovered point, the cell-size figure; touch taps select', async () => {
  const { page, problems } = await open('?method=grid&preset=procgen&n=300&r=1&seed=1');
  assert.equal(await text(page, '#out-bound'), '1.00 r');
  assert.match(await text(page, '#out-method'), /^grid, always precise/);
  assert.match(await text(page, '#code-loop'), /cellsTouchedBy\(p\.x - r/);
  assert.equal(await page.getAttribute('#fig-grid svg', 'class'), 'current-figure');
  assert.match(await text(page, '#fig-grid svg'), /cell side s = \d/);
  assert.match(await text(page, '#grid-touched'), /1 cell: \d+\.\d %/);
  // a row of points r = 2 apart: hover point 1, its r-box touches one cell or a few
  await page.goto(`${site.url}?method=grid&preset=row&n=5&r=2`);
  await page.waitForSelector('html[data-ready]');
  await settle(page);
  await page.mouse.move(...(await at(page, 7, 30)));
  await settle(page);
  assert.match(await text(page, '#step-text'), /^Point 1 .*its r-box touches (one cell|\d cells) of side .*output 0, 1\.00 r away: merged/);
  await page.locator('#playground').screenshot({ path: join(artifacts, 'grid-hover.png') });
  // the step mode runs grid through a Welder like any other method
  await page.click('#step-start');
  await page.focus('#cloud');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await settle(page);
  assert.equal(await text(page, '#step-count'), 'step 2 of 5');
  assert.match(await text(page, '#step-text'), /^Point 1 .*r-box touches/);
  await page.keyboard.press('End');
  await settle(page);
  assert.match(await text(page, '#step-count'), /^the whole weld/);
  assert.deepEqual(problems, []);
  await page.close();

  // a finger: a tap on a point selects it (no hover on touch screens), a tap elsewhere adds one
  const touch = await open('?method=naive&preset=row&n=5&r=2', { touch: true });
  await touch.page.touchscreen.tap(...(await at(touch.page, 7, 30)));
  await settle(touch.page);
  assert.match(await text(touch.page, '#step-text'), /^Point 1 .*output 0 is the first within r/);
  await touch.page.touchscreen.tap(...(await at(touch.page, 80, 10)));
  await settle(touch.page);
  assert.equal(await number(touch.page, '#out-in'), 6);
  assert.deepEqual(touch.problems, []);
  await touch.page.close();
});

test('the page reads whole without JavaScript: the prose carries its numbers', async () => {
  const page = await site.browser.newPage({ javaScriptEnabled: false });
  await page.goto(site.url);
  const rule = await page.locator('li', { hasText: 'never merges' }).first().textContent();
  assert.match(rule.replace(/\s+/g, ' '), /for grid-2r with the loose store it is 4\.24 r, here 4\.24\./);
  assert.equal(await page.locator('#methods-table tbody tr').count(), 6);
  assert.equal(await text(page, '#twins-remap'), '[0, 0, 1, 0]');
  for (const node of await page.locator('[data-live]').all()) assert.notEqual((await node.textContent()).trim(), '', 'an empty live number');
  await page.close();
});

test('the spatial engine: without a trace it shows the cells; with one it steps through every phase', async () => {
  const real = !readdirSync(join(site.out, 'assets')).some((f) => f.startsWith('inspect-fallback'));
  if (!real) {
    // this build's meshweld has no traceWeld: the section says so and still shows grid's cells
    const { page, problems } = await open('?preset=procgen&n=300&r=1&seed=1');
    await page.locator('#engine').scrollIntoViewIfNeeded();
    assert.equal(await page.locator('#engine-note').isVisible(), true);
    assert.match(await text(page, '#engine-text'), /^Without the trace/);
    assert.equal(await page.isDisabled('#engine-forward'), true);
    const box = await page.locator('#engine-canvas').boundingBox();
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
    await page.mouse.move(box.x + box.width * 0.04, box.y + box.height * (4 / 60));
    await settle(page);
    assert.match(await text(page, '#engine-text'), /its r-box \(dashed\) touches (one cell|\d cells)/);
    await page.locator('#engine').screenshot({ path: join(artifacts, 'engine-cells.png') });
    assert.deepEqual(problems, []);
    await page.close();
  }
  // the trace: the module's, or the contract's stand-in when the module has none yet
  const { page, problems } = await open('?method=grid&preset=procgen&n=300&r=1&seed=1', { trace: true });
  await page.locator('#engine').scrollIntoViewIfNeeded();
  assert.equal(await page.locator('#engine-note').isVisible(), false);
  assert.match(await text(page, '#out-lookups-note'), /from the module/);
  assert.equal(await text(page, '#engine-kind'), 'spatial');
  const pairs = await number(page, '#engine-pairs');
  assert.ok(pairs > 0, `${pairs} pairs within r`);
  assert.equal(await page.locator('#engine-phases tbody tr').count(), 6);
  assert.match(await text(page, '#engine-text'), /points in, \d+ out, exactly the naive result/);
  // the engine's count equals the playground's grid weld
  assert.match(await text(page, '#engine-text'), new RegExp(`in, ${await text(page, '#out-out')} out`));
  await page.click('#engine-forward');
  await settle(page);
  assert.match(await text(page, '#engine-count'), /^step 1 of [\d,]+: exact copies$/);
  assert.match(await text(page, '#engine-text'), /distinct positions/);
  await waitForQuery(page, 'engine', '0');
  await page.click('[data-phase="sort"]');
  await settle(page);
  assert.match(await text(page, '#engine-text'), /^Cell 1 of [\d,]+, \(-?\d+, -?\d+\), holds \d+ points?/);
  await page.focus('#engine-canvas');
  await page.keyboard.press('ArrowRight');
  await settle(page);
  assert.match(await text(page, '#engine-text'), /^Cell 2 of/);
  await page.click('[data-phase="pairs"]');
  for (let k = 0; k < 40; k++) await page.keyboard.press('ArrowRight');
  await settle(page);
  assert.match(await text(page, '#engine-count'), /pairs within r$/);
  assert.match(await text(page, '#engine-text'), /pairs? within r found here \(red\), [\d,]+ of [\d,]+ so far/);
  await page.locator('#engine').screenshot({ path: join(artifacts, 'engine-pairs.png') });
  await page.click('[data-phase="graph"]');
  await settle(page);
  assert.match(await text(page, '#engine-text'), new RegExp(`^${pairs} pairs within r, turned into a graph`));
  await page.click('[data-phase="walk"]');
  // step through the walk until a merge shows
  let merged = false;
  for (let k = 0; k < 120 && !merged; k++) {
    await page.keyboard.press('ArrowRight');
    merged = /merged, exactly as naive would/.test(await text(page, '#engine-text'));
  }
  await settle(page);
  assert.ok(merged, 'the walk reaches a merge');
  assert.match(await text(page, '#engine-count'), /walk in input order$/);
  await page.locator('#engine').screenshot({ path: join(artifacts, 'engine-walk.png') });
  // play runs to the end and stops
  await page.selectOption('#speed', '3');
  await page.click('[data-phase="walk"]');
  await page.click('#engine-play');
  await page.waitForFunction(() => document.querySelector('#engine-forward').disabled, null, { timeout: PATIENCE });
  await settle(page);
  assert.equal(await text(page, '#engine-play'), 'play', 'playing stops at the last step');
  await page.keyboard.press('End');
  await settle(page);
  assert.match(await text(page, '#engine-count'), /^the whole trace/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('BCC in 3D: the point dragged in 3D, 4 truncated octahedra beside 8 cubes, the clouds welded', async () => {
  const { page, problems } = await open();
  await page.waitForSelector('html[data-mesh-ready]', { timeout: 30000 });
  const section = page.locator('#bcc');
  await section.scrollIntoViewIfNeeded();
  await page.waitForSelector('#bcc[data-drawn]', { timeout: PATIENCE }); // its views start when it comes into sight
  await settle(page);
  assert.match(await text(page, '#bcc-cells-caption'), /^bcc: 4 truncated octahedra searched \(cube edge 5\.66 r\)/);
  assert.match(await text(page, '#bcc-cells-caption'), /loose R = 8\.60 r/);
  assert.match(await text(page, '#bcc-cubes-caption'), /^grid-2r: 8 cubes of side 2\.00 r searched.*loose R = 5\.20 r/);
  await page.locator('#bcc .mesh-views').first().screenshot({ path: join(artifacts, 'bcc-cells.png') });
  // drag the point: press on it, move; the cells follow and the URL keeps it
  const before = { point: await section.getAttribute('data-point'), keys: await text(page, '#bcc-cells-caption'), image: await page.locator('#bcc-cells').screenshot() };
  const box = await page.locator('#bcc-cells').boundingBox();
  const [hx, hy] = (await page.getAttribute('#bcc-cells', 'data-handle')).split(' ').map(Number);
  await page.mouse.move(box.x + hx, box.y + hy);
  await page.mouse.down();
  await page.mouse.move(box.x + hx + 70, box.y + hy - 40, { steps: 6 });
  await page.mouse.up();
  await settle(page);
  const moved = await section.getAttribute('data-point');
  assert.notEqual(moved, before.point, 'the point follows the drag');
  await page.waitForFunction(() => new URLSearchParams(location.search).has('bcc'), null, { timeout: PATIENCE });
  assert.notEqual(Buffer.compare(await page.locator('#bcc-cells').screenshot(), before.image), 0, 'redrawn');
  // a drag away from the point turns the view and leaves the point where it is
  const turned = await page.locator('#bcc-cubes').screenshot();
  const cubes = await page.locator('#bcc-cubes').boundingBox();
  await page.mouse.move(cubes.x + 20, cubes.y + cubes.height - 20);
  await page.mouse.down();
  await page.mouse.move(cubes.x + 120, cubes.y + cubes.height - 60, { steps: 6 });
  await page.mouse.up();
  await settle(page);
  assert.equal(await section.getAttribute('data-point'), moved);
  assert.notEqual(Buffer.compare(await page.locator('#bcc-cubes').screenshot(), turned), 0, 'the view turned');
  await section.screenshot({ path: join(artifacts, 'bcc-dragged.png') });
  // the clouds: both loose stores find the copies, bcc merges across vertices far more
  const out = async (id) => Number((await page.locator(`#bcc-cloud-${id}-caption [data-out]`).textContent()).replace(/,/g, ''));
  const grid2r = await out('grid'), bcc = await out('bcc');
  assert.ok(bcc < grid2r, `bcc keeps ${bcc}, grid-2r ${grid2r}`);
  assert.match(await text(page, '#bcc-cloud-bcc-caption'), /the precise store keeps 343; 343 true vertices/);
  await page.locator('#bcc .mesh-views').nth(1).screenshot({ path: join(artifacts, 'bcc-clouds.png') });
  // the link reproduces the dragged point
  const again = await open(await page.evaluate(() => location.search));
  await again.page.waitForSelector('html[data-mesh-ready]', { timeout: 30000 });
  await again.page.locator('#bcc').scrollIntoViewIfNeeded();
  await again.page.waitForSelector('#bcc[data-drawn]', { timeout: PATIENCE });
  assert.equal(await again.page.getAttribute('#bcc', 'data-point'), moved);
  assert.deepEqual([...problems, ...again.problems], []);
  await again.page.close();
  await page.close();
});

test('the race: every method in a worker, the bars and the log-log sweep, measured in this browser', async () => {
  const { page, problems } = await open('?preset=procgen&n=2000&r=0.5&race=10000');
  await page.locator('#race').scrollIntoViewIfNeeded();
  assert.match(await text(page, '#race-status'), /^Nothing measured yet/);
  await page.click('#race-run');
  // the page stays usable while the worker runs
  await pick(page, 'method', 'hex');
  await page.waitForFunction(() => document.querySelector('#race').dataset.state === 'done', null, { timeout: 60000 });
  await settle(page);
  assert.match(await text(page, '#race-status'), /^Measured in this browser .*[\d,]+ points, r = 0\.5/);
  for (const method of ['naive', 'grid-r', 'grid-2r', 'hex', 'kdtree', 'grid', 'meshopt']) {
    assert.match(await text(page, `#race-bars [data-bar="${method}"]`), /\d ms/, `${method}: a time`);
    assert.equal(await page.locator(`#race-plot [data-series="${method}"] circle`).count(), 3, `${method}: 1,000 to 10,000 points`);
  }
  assert.match(await text(page, '#race-bars [data-bar="grid-2r"]'), /4\.00 cells, at most/);
  assert.match(await text(page, '#race-bars [data-bar="naive"]'), /distance checks/);
  await page.locator('#race').screenshot({ path: join(artifacts, 'race.png') });
  assert.deepEqual(problems, []);
  await page.close();
});
