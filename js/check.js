// Validation and error messages, shared by every entry point. Each message starts with
// `meshweld: <the function the user called>: `, names the option or element, says what was
// expected and describes the bad value in words.
import { ERROR, errorText } from './heap.js';

export const methods = Object.freeze(['auto', 'naive', 'grid-r', 'grid-2r', 'hex', 'bcc', 'kdtree', 'grid']);
export const stores = Object.freeze(['loose', 'precise']);
export const AXES = ['x', 'y', 'z'];

const values = (n) => `${n} value${n === 1 ? '' : 's'}`;
const article = (word) => (/^[AEIOaeiou]/.test(word) ? 'an' : 'a');

/** A value described in words for an error message. */
export function describe(value) {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  switch (typeof value) {
    case 'number':
      return Object.is(value, -0) ? '-0' : String(value);
    case 'string':
      return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
    case 'boolean':
      return `the boolean ${value}`;
    case 'bigint':
      return `the bigint ${value}`;
    case 'symbol':
      return 'a symbol';
    case 'function':
      return 'a function';
  }
  if (Array.isArray(value)) return `an array of ${values(value.length)}`;
  if (ArrayBuffer.isView(value)) {
    const name = value.constructor.name;
    return 'length' in value ? `${article(name)} ${name} of ${values(value.length)}` : `${article(name)} ${name}`;
  }
  const name = value.constructor?.name;
  if (!name || name === 'Object') return 'an object';
  return `${article(name)} ${name}`;
}

/**
 * The class of the error for a refused value: a RangeError when it is of the type expected
 * (`typeof value === type`) but out of range, a TypeError when it is of another type.
 */
export function refusal(value, type) {
  return typeof value === type ? RangeError : TypeError;
}

/** An error of the given type whose message names the function called. */
export function failure(Type, who, text) {
  return new Type(`meshweld: ${who}: ${text}`);
}

