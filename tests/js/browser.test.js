// The package in headless Chromium: bundled by Vite, on the page and in a module Web Worker.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { root } from './helpers.js';
import { openSite } from './serve.js';

let site;

before(async () => {
  site = await openSite('browser', {
    root: join(root, 'tests', 'browser'),
    resolve: {
      alias: [
        { find: /^meshweld\/three$/, replacement: join(root, 'js', 'three.js') },
        { find: /^meshweld$/, replacement: join(root, 'js', 'index.js') },
      ],
    },
    worker: { format: 'es' },
  });
});

after(() => site?.close());

test('meshweld and meshweld/three weld in the browser and in a Web Worker, with the same results', async () => {
  const page = await site.browser.newPage();
  const problems = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(site.url);
  await page.waitForFunction(() => window.__results, null, { timeout: 30000 });
  const { page: main, worker } = await page.evaluate(() => window.__results);
  assert.deepEqual(problems, []);
  for (const method of ['naive', 'grid-r', 'grid-2r', 'bcc', 'kdtree', 'auto']) {
    assert.equal(main[method].pairs, 0, `${method}: pairs within r on the page`);
    assert.ok(main[method].count > 0);
  }
  assert.equal(main.auto.method, 'grid');
  assert.ok(main.incremental.same, 'incremental welder differs from the one-shot weld');
  assert.match(main.error, /point 0 has a non-finite coordinate y = NaN/);
  assert.deepEqual(main.three, { vertices: 482, triangles: 960, open: 0 }, 'meshweld/three in the browser');
  assert.deepEqual(worker, main, 'the worker computed something else');
  await page.close();
});
