import { UnserializableValueError } from './errors.js';

/**
 * Checks that `value` survives a JSON round-trip unchanged in meaning: rejects functions,
 * symbols, BigInt, non-finite numbers, cycles, `undefined` at the top level and class
 * instances other than plain objects, arrays and Dates. Throws naming the offending path.
 */
export function assertJsonSerializable(key: string, value: unknown): void {
  const seen = new Set<object>();
  const visit = (current: unknown, path: string, inArray: boolean): void => {
    switch (typeof current) {
      case 'string':
      case 'boolean':
        return;
      case 'number':
        if (!Number.isFinite(current)) throw new UnserializableValueError(key, path, `is ${current}, which JSON cannot carry`);
        return;
      case 'undefined':
        if (path === '$') throw new UnserializableValueError(key, path, 'is undefined');
        if (inArray) throw new UnserializableValueError(key, path, 'is undefined (JSON would turn it into null)');
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
    if (Array.isArray(object)) {
      seen.add(object);
      object.forEach((item, index) => visit(item, `${path}[${index}]`, true));
      seen.delete(object);
      return;
    }
    if (object instanceof Date) {
      if (Number.isNaN(object.getTime())) throw new UnserializableValueError(key, path, 'is an invalid Date');
      return;
    }
    const proto = Object.getPrototypeOf(object);
    if (proto !== Object.prototype && proto !== null) {
      throw new UnserializableValueError(key, path, `is a ${object.constructor?.name ?? 'non-plain'} instance, not a plain object`);
    }
    seen.add(object);
    for (const [name, child] of Object.entries(object)) visit(child, `${path}.${name}`, false);
    seen.delete(object);
  };
  visit(value, '$', false);
}

/** Serializes after {@link assertJsonSerializable}; the one encoding every built-in store uses. */
export function serializeValue(key: string, value: unknown): string {
  assertJsonSerializable(key, value);
  return JSON.stringify(value);
}
