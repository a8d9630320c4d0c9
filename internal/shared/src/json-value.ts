/** Any value JSON can carry. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Where a value stops being JSON (`path` as in core's errors) and why. */
export interface JsonValueIssue {
  /** Property names and array indexes from the root to the offending value; `[]` for the root. */
  readonly path: (string | number)[];
  /** What is wrong there, e.g. `is a function`. */
  readonly reason: string;
}

/** Options of {@link findJsonValueIssue} and {@link copyJsonValue}. */
export interface JsonCheckOptions {
  /** Most levels of nested arrays and objects accepted; default: as deep as the stack allows. */
  maxDepth?: number | undefined;
}

/** Result of {@link copyJsonValue}: the copy, or the first issue found. */
export type JsonCopyResult = { ok: true; value: JsonValue } | { ok: false; issue: JsonValueIssue };

const FAILED: unique symbol = Symbol('failed');

interface Walk {
  readonly copy: boolean;
  readonly maxDepth: number;
  readonly path: (string | number)[];
  readonly ancestors: Set<object>;
  issue: JsonValueIssue | null;
}

function fail(walk: Walk, reason: string): typeof FAILED {
  walk.issue = { path: walk.path.slice(), reason };
  return FAILED;
}

function dateReason(date: Date): string {
  return Number.isNaN(date.getTime())
    ? 'is an invalid Date'
    : 'is a Date, which JSON cannot carry (store date.toISOString() or date.getTime())';
}

/**
 * True for an object literal or a null-prototype object, from any realm (an iframe, a `vm`
 * context): its tag is `Object` and its prototype, if any, has no prototype itself.
 */
function isPlainObject(object: object): boolean {
  if (Object.prototype.toString.call(object) !== '[object Object]') return false;
  const proto: unknown = Object.getPrototypeOf(object);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

const TO_JSON_REASON = 'has a toJSON method, which JSON.stringify would call (store what it returns)';

/**
 * A `toJSON` method JSON.stringify would call, own or inherited, enumerable or not: the value a
 * store writes would not be the one checked (an enumerable own one is also a function property).
 */
function hasToJson(object: object): boolean {
  return typeof (object as { toJSON?: unknown }).toJSON === 'function';
}

function kindOf(object: object): string {
  const maker = (object as { constructor?: unknown }).constructor;
  const name = typeof maker === 'function' ? maker.name : '';
  return name || 'non-plain';
}

function visit(walk: Walk, value: unknown, inArray: boolean): JsonValue | undefined | typeof FAILED {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) return fail(walk, `is ${value}, which JSON cannot carry`);
      // JSON has no -0 (JSON.stringify writes 0): the copy agrees with what a store gives back.
      return value === 0 ? 0 : value;
    case 'undefined':
      if (walk.path.length === 0) return fail(walk, 'is undefined');
      if (inArray) return fail(walk, 'is undefined (JSON would turn it into null)');
      return undefined;
    case 'bigint':
      return fail(walk, 'is a BigInt');
    case 'function':
      return fail(walk, 'is a function');
    case 'symbol':
      return fail(walk, 'is a symbol');
  }
  if (value === null) return null;
  const object = value as object;
  if (walk.ancestors.has(object)) return fail(walk, 'is a circular reference');
  if (walk.path.length >= walk.maxDepth) return fail(walk, `is nested deeper than ${walk.maxDepth} levels`);
  if (Array.isArray(object)) {
    if (hasToJson(object)) return fail(walk, TO_JSON_REASON);
    walk.ancestors.add(object);
    const out: JsonValue[] | null = walk.copy ? [] : null;
    for (let index = 0; index < object.length; index++) {
      walk.path.push(index);
      if (!(index in object)) return fail(walk, 'is an array hole (JSON would turn it into null)');
      const item = visit(walk, object[index], true);
      if (item === FAILED) return FAILED;
      walk.path.pop();
      out?.push(item as JsonValue);
    }
    walk.ancestors.delete(object);
    return out ?? (object as JsonValue[]);
  }
  if (Object.prototype.toString.call(object) === '[object Date]')
    return fail(walk, dateReason(object as Date));
  if (!isPlainObject(object)) return fail(walk, `is a ${kindOf(object)} instance, not a plain object`);
  if (hasToJson(object)) return fail(walk, TO_JSON_REASON);
  walk.ancestors.add(object);
  const out: { [key: string]: JsonValue } | null = walk.copy ? {} : null;
  for (const key of Object.keys(object)) {
    walk.path.push(key);
    const item = visit(walk, (object as Record<string, unknown>)[key], false);
    if (item === FAILED) return FAILED;
    walk.path.pop();
    if (out === null || item === undefined) continue;
    // A `__proto__` key is data: define it, since assigning it would change the copy's prototype.
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    else out[key] = item;
  }
  walk.ancestors.delete(object);
  return out ?? (object as { [key: string]: JsonValue });
}

function run(value: unknown, copy: boolean, options: JsonCheckOptions): JsonCopyResult {
  const walk: Walk = {
    copy,
    maxDepth: options.maxDepth ?? Number.POSITIVE_INFINITY,
    path: [],
    ancestors: new Set(),
    issue: null,
  };
  try {
    const result = visit(walk, value, false);
    if (result === FAILED || walk.issue !== null)
      return { ok: false, issue: walk.issue ?? { path: [], reason: 'is not a JSON value' } };
    return { ok: true, value: result as JsonValue };
  } catch (error) {
    if (error instanceof RangeError)
      return { ok: false, issue: { path: [], reason: 'is nested too deeply to serialize' } };
    throw error;
  }
}

/**
 * The one rule for what JSON can carry, used by messages and by every store: strings, booleans,
 * finite numbers, `null`, arrays without holes or `undefined`, and plain objects (from any realm,
 * null prototype allowed; properties whose value is `undefined` are left out, as `JSON.stringify`
 * does). Functions, symbols, BigInt, NaN/±Infinity, cycles, Dates, Maps and other class
 * instances, and objects or arrays with a `toJSON` method are not. Returns the first issue, or
 * `null` when `value` is JSON.
 */
export function findJsonValueIssue(value: unknown, options: JsonCheckOptions = {}): JsonValueIssue | null {
  const result = run(value, false, options);
  return result.ok ? null : result.issue;
}

/**
 * Checks `value` by the rule of {@link findJsonValueIssue} and returns a deep copy that shares
 * nothing with it (`-0` becomes `0`, `undefined` properties are dropped, `__proto__` keys stay data).
 */
export function copyJsonValue(value: unknown, options: JsonCheckOptions = {}): JsonCopyResult {
  return run(value, true, options);
}
