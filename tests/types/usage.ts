// Type-checked with `tsc --strict` against the packed package (tests/js/package.test.js).
import { ready, weld, weldMesh, Welder, PointBuffer, countClosePairs, bound, methods, SKIPPED, boundaryEdges as openEdgesOf, type WeldResult, type Method, type WeldMeshResult } from 'meshweld';
import { weldGeometry, boundaryEdges, type WeldGeometryOptions, type WeldGeometryStats } from 'meshweld/three';
import { cells, lookups, memoryBytes, traceWeld } from 'meshweld/inspect';
import { weld as weldTransform, weldPrimitive } from 'meshweld/gltf-transform';
import { Document } from '@gltf-transform/core';
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
  // every array kind the runtime accepts, and nothing else
  weld(new Int16Array([0, 0, 0, 32767, 0, 0]), { radius: 1e-3, normalized: true });
  weld(new Uint8Array([0, 0, 0]), { relativeRadius: 1e-5, nonFinite: 'keep' });
  // @ts-expect-error: an array-like object is not accepted at run time
  weld({ length: 3, 0: 0, 1: 0, 2: 0 }, { radius: 1 });
  // @ts-expect-error: radius or relativeRadius, not both
  weld(positions, { radius: 1, relativeRadius: 1e-5 });
  // @ts-expect-error: relativeRadius needs every point up front
  new Welder({ relativeRadius: 1e-5 });
  const skipped: boolean = weld([0, 0, NaN], { radius: 1, nonFinite: 'skip' }).remap[0] === SKIPPED;
  const lines: WeldMeshResult = weldMesh(positions, null, { radius: 1, primitive: 'lines' });
  const cloud = weldMesh(positions, null, { radius: 1, primitive: 'points' });
  const noIndex: null | Uint16Array | Uint32Array = cloud.indices;
  const cracks: Uint32Array = openEdgesOf(lines.indices, lines.vertexCount);
  openEdgesOf(null, 6);
  // @ts-expect-error: meshweld/three's boundaryEdges takes the geometry
  openEdgesOf(new BoxGeometry());
  const c = cells([0, 0], { dim: 2, radius: 1, method: 'grid-2r' }).keys.length + lookups('hex', 2) + memoryBytes();

  const options: WeldGeometryOptions = { radius: 1e-5, attributes: { normal: 0.05 }, removeDegenerate: true };
  const geometry: BufferGeometry = weldGeometry(new BoxGeometry(), options);
  const open: Uint32Array = boundaryEdges(geometry);
  weldGeometry(geometry, { attributes: 'position', relativeRadius: 1e-5, primitive: 'points', nonFinite: 'skip' });
  const stats = weldGeometry(geometry).userData.meshweld as WeldGeometryStats;
  const merged: number = stats.merged + stats.mergedPercent;
  // @ts-expect-error: attributes is 'all', 'position' or tolerances
  weldGeometry(geometry, { attributes: 'normal' });
  // @ts-expect-error: radius or relativeRadius, not both
  weldGeometry(geometry, { radius: 1, relativeRadius: 1e-5 });
  // @ts-expect-error: positions are matched within the radius, not by a tolerance
  weldGeometry(geometry, { attributes: { position: 0.1 } });
  const tolerances: Record<string, number> = { normal: 0.05 };
  weldGeometry(geometry, { attributes: tolerances });
  // an attribute of BigInts is carried in its own type
  const ids: BigInt64Array | Float32Array = weldMesh(positions, null, { radius: 1, attributes: { id: { array: new BigInt64Array(2), itemSize: 1 }, uv: { array: new Float32Array(4), itemSize: 2 } } }).attributes.id.array as BigInt64Array;
  // the teaching trace takes every kind of points weld takes
  const traced: number = traceWeld(new Int16Array([0, 0, 0, 1, 1, 1]), { radius: 1 }).count;
  // @ts-expect-error: radius or relative, not both
  weldTransform({ radius: 1, relative: 1e-4 });
  weldTransform({ relative: 1e-4, tolerances, onPrimitive: () => undefined });
  const primitive = new Document().createPrimitive();
  weldTransform({ relativeTo: 'scene' });
  // @ts-expect-error: relativeTo says what relative is a fraction of, not radius
  weldTransform({ radius: 1, relativeTo: 'scene' });
  // @ts-expect-error: onPrimitive is the transform's option
  weldPrimitive(primitive, { radius: 1, onPrimitive: () => undefined });
  return remap.length + batch.length + kept.length + count + pairs + R + all.length + ran.length + open.length +
    Number(skipped) + lines.elementCount + (noIndex?.length ?? 0) + c + merged + ids.length + traced;
}

void main();
