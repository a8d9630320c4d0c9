import { type Message, messageSchema } from '@ctxguard/core';

/** Keys of a content part that do not make it a different part (cache-control markers move each call). */
const IGNORED_PART_KEYS = new Set(['providerOptions']);
const NO_KEYS: ReadonlySet<string> = new Set();

function sameObject(a: object, b: object, ignored: ReadonlySet<string>, partKeys: boolean): boolean {
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  for (const key of Object.keys(left)) {
    if (ignored.has(key) || left[key] === undefined) continue;
    if (!sameValue(left[key], right[key], partKeys)) return false;
  }
  for (const key of Object.keys(right)) {
    if (ignored.has(key) || right[key] === undefined) continue;
    if (left[key] === undefined) return false;
  }
  return true;
}

/** Structural equality of JSON-like values; `parts` marks an array of content parts. */
function sameValue(a: unknown, b: unknown, parts = false): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      const x = a[i];
      const y = b[i];
      if (x === y) continue;
      if (parts && typeof x === 'object' && typeof y === 'object' && x !== null && y !== null) {
        if (!sameObject(x, y, IGNORED_PART_KEYS, false)) return false;
      } else if (!sameValue(x, y)) return false;
    }
    return true;
  }
  if (Array.isArray(b)) return false;
  return sameObject(a, b, NO_KEYS, false);
}

/**
 * True when two messages say the same thing: same role, name and content (parts compared by
 * value, in order). Ids, timestamps, metadata, reported usage and provider options are per-call
 * data (SDKs rebuild messages, move cache-control markers), so they do not count. Cost is one
 * pointer comparison per leaf when the strings are shared, as with messages rebuilt from the
 * same source.
 */
export function sameMessageContent(a: Message, b: Message): boolean {
  if (a === b) return true;
  if (a.role !== b.role || (a.name ?? undefined) !== (b.name ?? undefined)) return false;
  const left = a.content;
  const right = b.content;
  if (typeof left === 'string' || typeof right === 'string') return left === right;
  return sameValue(left, right, true);
}

/**
 * True when the app's message `raw` (not validated yet) says the same as the stored `stored`.
 * Compared as given first; when that differs, compared again after validation, which drops the
 * keys the message schema does not know (the stored copy was validated the same way).
 */
export function matchesStored(stored: Message, raw: unknown): boolean {
  if (typeof raw !== 'object' || raw === null) return false;
  if (sameMessageContent(stored, raw as Message)) return true;
  if ((raw as { role?: unknown }).role !== stored.role) return false;
  const parsed = messageSchema.safeParse(raw);
  return parsed.success && sameMessageContent(stored, parsed.data);
}
