/** Objects already found frozen all the way down (they stay so: frozen is for ever). */
const known = new WeakSet<object>();

/**
 * True when `value` and everything it holds is frozen, as the stored originals of a history are: such
 * a message cannot change, so what is derived from it may be remembered by identity across calls.
 */
export function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (known.has(value)) return true;
  if (!Object.isFrozen(value) || !Object.values(value).every(isDeepFrozen)) return false;
  known.add(value);
  return true;
}

/** `value`, frozen all the way down (for objects made only here: a caller's objects are never frozen). */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || known.has(value)) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  Object.freeze(value);
  known.add(value);
  return value;
}
