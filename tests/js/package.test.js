// npm pack, install the tarball into an empty folder, import it and weld; type-check a usage file
// against the installed package with tsc --strict (moduleResolution nodenext and node10); run the
// README's examples there: the js blocks in Node, the import-map page and the first example built
// by Vite in headless Chromium.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { root } from './helpers.js';
import { exampleData, readmeBlocks, runBlocks } from './readme.js';
import { chromiumPath, launch, serve } from './serve.js';

const work = mkdtempSync(join(tmpdir(), 'meshweld-pack-'));
after(() => rmSync(work, { recursive: true, force: true }));
const quiet = { cwd: work, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' };

test('the packed tarball installs into an empty folder and welds', () => {
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', work, root], quiet));
  const files = packed[0].files.map((f) => f.path).sort();
  for (const file of ['js/index.js', 'js/index.d.ts', 'js/heap.js', 'js/check.js', 'js/points.js', 'js/engine.js', 'js/mesh.js',
    'js/gather.js', 'js/three.js', 'js/three.d.ts', 'js/inspect.js', 'js/inspect.d.ts', 'js/gltf-transform.js',
    'js/gltf-transform.d.ts', 'js/wasm-inline.js', 'js/meshweld.wasm']) {
    assert.ok(files.includes(file), `${file} is not in the package`);
  }
  assert.ok(!files.some((f) => f.startsWith('tests/') || f.startsWith('demo/') || f.startsWith('bench/') || f.startsWith('cli/')), files.join(' '));
  assert.ok(!files.includes('js/build-wasm.sh'), 'the build script is not shipped');
  // npm install meshweld pulls in nothing: three and glTF-Transform are optional peers
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  assert.deepEqual(manifest.dependencies ?? {}, {});
  for (const peer of ['three', '@types/three', '@gltf-transform/core']) assert.equal(manifest.peerDependenciesMeta[peer]?.optional, true, peer);
  const app = join(work, 'app');
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', join(work, tarball)], { ...quiet, cwd: app });
  const out = execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { ready, weld } from 'meshweld';
       await ready;
       const r = weld(new Float32Array([0, 0, 0, 0, 0, 1e-4, 1, 1, 1]), { radius: 1e-3 });
       console.log(JSON.stringify({ remap: [...r.remap], count: r.count, method: r.method }));`,
    ],
    { ...quiet, cwd: app },
  );
  assert.deepEqual(JSON.parse(out), { remap: [0, 0, 1], count: 2, method: 'grid' });

  // meshweld/three, with the optional peer three (and its types) beside it
  mkdirSync(join(app, 'node_modules', '@types'), { recursive: true });
  symlinkSync(join(root, 'node_modules', 'three'), join(app, 'node_modules', 'three'));
  symlinkSync(join(root, 'node_modules', '@types', 'three'), join(app, 'node_modules', '@types', 'three'));
  const three = execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { BoxGeometry } from 'three';
       import { ready, weldGeometry } from 'meshweld/three';
       await ready;
       const g = weldGeometry(new BoxGeometry().toNonIndexed(), { attributes: 'position' });
       console.log(g.getAttribute('position').count, g.index.count);`,
    ],
    { ...quiet, cwd: app },
  );
  assert.equal(three.trim(), '8 36');

  // meshweld/gltf-transform, with the optional peer @gltf-transform/core beside it; the installed
  // app has no other package than meshweld and the links made here
  assert.deepEqual(readdirSync(join(app, 'node_modules')).filter((d) => !d.startsWith('.')).sort(), ['@types', 'meshweld', 'three']);
  mkdirSync(join(app, 'node_modules', '@gltf-transform'), { recursive: true });
  symlinkSync(join(root, 'node_modules', '@gltf-transform', 'core'), join(app, 'node_modules', '@gltf-transform', 'core'));
  symlinkSync(join(root, 'node_modules', 'property-graph'), join(app, 'node_modules', 'property-graph'));
  const gltf = execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { Document, Logger } from '@gltf-transform/core';
       import { weld } from 'meshweld/gltf-transform';
       const document = new Document().setLogger(new Logger(Logger.Verbosity.SILENT));
       const position = document.createAccessor().setType('VEC3').setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 1e-7, 0, 0, 1, 0, 0, 0, 1, 0]));
       document.createMesh().addPrimitive(document.createPrimitive().setAttribute('POSITION', position));
       await document.transform(weld({ radius: 1e-5 }));
       const p = document.getRoot().listMeshes()[0].listPrimitives()[0];
       console.log(p.getAttribute('POSITION').getCount(), p.getIndices().getCount());`,
    ],
    { ...quiet, cwd: app },
  );
  assert.equal(gltf.trim(), '3 6');

  // the types, from the installed package, under tsc --strict (lib esnext: glTF-Transform's types name Float16Array)
  cpSync(join(root, 'tests', 'types', 'usage.ts'), join(app, 'usage.ts'));
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    execFileSync(process.execPath, [tsc, '--strict', '--noEmit', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--lib', 'esnext,dom', '--skipLibCheck', 'false', 'usage.ts'], { ...quiet, cwd: app });
  } catch (e) {
    assert.fail(`tsc --strict failed:\n${e.stdout}${e.stderr}`);
  }
  // TypeScript 5's moduleResolution node10 (no exports map): subpaths through typesVersions
  const tsc5 = join(root, 'node_modules', 'typescript5', 'bin', 'tsc');
  try {
    execFileSync(process.execPath, [tsc5, '--strict', '--noEmit', '--module', 'commonjs', '--moduleResolution', 'node10', '--target', 'es2022', '--lib', 'esnext,dom', '--skipLibCheck', 'false', 'usage.ts'], { ...quiet, cwd: app });
  } catch (e) {
    assert.fail(`tsc --moduleResolution node10 failed:\n${e.stdout}${e.stderr}`);
  }
});

const readme = readFileSync(join(root, 'README.md'), 'utf8');
const app = join(work, 'app');

test('the README js examples run as written where the tarball is installed', () => {
  exampleData(app);
  runBlocks(readmeBlocks('js', readme), app);
});

const noChromium = !existsSync(chromiumPath) && process.env.CI !== 'true' && `no Chromium at ${chromiumPath}`;

test('the README page with an import map runs from the installed package files', { skip: noChromium }, async () => {
  const [html] = readmeBlocks('html', readme);
  writeFileSync(join(app, 'index.html'), html.code);
  const server = await serve(app);
  const browser = await launch();
  try {
    const page = await browser.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('response', (r) => r.status() >= 400 && !r.url().endsWith('/favicon.ico') && problems.push(`${r.status()} ${r.url()}`));
    await page.goto(server.url);
    await page.waitForFunction(() => document.body.textContent.includes('after the weld'), null, { timeout: 30000 });
    assert.equal(await page.evaluate(() => document.body.textContent), '2 points after the weld');
    assert.deepEqual(problems, []);
    // the other entry points resolve through the same map
    const three = await page.evaluate(async () => {
      const { ready, weldGeometry } = await import('meshweld/three');
      const { BoxGeometry } = await import('three');
      const { cells } = await import('meshweld/inspect');
      await ready;
      return [weldGeometry(new BoxGeometry().toNonIndexed(), { attributes: 'position' }).getAttribute('position').count,
        cells([0, 0], { dim: 2, radius: 1, method: 'grid-2r' }).keys.length / 3];
    });
    assert.deepEqual(three, [8, 4]);
  } finally {
    await browser.close();
    await server.close();
  }
});

test('the README first example, bundled by Vite from the installed package, runs in Chromium', { skip: noChromium }, async () => {
  const [first] = readmeBlocks('js', readme);
  const site = join(app, 'site');
  mkdirSync(site, { recursive: true });
  writeFileSync(join(site, 'index.html'), '<!doctype html><script type="module" src="./main.js"></script>');
  writeFileSync(join(site, 'main.js'), `${first.code}\nconsole.log('done');\n`);
  const { build } = await import('vite');
  const out = join(work, 'site-dist');
  await build({ root: site, base: './', logLevel: 'warn', build: { outDir: out, emptyOutDir: true, target: 'es2022' } });
  const server = await serve(out);
  const browser = await launch();
  try {
    const page = await browser.newPage();
    const printed = [];
    const problems = [];
    page.on('console', (m) => m.type() !== 'error' && printed.push(m.text()));
    page.on('response', (r) => r.status() >= 400 && !r.url().endsWith('/favicon.ico') && problems.push(`${r.status()} ${r.url()}`));
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(server.url);
    await page.waitForFunction(() => true);
    for (let i = 0; i < 300 && !printed.includes('done') && problems.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(problems, []);
    assert.ok(printed.includes('done'), printed.join('\n'));
    assert.ok(printed.some((line) => /^4 Uint32Array\(6\)/.test(line)), printed.join('\n'));
  } finally {
    await browser.close();
    await server.close();
  }
});
