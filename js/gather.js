// Helpers shared by the package's entry points (not part of the public API).
import { core } from './heap.js';

/** Described in words for error messages (check.js holds it; re-exported for older importers). */
export { describe } from './check.js';

/** For each output of a remap, its first input: the vertex whose values it keeps. */
export function firstOfEach(remap, count) {
  const first = new Uint32Array(count);
  for (let i = remap.length - 1; i >= 0; i--) first[remap[i]] = i;
  return first;
}

/**
 * firstOfEach of a remap still in the module's memory (a frame's), by the core: one pass there
 * instead of one in JS. Returns where it is in the frame.
 */
export function firstOfEachIn(frame, remapPointer, length, count) {
  const first = frame.alloc(count * 4);
  const code = core().meshweld_firstOfEach(first, count, remapPointer, length);
  if (code !== 0) throw new Error(`meshweld: firstOfEach: the core returned ${code} on a weld's own remap`);
  return first;
}

// gather32 sees Uint32Array alone (float attributes, the common and large case), so that its
// element accesses stay monomorphic; an item is copied as its bits.
function gather32(source, itemSize, first) {
  const n = first.length;
  const out = new Uint32Array(n * itemSize);
  if (itemSize === 3) {
    for (let k = 0, o = 0; k < n; k++, o += 3) {
      const s = first[k] * 3;
      out[o] = source[s];
      out[o + 1] = source[s + 1];
      out[o + 2] = source[s + 2];
    }
  } else if (itemSize === 2) {
    for (let k = 0, o = 0; k < n; k++, o += 2) {
      const s = first[k] * 2;
      out[o] = source[s];
      out[o + 1] = source[s + 1];
    }
  } else {
    gatherInto(out, source, itemSize, first);
  }
  return out;
}

// The items of `first` from source into out, whatever their types.
function gatherInto(out, source, itemSize, first) {
  for (let k = 0, o = 0; k < first.length; k++) for (let c = 0, s = first[k] * itemSize; c < itemSize; c++) out[o++] = source[s + c];
  return out;
}

/** The items of `first` gathered from a packed typed array into a new array of the same type. */
export function gatherItems(array, itemSize, first) {
  if (!ArrayBuffer.isView(array)) return gatherInto(new Array(first.length * itemSize), array, itemSize, first); // plain numbers
  const bytes = array.BYTES_PER_ELEMENT;
  // 8-byte elements are two words each; odd offsets cannot be viewed as words and take bytes
  const width = bytes >= 4 && array.byteOffset % 4 === 0 ? 4 : bytes === 2 && array.byteOffset % 2 === 0 ? 2 : 1;
  const words = bytes / width;
  const View = width === 4 ? Uint32Array : width === 2 ? Uint16Array : Uint8Array;
  const source = new View(array.buffer, array.byteOffset, array.length * words);
  const out = width === 4 ? gather32(source, itemSize * words, first)
    : gatherInto(new View(first.length * itemSize * words), source, itemSize * words, first);
  return new array.constructor(out.buffer, 0, first.length * itemSize);
}
