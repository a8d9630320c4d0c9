/**
 * Appends every item of `items` to `target`, in order. Unlike `target.push(...items)`, which passes
 * each item as an argument and throws `RangeError: Maximum call stack size exceeded` past roughly
 * 100,000 of them, it takes a list of any length (the lines of a large tool output, the messages of
 * a long conversation).
 */
export function pushAll<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}
