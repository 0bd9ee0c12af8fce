// Every ```js block of README.md runs as an ES module, with `meshweld` resolved to this checkout
// (a folder inside the repository: the package resolves itself by name) and the data it reads.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { root } from './helpers.js';
import { exampleData, readmeBlocks, runBlocks } from './readme.js';

const readme = readFileSync(join(root, 'README.md'), 'utf8');
const dir = mkdtempSync(join(root, 'tests', '.readme-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('every js example of the README runs as written and prints what its comments say', () => {
  exampleData(dir);
  runBlocks(readmeBlocks('js', readme), dir);
});

test('the README opens with what a user of the package needs, and its links work in the tarball', () => {
  const headings = readme.split('\n').filter((l) => l.startsWith('## '));
  assert.deepEqual(headings.slice(0, 3), ['## Install', '## First weld', '## Which function do I use?']);
  const beforeClone = readme.slice(0, readme.indexOf('## From a clone'));
  assert.doesNotMatch(beforeClone, /npm run demo|npm test/, 'clone-only commands before the clone section');
  // relative links only to files the package ships (the tarball holds js/, c/, README, LICENSE)
  const published = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).files;
  for (const [, target] of readme.matchAll(/\]\(([^)#][^)]*)\)/g)) {
    if (/^[a-z]+:/.test(target)) continue;
    assert.ok(/^(js|c)\//.test(target) || ['LICENSE', 'README.md', 'package.json'].includes(target),
      `README links to ${target}, which is not in the package (${published.join(', ')})`);
  }
  assert.match(readme, /<script type="importmap">/, 'the plain-page snippet with an import map');
  for (const name of ['weld', 'Welder', 'weldMesh', 'weldGeometry', 'meshweld/gltf-transform', 'meshweld-cli']) {
    assert.ok(readme.slice(readme.indexOf('## Which function'), readme.indexOf('## Guarantees')).includes(name), name);
  }
});
