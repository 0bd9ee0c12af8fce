// Types of meshweld/inspect: the teaching helpers behind the demo.
import type { Method, Store } from './index.js';

export { ready } from './index.js';

/** The bound R of a method and store: the largest distance at which two inputs can merge directly. */
export function bound(options: { method?: Method; store?: Store; dim?: 2 | 3; radius: number }): number;
/** Look-ups per distinct point of a grid method (0 for naive, kdtree, grid and auto). */
export function lookups(method: Method, dim?: 2 | 3): number;
/** Bytes of WebAssembly memory the module has (it only grows). */
export function memoryBytes(): number;
/**
 * The cells a grid method searches for one point, store cell first: 3 integer keys per cell and
 * the cell size that places them (see meshweld_cells in c/meshweld.h). Empty for naive and kdtree.
 */
export function cells(
  point: ArrayLike<number>,
  options: { method?: Method; store?: Store; dim?: 2 | 3; radius: number },
): { keys: Int32Array; size: number };