/** A list of names for a message: 'a', 'b' or 'c'. */
export function oneOf(names) {
  const quoted = names.map((n) => `'${n}'`);
  return quoted.length < 2 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

/** The options object of a call (undefined = {}), with every key checked against `allowed`. */
export function checkOptions(options, who, allowed) {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw failure(TypeError, who, `options must be an object, got ${describe(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) {
      throw failure(RangeError, who, `unknown option '${key}'; the options are ${allowed.join(', ')}`);
    }
  }
  return options;
}

/** A choice among names; `fallback` when undefined. */
export function choice(value, name, names, fallback, who) {
  if (value === undefined) return fallback;
  if (!names.includes(value)) {
    throw failure(refusal(value, 'string'), who, `${name} must be ${oneOf(names)}, got ${describe(value)}`);
  }
  return value;
}

export function boolean(value, name, fallback, who) {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw failure(TypeError, who, `${name} must be true or false, got ${describe(value)}`);
  return value;
}

/** A finite number >= 0 (a radius or tolerance), representable as a float32. */
export function distance(value, name, who) {
  if (typeof value !== 'number' || !(value >= 0) || !Number.isFinite(value)) {
    throw failure(refusal(value, 'number'), who, `${name} must be a finite number >= 0, got ${describe(value)}`);
  }
  if (!Number.isFinite(Math.fround(value))) {
    throw failure(RangeError, who, `${name} must be a finite number >= 0 within the float32 range, got ${describe(value)}`);
  }
  return value;
}

/** An attribute's tolerance: a distance, 0 to compare exactly, never one that rounds to 0 as a float32. */
export function toleranceValue(value, name, who) {
  return float32Distance(value, name, who, 'use 0 to compare exactly');
}

/** radius, or relativeRadius (a fraction of the bounding-box diagonal) where `relative` allows it. */
export function radiusOption(options, who, { relative = false, fallback } = {}) {
  const { radius, relativeRadius } = options;
  if (radius !== undefined && relativeRadius !== undefined) {
    throw failure(RangeError, who, `give radius or relativeRadius, not both (got radius ${describe(radius)} and relativeRadius ${describe(relativeRadius)})`);
  }
  if (relative && relativeRadius !== undefined) return { relativeRadius: distance(relativeRadius, 'relativeRadius', who) };
  if (radius === undefined && fallback !== undefined) return { radius: fallback };
  if (radius === undefined) {
    const or = relative ? ' (or relativeRadius, a fraction of the bounding-box diagonal)' : '';
    throw failure(TypeError, who, `radius must be a finite number >= 0, got undefined${or}`);
  }
  return { radius: radiusValue(radius, who) };
}

/** A radius: a finite number >= 0 within the float32 range that rounds to 0 only when it is 0. */
export function radiusValue(radius, who) {
  return float32Distance(radius, 'radius', who, 'use radius 0 to weld exact duplicates only');
}

// A distance that must not round to 0 as a float32 unless it is 0 (0 asks for exact matches).
function float32Distance(value, name, who, zero) {
  distance(value, name, who);
  if (value > 0 && Math.fround(value) === 0) throw failure(RangeError, who, `${name} ${value} rounds to 0 as a float32; ${zero}`);
  return value;
}

/** dim, method and store, checked together; numbers as the C library takes them. */
export function weldMode(options, who) {
  const dim = options.dim === undefined ? 3 : options.dim;
  if (dim !== 2 && dim !== 3) throw failure(refusal(dim, 'number'), who, `dim must be 2 or 3, got ${describe(dim)}`);
  const methodName = choice(options.method, 'method', methods, 'auto', who);
  if ((methodName === 'hex' && dim !== 2) || (methodName === 'bcc' && dim !== 3)) {
    throw failure(RangeError, who, `method '${methodName}' is ${methodName === 'hex' ? '2D' : '3D'} only, got dim ${dim}`);
  }
  const storeName = choice(options.store, 'store', stores, 'loose', who);
  return { dim, method: methods.indexOf(methodName), store: stores.indexOf(storeName), methodName, storeName };
}

/** Floats from one point to the next: an integer >= dim. */
export function strideOption(stride, dim, who) {
  if (stride === undefined) return dim;
  if (!Number.isInteger(stride) || stride < dim) {
    throw failure(refusal(stride, 'number'), who, `stride must be an integer number of values >= dim (${dim}), got ${describe(stride)}`);
  }
  return stride;
}

/**
 * The error of a failed core call. `value(point, axis)` gives the bad coordinate's value for
 * NonFinite and Range errors, `element` names what a point is ('point', 'vertex'), `number`
 * (when given) the number a point goes by in the caller's own numbering, and `nonFinite` (when
 * given) what the call itself offers for non-finite points.
 */
export function coreError(code, info, who, { value, element = 'point', attributeName, number = null, nonFinite = null } = {}) {
  const at = info?.error_point;
  const axis = info?.error_axis;
  const shown = number && at < number.length ? number[at] : at;
  if (code === ERROR.NonFinite && attributeName && axis >= 3) {
    return failure(RangeError, who, `attribute '${attributeName(axis - 3)}' of ${element} ${shown} is not finite`);
  }
  if (code === ERROR.NonFinite && value) {
    const v = value(at, axis);
    const why = Number.isFinite(v) ? ' (beyond the float32 range)' : '';
    return failure(RangeError, who,
      `${element} ${shown} has a non-finite coordinate ${AXES[axis]} = ${describe(v)}${why}; ` +
        `finite coordinates are expected${nonFinite ? ` (${nonFinite})` : ''}`);
  }
  if (code === ERROR.Range && value) {
    return failure(RangeError, who,
      `${element} ${shown} coordinate ${AXES[axis]} = ${describe(value(at, axis))} is too large for the radius: ` +
        "grid cell indices would overflow; use method 'kdtree' or 'auto', or a larger radius");
  }
  if (code === ERROR.Memory) {
    return new RangeError(`meshweld: out of memory: WebAssembly memory cannot grow enough for ${who} (limit 4 GiB)`);
  }
  return failure(RangeError, who, errorText(code));
}
