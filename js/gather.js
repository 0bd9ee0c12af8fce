// Helpers shared by the package's entry points (not part of the public API).

/** Described in words for error messages (check.js holds it; re-exported for older importers). */
export { describe } from './check.js';

/** For each output of a remap, its first input: the vertex whose values it keeps. */
export function firstOfEach(remap, count) {
  const first = new Uint32Array(count);
  for (let i = remap.length - 1; i >= 0; i--) first[remap[i]] = i;
  return first;
}

/** The items of `first` gathered from a packed array into a new array of the same type. */
export function gatherItems(array, itemSize, first) {
  const out = new array.constructor(first.length * itemSize);
  if (itemSize === 1) {
    for (let k = 0; k < first.length; k++) out[k] = array[first[k]];
  } else if (itemSize === 3) {
    for (let k = 0; k < first.length; k++) {
      const s = first[k] * 3;
      out[3 * k] = array[s];
      out[3 * k + 1] = array[s + 1];
      out[3 * k + 2] = array[s + 2];
    }
  } else {
    for (let k = 0; k < first.length; k++)
      for (let c = 0, s = first[k] * itemSize; c < itemSize; c++) out[k * itemSize + c] = array[s + c];
  }
  return out;
}
