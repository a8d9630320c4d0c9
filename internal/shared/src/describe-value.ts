/** Characters of a value a message prints (a strategy or a counter may answer something huge). */
const MAX_PRINTED = 120;

/**
 * A value as an error or warning message names it: JSON for what JSON spells out (a string
 * quoted), else as text, cut at 120 characters, with its kind (`42 (a number)`, `"12" (a string)`,
 * `{"action":"compact"} (an object)`); `undefined`, `null`, `a function`, `a Promise`. Never throws,
 * whatever the value (`String` throws on some values, and says little of others).
 */
export function describeValue(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  if (typeof value === 'function') return 'a function';
  if (isThenable(value)) return 'a Promise';
  const text = printed(value);
  const cut = text.length > MAX_PRINTED ? `${text.slice(0, MAX_PRINTED)}…` : text;
  return `${cut} (${kindOf(value)})`;
}

function isThenable(value: unknown): boolean {
  try {
    return typeof (value as { then?: unknown }).then === 'function';
  } catch {
    return false;
  }
}

function printed(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'symbol')
    return describeThrown(value);
  try {
    return JSON.stringify(value) ?? describeThrown(value);
  } catch {
    return describeThrown(value);
  }
}

/** `a number`, `an object`, `an array`, `a Map object`: what kind of value a message names. */
/**
 * What kind of value it is, without printing it (`an object`, `an array`, `a number`, `null`): for a
 * message about a value that may hold secrets.
 */
export function describeKind(value: unknown): string {
  return value === undefined || value === null ? String(value) : kindOf(value);
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  const tag = typeof value === 'object' ? tagOf(value) : undefined;
  const kind = tag === undefined || tag === 'Object' ? typeof value : `${tag} object`;
  return `${/^[aeiouAEIOU]/.test(kind) ? 'an' : 'a'} ${kind}`;
}

function tagOf(value: unknown): string | undefined {
  try {
    return Object.prototype.toString.call(value).slice(8, -1);
  } catch {
    return undefined;
  }
}

/** `value` as text, whatever it is (a thrown value may have no usable `toString`). */
export function describeThrown(value: unknown): string {
  try {
    return String(value);
  } catch {
    try {
      return Object.prototype.toString.call(value);
    } catch {
      return '[a value that cannot be printed]';
    }
  }
}
