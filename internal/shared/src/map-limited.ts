/** Token counts asked for at once per request: enough to not wait on each, few enough for rate limits. */
export const COUNTS_IN_FLIGHT = 8;

/**
 * `Promise.all(items.map(run))` with at most `limit` calls in flight: for calls to a provider's API
 * (a token count per message), where waiting on each in turn is slow and all at once invites rate
 * limits. Results are in the order of `items`; the first rejection rejects.
 */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  run: (item: T, index: number) => R | Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await run(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
