// Types of the meshweld package.

export type Method = 'auto' | 'naive' | 'grid-r' | 'grid-2r' | 'hex' | 'bcc' | 'kdtree' | 'grid';
export type Store = 'loose' | 'precise';
/** What can be welded: plain arrays and Float64Array are converted to float32. */
export type Points = Float32Array | Float64Array | ArrayLike<number> | PointBuffer;

export interface WeldOptions {
  /** 2 or 3 (default 3). */
  dim?: 2 | 3;
  /** Points within this distance are merged; finite, >= 0 (0: exact duplicates only). */
  radius: number;
  /** Default 'auto' (runs 'grid': cells sized to the data, precise). 'hex' is 2D only, 'bcc' 3D only. */
  method?: Method;
  /** Default 'loose': one point per cell (the article's rule), for grid-r, grid-2r, hex and bcc;
   * 'precise' gives R = r. grid, naive and kdtree (and so auto) are always precise. */
  store?: Store;
  /** Floats from one point to the next (default dim), for interleaved buffers. */
  stride?: number;
}

export interface OneShotOptions extends WeldOptions {
  /** Kept position of each output: the first input of its cluster (default) or the centroid. */
  position?: 'first' | 'centroid';
}

export interface WeldResult {
  /** Output index of each input point, numbered by first appearance. */
  remap: Uint32Array;
  /** Number of output points. */
  count: number;
  /** Kept positions, count * dim floats. */
  positions: Float32Array;
  /** The method that ran ('auto' resolved). */
  method: Exclude<Method, 'auto'>;
}

/** Resolves once the WebAssembly module is ready; every other call is synchronous after it. */
export const ready: Promise<void>;
export const methods: readonly Method[];
export const stores: readonly Store[];

export function weld(points: Points, options: OneShotOptions): WeldResult;

export class Welder {
  constructor(options: WeldOptions);
  /** Welds a batch against all earlier ones; returns its remap. */
  add(points: Points, options?: { stride?: number }): Uint32Array;
  readonly count: number;
  readonly method: Exclude<Method, 'auto'>;
  readonly dim: 2 | 3;
  positions(): Float32Array;
  dispose(): void;
}

/** A Float32Array in the module's memory: weld it without a copy. */
export class PointBuffer {
  constructor(length: number);
  readonly length: number;
  /** A fresh view on every read (valid across memory growth). */
  readonly array: Float32Array;
  free(): void;
}

export function countClosePairs(
  points: Points,
  options: { dim?: 2 | 3; radius: number; stride?: number; limit?: number },
): number;
export function bound(options: { method?: Method; store?: Store; dim?: 2 | 3; radius: number }): number;
export function lookups(method: Method, dim?: 2 | 3): number;
export function memoryBytes(): number;
/**
 * The cells a grid method searches for one point, store cell first: 3 integer keys per cell and
 * the cell size that places them (see meshweld_cells in c/meshweld.h). Empty for naive and kdtree.
 */
export function cells(
  point: ArrayLike<number>,
  options: { method?: Method; dim?: 2 | 3; radius: number },
): { keys: Int32Array; size: number };

export interface MeshAttribute<T extends ArrayBufferView = ArrayBufferView> {
  array: T;
  itemSize: number;
}

export interface WeldMeshOptions extends WeldOptions {
  /** Drop triangles with two or three corners welded together (default true). */
  removeDegenerate?: boolean;
  /** Drop triangles equal to an earlier one, same winding (default false). */
  removeDuplicates?: boolean;
  /** Per-vertex attributes to compact to the kept vertices (the first of each cluster). */
  attributes?: Record<string, MeshAttribute>;
  /**
   * Attribute-aware welding: vertices weld only if their positions are within radius and each
   * named attribute is within its tolerance (Euclidean), e.g. { normal: 0.05, uv: 1e-4 }.
   */
  tolerances?: Record<string, number>;
}

export interface WeldMeshResult {
  positions: Float32Array;
  /** Uint16Array when the input indices were Uint16 and the result fits, else Uint32Array. */
  indices: Uint32Array | Uint16Array;
  remap: Uint32Array;
  vertexCount: number;
  triangleCount: number;
  degenerateRemoved: number;
  duplicatesRemoved: number;
  attributes: Record<string, MeshAttribute>;
  method: Exclude<Method, 'auto'>;
}

/** Welds a mesh; indices null means an unindexed triangle soup (as an STL). */
export function weldMesh(
  positions: Points,
  indices: Uint32Array | Uint16Array | ArrayLike<number> | null,
  options: WeldMeshOptions,
): WeldMeshResult;
