// Types of meshweld/gltf-transform.
import type { Primitive, Transform } from '@gltf-transform/core';

export { ready } from './index.js';

/** radius or relative, not both (both throw a RangeError); neither: relative DEFAULT_RELATIVE. */
export type GltfWeldRadius =
  | {
      /** Absolute radius in the primitive's own units (as its shader sees POSITION). Excludes `relative`. */
      radius?: number;
      relative?: undefined;
      relativeTo?: undefined;
    }
  | {
      radius?: undefined;
      /** Radius as a fraction of the bounding-box diagonal (default 1e-4 when `radius` is not given). */
      relative?: number;
      /**
       * Whose diagonal `relative` scales: each primitive's own (default), or the scenes' world-space
       * box, brought into each mesh's units by the largest stretch of the nodes that draw it (of its
       * joints, for a skinned mesh). Refused with `radius`.
       */
      relativeTo?: 'primitive' | 'scene';
    };

/** The options weld() and weldPrimitive share, but the radius. */
export interface GltfWeldCommonOptions {
  /**
   * Tolerance per glTF semantic (Euclidean, on the values the shader sees): `NORMAL`, `TANGENT`,
   * `TEXCOORD_n`, `COLOR_n`, `JOINTS_n`, `WEIGHTS_n`, custom `_NAME`; a family name without `_n`
   * (`TEXCOORD`) sets every set of it. `Infinity`: carried, not compared. Defaults in
   * DEFAULT_TOLERANCES; custom attributes are compared exactly. Morph target attributes use their
   * semantic's tolerance (POSITION: the radius).
   */
  tolerances?: Record<string, number> & { POSITION?: never };
  /** Drop triangles (and lines) whose corners weld together (default true). */
  removeDegenerate?: boolean;
  /** Drop triangles equal to an earlier one, same winding, and repeated lines (default false). */
  removeDuplicates?: boolean;
  /** meshweld's method (default 'auto'). */
  method?: 'auto' | 'naive' | 'grid-r' | 'grid-2r' | 'bcc' | 'kdtree' | 'grid';
}

export type GltfWeldOptions = GltfWeldRadius & GltfWeldCommonOptions & {
  /**
   * weld() only: called after each primitive with the report weldPrimitive would return; a promise
   * it returns is awaited before the next primitive.
   */
  onPrimitive?: (report: PrimitiveWeldReport | { skipped: string }, primitive: Primitive) => void | Promise<void>;
};

/** The options of weldPrimitive: those of weld() but onPrimitive, which weldPrimitive refuses with a RangeError. */
export type GltfWeldPrimitiveOptions = GltfWeldRadius & GltfWeldCommonOptions & { onPrimitive?: undefined };

export interface PrimitiveWeldReport {
  mode: 'POINTS' | 'LINES' | 'TRIANGLES';
  /** The radius used, in the primitive's units. */
  radius: number;
  /** Vertices before (all in POSITION) and after. */
  vertices: [number, number];
  /** Triangles, lines or points before and after. */
  elements: [number, number];
  degenerateRemoved: number;
  duplicatesRemoved: number;
  /** e.g. 'TRIANGLE_STRIP converted to TRIANGLES', or null. */
  converted: string | null;
  /** True when nothing was left and the primitive was disposed. */
  disposed: boolean;
}

export const DEFAULT_TOLERANCES: Readonly<Record<'NORMAL' | 'TANGENT' | 'TEXCOORD' | 'COLOR' | 'JOINTS' | 'WEIGHTS', number>>;
export const DEFAULT_RELATIVE: number;

/** A glTF-Transform transform welding every primitive: `await document.transform(weld({ radius: 1e-4 }))`. */
export function weld(options?: GltfWeldOptions): Transform;

/** Welds one primitive (await `ready` first); its accessors are replaced, never mutated. */
export function weldPrimitive(primitive: Primitive, options?: GltfWeldPrimitiveOptions): PrimitiveWeldReport | { skipped: string };
