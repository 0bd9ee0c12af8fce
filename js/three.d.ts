// Types of meshweld/three. They refer to three's types: install @types/three to check them.
import type { BufferGeometry } from 'three';

export { ready } from './index.js';

export interface WeldGeometryOptions {
  /** Positions within this distance merge (default 1e-4, as three.js uses); 0 merges exact duplicates only. */
  radius?: number;
  /**
   * What else must match for two vertices to merge: 'all' (default) every attribute and morph
   * attribute within `radius`; 'position' positions only; or tolerances per attribute name,
   * e.g. { normal: 0.05, uv: 1e-4 } (other attributes are carried, not compared).
   */
  attributes?: 'all' | 'position' | Record<string, number>;
  /** Remove triangles with two or three corners welded together (default true). */
  removeDegenerate?: boolean;
}

/** Welds a BufferGeometry (indexed or not) into a new indexed one; the input is untouched. */
export function weldGeometry<T extends BufferGeometry>(geometry: T, options?: WeldGeometryOptions): BufferGeometry;

/** The edges used by exactly one triangle, as pairs of vertex indices (length / 2 edges). */
export function boundaryEdges(geometry: BufferGeometry): Uint32Array;
