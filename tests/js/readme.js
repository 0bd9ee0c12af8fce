// The README's fenced examples, and what they need to run: shared by readme.test.js (in the
// repository) and package.test.js (in a folder where the packed tarball is installed).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { root } from './helpers.js';

/** The fenced blocks of README.md in a language: [{ code, line }]. */
export function readmeBlocks(lang, text) {
  const blocks = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```' + lang) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end].trim() !== '```') end++;
    blocks.push({ code: lines.slice(start, end).join('\n'), line: start + 1 });
    i = end;
  }
  return blocks;
}

/**
 * What the examples read and import, in `dir`: bunny.stl (stl-models' bunny, a binary STL), and
 * beside an installed package the devDependencies the later sections use (stl-models as the
 * repository's node_modules holds it, three, glTF-Transform), linked from the repository.
 */
export function exampleData(dir) {
  copyFileSync(join(root, 'node_modules', 'stl-models', 'objects', 'bunny.bin.stl'), join(dir, 'bunny.stl'));
  for (const name of ['stl-models', 'three', '@types/three', '@gltf-transform/core']) {
    const link = join(dir, 'node_modules', name);
    if (existsSync(link)) continue;
    mkdirSync(join(link, '..'), { recursive: true });
    symlinkSync(join(root, 'node_modules', name), link);
  }
}

/** What each example prints, checked beside its exit code (by a line of its source). */
const PRINTS = [
  [/weld\(soup, \{ radius: 1e-5 \}\)/, /^4 Uint32Array\(6\) \[ 0, 1, 2, 1, 3, 2 \]$/m],
  [/new Welder/, /^Uint32Array\(2\) \[ 0, 1 \] Uint32Array\(2\) \[ 1, 2 \]$/m],
  [/weldGeometry\(soup/, /^208353 -> 34834 vertices \(83\.3% merged\), 223 open edges$/m],
  [/document\.transform\(weld/, /^34834 69451$/m],
];

/** Runs each block as an ES module in `dir` (where meshweld and three resolve); checks its output. */
export function runBlocks(blocks, dir) {
  assert.ok(blocks.length >= 2, `README.md has only ${blocks.length} js examples`);
  blocks.forEach(({ code, line }, k) => {
    const file = join(dir, `readme-example-${k}.mjs`);
    writeFileSync(file, code);
    let out;
    try {
      out = execFileSync(process.execPath, [file], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      assert.fail(`the README example at line ${line} failed:\n${e.stderr}`);
    }
    for (const [source, printed] of PRINTS) {
      if (source.test(code)) assert.match(out, printed, `the README example at line ${line} printed:\n${out}`);
    }
  });
}
