// Types of the meshweld package.

export type Method = 'auto' | 'naive' | 'grid-r' | 'grid-2r' | 'hex' | 'bcc' | 'kdtree' | 'grid';
export type Store = 'loose' | 'precise';
/**
 * What can be welded: exactly these kinds (anything else throws a TypeError). Float64Array, integer
 * arrays and plain arrays are converted to float32; with `normalized: true` integer arrays are read
 * as a shader reads normalized attributes (Int16 -32767..32767 -> -1..1, Uint8 0..255 -> 0..1),
 * as KHR_mesh_quantization stores positions.
 */
export type Points =
  | Float32Array
  | Float64Array
  | IntegerArray
  | readonly number[]
  | PointBuffer;
/** The integer arrays accepted as points (raw values, or normalized with `normalized: true`). */
export type IntegerArray = Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array | Uint32Array;
/** What to do with points that have a NaN or infinite coordinate: see OneShotOptions' nonFinite. */
export type NonFinite = 'error' | 'skip' | 'keep';

interface BaseOptions {
  /** 2 or 3 (default 3). */
  dim?: 2 | 3;
  /** Default 'auto' (runs 'grid': cells sized to the data, precise). 'hex' is 2D only, 'bcc' 3D only. */
  method?: Method;
  /** Default 'loose': one point per cell (the article's rule), for grid-r, grid-2r, hex and bcc;
   * 'precise' gives R = r. grid, naive and kdtree (and so auto) are always precise. */
  store?: Store;
  /** Values from one point to the next (default dim), for interleaved buffers. */
  stride?: number;
  /** Integer points are normalized values (as a shader reads them); default false. true needs an IntegerArray. */
  normalized?: boolean;
}

/** A radius in model units, or (one-shot calls only) relative to the bounding-box diagonal. */
export type RadiusOption =
  | { /** Points within this distance are merged; finite, >= 0 (0: exact duplicates only). */ radius: number; relativeRadius?: undefined }
  | { radius?: undefined; /** r = relativeRadius x the diagonal of the points' bounding box. */ relativeRadius: number };

export type WeldOptions = BaseOptions & {
  /** Points within this distance are merged; finite, >= 0 (0: exact duplicates only). */
  radius: number;
  /** 'error' (default) throws naming the point; 'skip' leaves such points out (remap SKIPPED). */
  nonFinite?: 'error' | 'skip';
};

export type OneShotOptions = BaseOptions & RadiusOption & {
  /** Kept position of each output: the first input of its cluster (default) or the centroid. */
  position?: 'first' | 'centroid';
  /**
   * Points with a NaN or infinite coordinate: 'error' (default) throws a RangeError naming the
   * point; 'skip' leaves them out (their remap entry is SKIPPED, count excludes them); 'keep'
   * makes each distinct one (by its bits) an output of its own.
   */
  nonFinite?: NonFinite;
};

/** The remap value of a point left out by nonFinite: 'skip' (0xffffffff). */
export const SKIPPED: 4294967295;

export interface WeldResult {
  /** Output index of each input point, numbered by first appearance. */
  remap: Uint32Array;
  /** Number of output points. */
  count: number;
  /** Kept positions, count * dim floats. */
  positions: Float32Array;
  /** The method that ran ('auto' resolved). */
  method: Exclude<Method, 'auto'>;
  /** The radius used (relativeRadius resolved). */
  radius: number;
  /** Points left out by nonFinite: 'skip'. */
  skipped: number;
}

/** Resolves once the WebAssembly module is ready; every other call is synchronous after it. */
export const ready: Promise<void>;
export const methods: readonly Method[];
export const stores: readonly Store[];

export function weld(points: Points, options: OneShotOptions): WeldResult;

export class Welder {
  constructor(options: WeldOptions);
  /** Welds a batch against all earlier ones; returns its remap. */
  add(points: Points, options?: { stride?: number; normalized?: boolean }): Uint32Array;
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
  options: { dim?: 2 | 3; radius: number; stride?: number; normalized?: boolean; limit?: number },
): number;
/** The teaching helpers: their home is meshweld/inspect. */
export { bound, cells, lookups, memoryBytes } from './inspect.js';

