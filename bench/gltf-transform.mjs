// The README's glTF-Transform table: the stl-models bunny as a glTF document (the STL soup, and
// the same soup with every coordinate moved by up to 1e-6, as a float64 -> float32 round trip
// through another tool would), welded by glTF-Transform's weld() and by meshweld/gltf-transform.
// Run: node bench/gltf-transform.mjs
import { Logger } from '@gltf-transform/core';
import { weld as exactWeld } from '@gltf-transform/functions';
import { weld } from 'meshweld/gltf-transform';
import { measure, readMesh } from '../cli/formats.js';
import { mulberry32 } from '../tests/js/helpers.js';

const file = 'node_modules/stl-models/objects/bunny.bin.stl';
const figure = (n) => n.toLocaleString('en-US');
console.log('| input | welder | vertices | triangles | open edges | ms |');
console.log('| --- | --- | ---: | ---: | ---: | ---: |');
for (const jitter of [0, 1e-6]) {
  const input = jitter ? 'soup, jittered 1e-6' : 'STL soup';
  for (const [name, transform] of [['(none)', null], ['`weld()` (glTF-Transform)', exactWeld()], ['`weld()` (meshweld, defaults)', weld()]]) {
    const document = await readMesh(file);
    document.setLogger(new Logger(Logger.Verbosity.SILENT));
    const random = mulberry32(1);
    if (jitter) for (const a of document.getRoot().listAccessors()) a.setArray(a.getArray().map((v) => v + (2 * random() - 1) * jitter));
    const start = performance.now();
    if (transform) await document.transform(transform);
    const ms = transform ? Math.round(performance.now() - start) : '';
    const m = measure(document);
    console.log(`| ${input} | ${name} | ${figure(m.vertices)} | ${figure(m.triangles)} | ${figure(m.open)} | ${ms} |`);
  }
}
