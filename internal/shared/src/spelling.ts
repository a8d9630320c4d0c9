import { z } from 'zod';

/**
 * The one known name `name` is a slip of the keyboard away from (another case, or one edit; two in
 * a name of over five letters), or `undefined` when none or several are that close.
 */
export function closestName(name: string, known: Iterable<string>): string | undefined {
  let found: string | undefined;
  for (const option of known) {
    if (!isSlipOf(name, option)) continue;
    if (found !== undefined) return undefined;
    found = option;
  }
  return found;
}

/** The keys of `value` that `known` lacks but are a slip away from one of them, each with that one. */
export function misspeltKeys(value: object, known: readonly string[]): { key: string; meant: string }[] {
  const found: { key: string; meant: string }[] = [];
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const meant = closestName(key, known);
    if (meant !== undefined) found.push({ key, meant });
  }
  return found;
}

/**
 * A check for an object schema that keeps keys it does not know (a value with more fields than it
 * reads, such as a whole calibration given as its key): a key one slip away from a known one is an
 * issue at that key ("did you mean"), since it would be dropped while the user meant it.
 */
export function misspeltKeysCheck(known: readonly string[]) {
  return (value: Record<string, unknown>, ctx: z.RefinementCtx): void => {
    for (const { key, meant } of misspeltKeys(value, known))
      ctx.addIssue({ code: 'custom', path: [key], message: `unknown key; did you mean "${meant}"?` });
  };
}

/**
 * An object schema for a provider's shape, which gains fields over time: keys it does not know are
 * let through (the converters read the fields they know), but a misspelt one is refused, since it
 * would be lost (`tool_call` beside no `tool_calls` would drop the call).
 */
export function tolerantObject<Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  return z.looseObject(shape).superRefine(misspeltKeysCheck(Object.keys(shape)));
}

function isSlipOf(name: string, option: string): boolean {
  const [a, b] = [name.toLowerCase(), option.toLowerCase()];
  if (a === b) return true;
  const edits = b.length > 5 ? 2 : 1;
  // Lengths further apart than that cannot be close (and a huge name never fills a table).
  if (b.length < 3 || Math.abs(a.length - b.length) > edits) return false;
  return editDistance(a, b) <= edits;
}

/**
 * Edits (insert, delete, replace, swap two neighbours) from `a` to `b`. Names are short, so the
 * table is small; a library for it would load as CommonJS, which costs a cold start more than this.
 */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i]!;
    for (let j = 1; j <= b.length; j++) {
      const replace = rows[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      row[j] = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, replace);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
    }
  }
  return rows[a.length]![b.length]!;
}
