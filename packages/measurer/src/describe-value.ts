/** A value as an error or warning message names it (`String` throws on some values, and says little of others). */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))}`;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean')
    return String(value);
  if (value === null || value === undefined) return String(value);
  if (typeof value !== 'object') return `a ${typeof value}`;
  if (typeof (value as { then?: unknown }).then === 'function') return 'a Promise';
  return Array.isArray(value) ? 'an array' : 'an object';
}
