import { z } from 'zod';

/** UTF-8 cannot carry a lone surrogate, so a store with one in its keys could not write them. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * A store's `namespace`: one key segment, the first of every key the store writes, the store adding
 * the `:` after it (`'myapp'` writes `myapp:{key}`), as `createContextGuard` and `HistoryStore` read
 * the word. Without a `:` inside, no namespace's keys can fall under another's. `''` puts nothing in
 * front of the keys.
 */
export const storeNamespaceSchema = (): z.ZodString =>
  z
    .string()
    .regex(/^[^:]*$/, "must not contain ':' (the store adds the separator: give 'myapp', not 'myapp:')")
    .refine((value) => !LONE_SURROGATE.test(value), 'must be well-formed Unicode (no lone surrogates)');

/** What a store puts in front of every key for its namespace. */
export function namespacePrefix(namespace: string): string {
  return namespace === '' ? '' : `${namespace}:`;
}
