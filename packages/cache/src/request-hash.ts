import { InvalidInputError, parseInput } from '@ctxguard/core';
import { assertKey } from '@ctxguard/persistence';
import { findJsonValueIssue, formatPath, lazySchema } from '@ctxguard/shared';
import { sha256 } from '@noble/hashes/sha2.js';
import { z } from 'zod';

/** Deepest nesting {@link canonicalJson} accepts (deeper input is rejected, never a stack overflow). */
export const MAX_REQUEST_DEPTH = 512;

/**
 * Canonical JSON text of a value: object keys sorted by code unit, keys whose value is
 * `undefined` dropped, array order kept. What JSON can carry is the one rule the stores and
 * core's message schema use too (plain objects from another realm included); anything else (functions, BigInt, symbols, NaN/Infinity, cycles,
 * Dates, Maps, class instances, `undefined` in arrays, nesting past {@link MAX_REQUEST_DEPTH})
 * throws an `InvalidInputError` naming its path (e.g. `request.messages[2].meta`).
 */
export function canonicalJson(value: unknown, root = 'value'): string {
  const issue = findJsonValueIssue(value, { maxDepth: MAX_REQUEST_DEPTH });
  if (issue !== null) {
    const path = formatPath(issue.path, root);
    throw new InvalidInputError(`${path} ${issue.reason}; a request must be plain JSON`, issue.path);
  }
  return sortedJson(value);
}

/** JSON text with object keys sorted, for a value that passed `findJsonValueIssue`. */
function sortedJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const fields: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const child = record[key];
    if (child !== undefined) fields.push(`${JSON.stringify(key)}:${sortedJson(child)}`);
  }
  return `{${fields.join(',')}}`;
}

let utf8: TextEncoder | undefined;

/** SHA-256 of a string's UTF-8 bytes as 43 base64url characters (no padding). */
export function sha256Base64Url(text: string): string {
  utf8 ??= new TextEncoder();
  const digest = sha256(utf8.encode(text));
  let binary = '';
  for (const byte of digest) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * Stable SHA-256 hash (43 base64url characters) of a request body after {@link canonicalJson}: equal
 * requests hash alike whatever their key order. Usable as a cache key.
 */
export function hashRequest(body: unknown): string {
  return sha256Base64Url(canonicalJson(body, 'request'));
}

/** Escapes a scope so it holds no `:` (`%` → `%25`, `:` → `%3A`); reversible. */
function escapeScope(scope: string): string {
  return scope.replace(/%/g, '%25').replace(/:/g, '%3A');
}

const requestCacheKeyInputSchema = lazySchema(() =>
  z.strictObject({
    /** Tenant, user or other isolation scope; required so two scopes never share an entry. */
    scope: z.string().min(1, 'scope is required (tenant, user or project id) so scopes never share entries'),
    provider: z.string().optional(),
    model: z.string().optional(),
    request: z.unknown().optional(),
  }),
);

/** Input of {@link requestCacheKey}. */
export type RequestCacheKeyInput = z.input<typeof requestCacheKeyInputSchema>;

/**
 * Cache key for a model request: `{escaped scope}:{sha256 base64url}` where the hash covers a
 * structured record of scope, provider, model and canonical request, so fields can never
 * run into each other. The readable scope prefix lets `invalidate({ keyPrefix: scopeKeyPrefix(scope) })`
 * drop one tenant's entries.
 */
export function requestCacheKey(input: RequestCacheKeyInput): string {
  const { scope, provider, model, request } = parseInput(
    requestCacheKeyInputSchema,
    input,
    'requestCacheKey input',
  );
  if (request === undefined) {
    throw new InvalidInputError('requestCacheKey input.request is required', ['request']);
  }
  const record = { v: 1, scope, provider: provider ?? null, model: model ?? null, request };
  return `${scopeKeyPrefix(scope)}${sha256Base64Url(canonicalJson(record, 'requestCacheKey'))}`;
}

/**
 * The prefix every {@link requestCacheKey} of `scope` starts with (for scoped invalidation).
 * `scope` follows the key rule (`assertKey`): non-empty, well-formed Unicode.
 */
export function scopeKeyPrefix(scope: string): string {
  assertKey(scope, 'scope');
  return `${escapeScope(scope)}:`;
}
