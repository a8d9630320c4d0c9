const WORD = /[\p{L}\p{N}_]/u;

/**
 * Whether `value` occurs in `text` as a whole token (not inside a longer word or number): `1ms`
 * is not in `11ms`, while `src/a.ts` is in `packages/x/src/a.ts`.
 */
export function containsWhole(text: string, value: string): boolean {
  if (value.length === 0) return true;
  const wordStart = WORD.test(value[0]!);
  const wordEnd = WORD.test(value.at(-1)!);
  for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + 1)) {
    const before = at > 0 ? text[at - 1]! : '';
    const after = text[at + value.length] ?? '';
    if ((!wordStart || !WORD.test(before)) && (!wordEnd || !WORD.test(after))) return true;
  }
  return false;
}
