import { UnserializableValueError } from './errors.js';

const identifier = /^[A-Za-z_$][\w$]*$/;

function childPath(path: string, name: string): string {
  return identifier.test(name) ? `${path}.${name}` : `${path}[${JSON.stringify(name)}]`;
}

/** Options of {@link assertJsonSerializable}. */
export interface JsonCheckOptions {
  /** Most levels of nested arrays and objects accepted; default: as deep as `JSON.stringify` can go. */
  maxDepth?: number | undefined;
}

/**
 * Checks that `value` survives a JSON round-trip unchanged in meaning: rejects functions,
 * symbols, BigInt, non-finite numbers, cycles, `undefined` at the top level or in arrays,
 * array holes and class instances other than plain objects, arrays and Dates (from any
 * realm: objects made in an iframe or a `vm` context count as plain). Throws
 * {@link UnserializableValueError} naming the offending path.
 */
export function assertJsonSerializable(key: string, value: unknown, options: JsonCheckOptions = {}): void {
  const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
  const seen = new Set<object>();
  const visit = (current: unknown, path: string, inArray: boolean, depth: number): void => {
    switch (typeof current) {
      case 'string':
      case 'boolean':
        return;
      case 'number':
        if (!Number.isFinite(current)) {
          throw new UnserializableValueError(key, path, `is ${current}, which JSON cannot carry`);
        }
        return;
      case 'undefined':
        if (path === '$') throw new UnserializableValueError(key, path, 'is undefined');
        if (inArray)
          throw new UnserializableValueError(key, path, 'is undefined (JSON would turn it into null)');
        return;
      case 'bigint':
        throw new UnserializableValueError(key, path, 'is a BigInt');
      case 'function':
        throw new UnserializableValueError(key, path, 'is a function');
      case 'symbol':
        throw new UnserializableValueError(key, path, 'is a symbol');
    }
    if (current === null) return;
    const object = current as object;
    if (seen.has(object)) throw new UnserializableValueError(key, path, 'is a circular reference');
    if (depth >= maxDepth)
      throw new UnserializableValueError(key, path, `is nested deeper than ${maxDepth} levels`);
    if (Array.isArray(object)) {
      seen.add(object);
      for (let index = 0; index < object.length; index++) {
        if (!(index in object))
          throw new UnserializableValueError(
            key,
            `${path}[${index}]`,
            'is an array hole (JSON would turn it into null)',
          );
        visit(object[index], `${path}[${index}]`, true, depth + 1);
      }
      seen.delete(object);
      return;
    }
    const tag = Object.prototype.toString.call(object);
    if (tag === '[object Date]') {
      if (Number.isNaN((object as Date).getTime()))
        throw new UnserializableValueError(key, path, 'is an invalid Date');
      return;
    }
    const proto: unknown = Object.getPrototypeOf(object);
    if (tag !== '[object Object]' || (proto !== null && Object.getPrototypeOf(proto) !== null)) {
      const kind = typeof object.constructor === 'function' ? object.constructor.name : 'non-plain';
      throw new UnserializableValueError(
        key,
        path,
        `is a ${kind || 'non-plain'} instance, not a plain object`,
      );
    }
    seen.add(object);
    for (const name of Object.keys(object))
      visit((object as Record<string, unknown>)[name], childPath(path, name), false, depth + 1);
    seen.delete(object);
  };
  try {
    visit(value, '$', false, 0);
  } catch (error) {
    if (error instanceof RangeError)
      throw new UnserializableValueError(key, '$', 'is nested too deeply to serialize');
    throw error;
  }
}

/** Serializes after {@link assertJsonSerializable}; the one encoding every built-in store uses. */
export function serializeValue(key: string, value: unknown): string {
  assertJsonSerializable(key, value);
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (error instanceof RangeError)
      throw new UnserializableValueError(key, '$', 'is nested too deeply to serialize');
    throw error;
  }
}
