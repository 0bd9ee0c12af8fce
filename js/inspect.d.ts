// Types of meshweld/inspect: the teaching helpers behind the demo.
import type { Method, Points, Store } from './index.js';

export { ready } from './index.js';

/** The bound R of a method and store: the largest distance at which two inputs can merge directly. */
export function bound(options: { method?: Method; store?: Store; dim?: 2 | 3; radius: number }): number;
/** Look-ups per distinct point of a grid method (0 for naive, kdtree, grid and auto). */
export function lookups(method: Method, dim?: 2 | 3): number;
/** Bytes of WebAssembly memory the module has (it only grows). */
export function memoryBytes(): number;
/**
 * The cells a grid method searches for one point, store cell first: 3 integer keys per cell and
 * the cell size that places them (see meshweld_cells in c/meshweld.h). Empty (size 0) for naive,
 * kdtree, grid and auto.
 */
export function cells(
  point: ArrayLike<number>,
  options: { method?: Method; store?: Store; dim?: 2 | 3; radius: number },
): { keys: Int32Array; size: number };

/** What the spatial engine behind `grid` and `auto` did on one weld (see traceWeld). */
export interface WeldTrace {
  /** Exactly weld(points, { dim, radius, method: 'grid' })'s remap and count. */
  remap: Uint32Array;
  count: number;
  /** The edge of the engine's cells: cell (i, j, k) covers [i c, (i + 1) c) on each axis. */
  cellSize: number;
  /** 'sequential': clusters too dense for the engine; order, cells and pairs are then empty. */
  engine: 'spatial' | 'sequential';
  /** The input index of each distinct position, in order of first appearance. */
  distinct: Uint32Array;
  /** The distinct points (as input indices) sorted by cell. */
  order: Uint32Array;
  /** 3 integers per occupied cell (z = 0 in 2D), in sorted order: floor(coordinate / cellSize), or its low 32 bits 2^31 cells or more from 0. */
  cellKeys: Int32Array;
  /** Cell c holds order[cellStart[c] .. cellStart[c + 1]). */
  cellStart: Uint32Array;
  /** The pairs within r as input indices [a0, b0, a1, b1, ...], a < b, in the order found. */
  pairs: Uint32Array;
  /** Distance tests made by the pair search (on a set too dense for it, those made before it gave up: 0 when its crowded cells had them counted beforehand, or when no cell was sorted). */
  tests: number;
  /** Occupied cells the engine's last try sorted the points into (with engine 'spatial', those of cellStart); 0 when no try ran: a sample of a set of 65,536 distinct points or more showed pairs within r far past the engine's budget, so the points went straight to the sequential search. */
  sortedCells: number;
  /** With engine 'sequential': the representatives its search compared, all points together (a few per point where its cells suit the data); with engine 'spatial', those its walk compared for the points of crowded cells (else 0). */
  steps: number;
  /** With engine 'spatial': the distinct points in cells too crowded for the pair search (cells of the narrowest size holding more than 48 points in 3D, 16 in 2D, together under half the points, or under 90% with 65,536 or more sparse ones outside them): they have no pairs, and the walk welds them one by one against the representatives of the cells their r-box touches, as the sequential search does; else 0. */
  crowded: number;
  /** Milliseconds of each phase, measured in this runtime. */
  phases: { name: 'duplicates' | 'sort' | 'pairs' | 'graph' | 'walk'; ms: number }[];
}

/** Runs `grid`'s spatial engine on points (dim floats each) and records what it does, for teaching. */
export function traceWeld(points: Points, options: { dim?: 2 | 3; radius: number }): WeldTrace;
