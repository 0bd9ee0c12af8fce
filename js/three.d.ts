// Types of meshweld/three. They refer to three's types: install @types/three beside three (an
// optional peer dependency of meshweld) to check them.
import type { BufferGeometry } from 'three';
import type { Method, NonFinite, Primitive } from './index.js';

export { ready } from './index.js';

/** radius or relativeRadius, not both (both throw a RangeError); neither: radius 1e-4. */
export type WeldGeometryRadius =
  | {
      /** Positions within this distance merge (default 1e-4, as three.js uses); 0 merges exact duplicates only. */
      radius?: number;
      relativeRadius?: undefined;
    }
  | {
      radius?: undefined;
      /** Instead of radius: r = relativeRadius x the diagonal of the positions' bounding box (e.g. 1e-5). */
      relativeRadius?: number;
    };

export type WeldGeometryOptions = WeldGeometryRadius & {
  /**
   * What else must match for two vertices to merge: 'all' (default) every attribute and morph
   * attribute within the radius; 'position' positions only (STL files: their normals are per
   * face); or tolerances per attribute name, e.g. { normal: 0.05, uv: 1e-4 } (other attributes
   * are carried, not compared).
   */
  attributes?: 'all' | 'position' | (Record<string, number> & { position?: never });
  /** Remove triangles with two or three corners welded together, or collapsed segments (default true). */
  removeDegenerate?: boolean;
  /** 'triangles' (default; Mesh), 'lines' (LineSegments: pairs) or 'points' (Points: each welded point once). */
  primitive?: Primitive;
  /** Vertices with a NaN or infinite position: 'error' (default), 'skip' (dropped with their elements) or 'keep'. */
  nonFinite?: NonFinite;
};

/** What weldGeometry puts in the result's userData.meshweld. */
export interface WeldGeometryStats {
  inputVertices: number;
  vertices: number;
  /** inputVertices - vertices - skippedVertices, and as a percentage of inputVertices. */
  merged: number;
  mergedPercent: number;
  primitive: Primitive;
  /** Triangles, segments or points in the result. */
  elements: number;
  degenerateRemoved: number;
  skippedVertices: number;
  skippedElements: number;
  /** The radius used (relativeRadius resolved). */
  radius: number;
  method: Exclude<Method, 'auto'>;
  /** The attributes compared besides the position. */
  compared: string[];
  /** Set (and printed with console.warn) when the default 'all' kept apart what positions alone would merge. */
  hint?: string;
}

/**
 * Welds a BufferGeometry (indexed or not) into a new one, indexed unless it is an unindexed
 * point cloud; the input is untouched. The statistics are in `userData.meshweld`.
 */
export function weldGeometry(geometry: BufferGeometry, options?: WeldGeometryOptions): BufferGeometry;

/** The edges used by exactly one triangle, as pairs of vertex indices (length / 2 edges). */
export function boundaryEdges(geometry: BufferGeometry): Uint32Array;
