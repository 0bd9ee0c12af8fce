// Type-checked with `tsc --strict` against the packed package (tests/js/package.test.js).
import { ready, weld, Welder, PointBuffer, countClosePairs, bound, methods, type WeldResult, type Method } from 'meshweld';
import { weldGeometry, boundaryEdges, type WeldGeometryOptions } from 'meshweld/three';
import { BoxGeometry, type BufferGeometry } from 'three';

async function main(): Promise<number> {
  await ready;
  const result: WeldResult = weld(new Float32Array([0, 0, 0, 1, 1, 1]), { dim: 3, radius: 0.001, method: 'grid-2r' });
  const remap: Uint32Array = result.remap;
  const positions: Float32Array = result.positions;
  const ran: Exclude<Method, 'auto'> = result.method;

  const welder = new Welder({ dim: 2, radius: 0.5, store: 'precise' });
  const batch: Uint32Array = welder.add([0, 0, 1, 1], { stride: 2 });
  const kept: Float32Array = welder.positions();
  const count: number = welder.count;
  welder.dispose();

  const buffer = new PointBuffer(6);
  buffer.array.set([0, 0, 0, 0, 0, 0]);
  weld(buffer, { radius: 1, position: 'centroid' });
  buffer.free();

  const pairs: number = countClosePairs(positions, { radius: 0.001 });
  const R: number = bound({ method: 'bcc', radius: 1 });
  const all: readonly Method[] = methods;
  // @ts-expect-error: hex is not a store
  weld(positions, { radius: 1, store: 'hex' });

  const options: WeldGeometryOptions = { radius: 1e-5, attributes: { normal: 0.05 }, removeDegenerate: true };
  const geometry: BufferGeometry = weldGeometry(new BoxGeometry(), options);
  const open: Uint32Array = boundaryEdges(geometry);
  weldGeometry(geometry, { attributes: 'position' });
  // @ts-expect-error: attributes is 'all', 'position' or tolerances
  weldGeometry(geometry, { attributes: 'normal' });
  return remap.length + batch.length + kept.length + count + pairs + R + all.length + ran.length + open.length;
}

void main();
