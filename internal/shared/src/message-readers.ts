/**
 * Defensive readers over messages: for code that must survive odd input (missing content,
 * garbage parts), so these never throw and never trust a shape.
 */

/** A plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The message's role, or `undefined` for garbage. */
export function roleOf(message: unknown): string | undefined {
  if (!isRecord(message)) return undefined;
  try {
    const role = message.role;
    return typeof role === 'string' ? role : undefined;
  } catch {
    return undefined;
  }
}

/** The content parts of a message (`[]` for a string or garbage content). */
export function partsOf(message: unknown): readonly unknown[] {
  if (!isRecord(message)) return [];
  try {
    const content = message.content;
    return Array.isArray(content) ? content : [];
  } catch {
    return [];
  }
}
