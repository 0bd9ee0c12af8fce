// npm pack, install the tarball into an empty folder, import it and weld; type-check a usage file
// against the installed package with tsc --strict.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { root } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'meshweld-pack-'));
after(() => rmSync(work, { recursive: true, force: true }));
const quiet = { cwd: work, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' };

test('the packed tarball installs into an empty folder and welds', () => {
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', work, root], quiet));
  const files = packed[0].files.map((f) => f.path).sort();
  for (const file of ['js/index.js', 'js/index.d.ts', 'js/gather.js', 'js/three.js', 'js/three.d.ts', 'js/gltf-transform.js', 'js/gltf-transform.d.ts', 'js/wasm-inline.js']) {
    assert.ok(files.includes(file), `${file} is not in the package`);
  }
  assert.ok(!files.some((f) => f.startsWith('tests/') || f.startsWith('demo/') || f.startsWith('bench/') || f.startsWith('cli/')), files.join(' '));
  // npm install meshweld pulls in nothing: three and glTF-Transform are optional peers
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  assert.deepEqual(manifest.dependencies ?? {}, {});
  for (const peer of ['three', '@gltf-transform/core']) assert.equal(manifest.peerDependenciesMeta[peer]?.optional, true, peer);
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

  // the types, from the installed package, under tsc --strict
  cpSync(join(root, 'tests', 'types', 'usage.ts'), join(app, 'usage.ts'));
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    execFileSync(process.execPath, [tsc, '--strict', '--noEmit', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--skipLibCheck', 'false', 'usage.ts'], { ...quiet, cwd: app });
  } catch (e) {
    assert.fail(`tsc --strict failed:\n${e.stdout}${e.stderr}`);
  }
});
