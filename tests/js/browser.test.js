// The package in headless Chromium: bundled by Vite, on the page and in a module Web Worker.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { build } from 'vite';
import { root } from './helpers.js';
import { chromiumPath, launch, serve } from './serve.js';

const out = mkdtempSync(join(tmpdir(), 'meshweld-browser-'));
let server, browser;

before(async () => {
  assert.ok(existsSync(chromiumPath), `no Chromium at ${chromiumPath} (apt-get install chromium)`);
  await build({
    root: join(root, 'tests', 'browser'),
    logLevel: 'warn',
    resolve: {
      alias: [
        { find: /^meshweld\/three$/, replacement: join(root, 'js', 'three.js') },
        { find: /^meshweld$/, replacement: join(root, 'js', 'index.js') },
      ],
    },
    build: { outDir: out, emptyOutDir: true },
    worker: { format: 'es' },
  });
  server = await serve(out);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
  rmSync(out, { recursive: true, force: true });
});

test('meshweld and meshweld/three weld in the browser and in a Web Worker, with the same results', async () => {
  const page = await browser.newPage();
  const problems = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(server.url);
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