/** A typed array of numbers (not a DataView, not a BigInt array). */
export type NumberArray = Float32Array | Float64Array | IntegerArray;

/**
 * What an attribute's array can be: any typed array but a DataView. BigInt arrays are carried
 * (gathered in their own type) but cannot be given a tolerance (that throws a TypeError).
 */
export type AttributeArray = NumberArray | BigInt64Array | BigUint64Array;

export interface MeshAttribute<T extends AttributeArray = NumberArray> {
  array: T;
  itemSize: number;
  /** Integer values read as normalized (as a shader does) when compared by a tolerance. */
  normalized?: boolean;
}

/** What the elements of a mesh are: triangles (default), line segments (pairs) or points. */
export type Primitive = 'triangles' | 'lines' | 'points';

export type WeldMeshOptions<T extends AttributeArray = NumberArray> = BaseOptions & RadiusOption & {
  /** As in weld: 'error' (default), 'skip' (elements using such a vertex are dropped too) or 'keep'. */
  nonFinite?: NonFinite;
  /** Drop triangles with two or three corners welded together (default true). */
  removeDegenerate?: boolean;
  /** Drop triangles equal to an earlier one, same winding (default false). */
  removeDuplicates?: boolean;
  /** Per-vertex attributes to compact to the kept vertices (the first of each cluster). */
  attributes?: Record<string, MeshAttribute<T>>;
  /**
   * Attribute-aware welding: vertices weld only if their positions are within radius and each
   * named attribute is within its tolerance (Euclidean), e.g. { normal: 0.05, uv: 1e-4 }.
   */
  tolerances?: Record<string, number>;
  /** 'triangles' (default), 'lines' (segments, collapsed ones dropped) or 'points' (each welded point once). */
  primitive?: Primitive;
};

export interface WeldMeshResult<T extends AttributeArray = NumberArray> {
  positions: Float32Array;
  /** Uint16Array whenever the vertices fit (vertexCount <= 65535: 65535 is the primitive-restart value), else Uint32Array; null for unindexed points. */
  indices: Uint32Array | Uint16Array | null;
  remap: Uint32Array;
  vertexCount: number;
  primitive: Primitive;
  /** Triangles, segments or points written. */
  elementCount: number;
  /** elementCount for triangles, else 0. */
  triangleCount: number;
  /** Triangles with two or three corners welded together, or segments with both. */
  degenerateRemoved: number;
  duplicatesRemoved: number;
  /** Vertices left out by nonFinite: 'skip', and the elements that used them. */
  skipped: number;
  skippedElements: number;
  /** Each attribute given, compacted, its array of the type given. */
  attributes: Record<string, MeshAttribute<T>>;
  method: Exclude<Method, 'auto'>;
  /** The radius used (relativeRadius resolved). */
  radius: number;
}

/** Welds a mesh; indices null means an unindexed soup (as an STL). */
export function weldMesh(
  positions: Points,
  indices: Uint32Array | Uint16Array | Uint8Array | readonly number[] | null,
  options: WeldMeshOptions,
): WeldMeshResult;
/** With BigInt attributes (carried in their own type, never given a tolerance). */
export function weldMesh(
  positions: Points,
  indices: Uint32Array | Uint16Array | Uint8Array | readonly number[] | null,
  options: WeldMeshOptions<AttributeArray>,
): WeldMeshResult<AttributeArray>;

/**
 * The edges used by exactly one triangle (indices null: a soup of vertexCount vertices), as pairs
 * of vertex indices, lower first, in the order of the triangles (length / 2 edges): the cracks a
 * weld should close. meshweld/three's boundaryEdges takes a BufferGeometry.
 */
export function boundaryEdges(
  indices: Uint32Array | Uint16Array | Uint8Array | readonly number[] | null,
  vertexCount: number,
): Uint32Array;
