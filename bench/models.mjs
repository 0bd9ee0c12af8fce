// The README's three.js table: real STL models from stl-models, welded with meshweld/three and
// with three's mergeVertices at the same radius (a fraction of the bounding-box diagonal).
//   node bench/models.mjs
import { readFileSync } from 'node:fs';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { mergeVertices } from 'three/examples/jsm/utils/BufferGeometryUtils.js';
import { countClosePairs } from '../js/index.js';
import { boundaryEdges, ready, weldGeometry } from '../js/three.js';

await ready;
const models = ['objects/bunny.bin.stl', 'objects/gearwheel.bin.stl'];
const row = (cells) => `| ${cells.join(' | ')} |`;
const figures = (g, radius) => {
  const position = g.getAttribute('position');
  return [
    position.count.toLocaleString('en-US'),
    ((g.index ? g.index.count : position.count) / 3).toLocaleString('en-US'),
    (boundaryEdges(g).length / 2).toLocaleString('en-US'),
    countClosePairs(position.array, { radius }).toLocaleString('en-US'),
  ];
};
console.log(row(['model', 'r / diagonal', 'welder', 'vertices', 'triangles', 'open edges', 'pairs within r']));
console.log(row(Array(7).fill('---')));
for (const file of models) {
  const bytes = readFileSync(new URL(`../node_modules/stl-models/${file}`, import.meta.url));
  const soup = new STLLoader().parse(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  soup.computeBoundingBox();
  const diagonal = soup.boundingBox.max.distanceTo(soup.boundingBox.min);
  const name = file.split('/').pop();
  console.log(row([name, '', 'the STL soup', ...figures(soup, diagonal * 1e-5)]));
  for (const relative of [1e-5, 2e-3]) {
    const radius = diagonal * relative;
    const ours = weldGeometry(soup, { radius, attributes: 'position' });
    const theirs = mergeVertices(soup.clone().deleteAttribute('normal'), radius);
    console.log(row([name, String(relative), '`weldGeometry`', ...figures(ours, radius)]));
    console.log(row([name, String(relative), '`mergeVertices`', ...figures(theirs, radius)]));
  }
}
