import { InvalidInputError, parseInput } from '@ctxguard/core';
import { digest } from 'ohash';
import { z } from 'zod';

/** Deepest nesting {@link canonicalJson} accepts (deeper input is rejected, never a stack overflow). */
export const MAX_REQUEST_DEPTH = 512;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function childPath(path: string, key: string): string {
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function reject(path: string, reason: string): never {
  throw new InvalidInputError(`${path} ${reason}; a request must be plain JSON`, [path]);
}

/**
 * Canonical JSON text of a value: object keys sorted, keys whose value is `undefined`
 * dropped, array order kept, Dates as ISO strings. Values JSON cannot carry (functions,
 * BigInt, symbols, NaN/Infinity, cycles, Maps, class instances, `undefined` in arrays)
 * throw an `InvalidInputError` naming their path (e.g. `request.messages[2].meta`).
 */
export function canonicalJson(value: unknown, root = 'value'): string {
  const open = new Set<object>();
  const visit = (current: unknown, path: string, depth: number): string => {
    switch (typeof current) {
      case 'string':
        return JSON.stringify(current);
      case 'boolean':
        return current ? 'true' : 'false';
      case 'number':
        if (!Number.isFinite(current)) reject(path, `is ${current}, which JSON cannot carry`);
        return JSON.stringify(current);
      case 'undefined':
        return reject(path, 'is undefined');
      case 'bigint':
        return reject(path, 'is a BigInt');
      case 'function':
        return reject(path, 'is a function');
      case 'symbol':
        return reject(path, 'is a symbol');
    }
    if (current === null) return 'null';
    if (depth >= MAX_REQUEST_DEPTH) reject(path, `is nested deeper than ${MAX_REQUEST_DEPTH} levels`);
    const object = current as object;
    if (open.has(object)) reject(path, 'is a circular reference');
    if (object instanceof Date) {
      if (Number.isNaN(object.getTime())) reject(path, 'is an invalid Date');
      return JSON.stringify(object.toISOString());
    }
    open.add(object);
    let text: string;
    if (Array.isArray(object)) {
      const items: string[] = [];
      for (let index = 0; index < object.length; index++) {
        const item: unknown = object[index];
        if (item === undefined) reject(`${path}[${index}]`, 'is undefined (JSON would turn it into null)');
        items.push(visit(item, `${path}[${index}]`, depth + 1));
      }
      text = `[${items.join(',')}]`;
    } else {
      const proto = Object.getPrototypeOf(object);
      if (proto !== Object.prototype && proto !== null) {
        reject(
          path,
          `is a ${(object.constructor as { name?: string } | undefined)?.name ?? 'non-plain'} instance, not a plain object`,
        );
      }
      const record = object as Record<string, unknown>;
      const fields: string[] = [];
      for (const key of Object.keys(record).sort()) {
        const child = record[key];
        if (child === undefined) continue;
        fields.push(`${JSON.stringify(key)}:${visit(child, childPath(path, key), depth + 1)}`);
      }
      text = `{${fields.join(',')}}`;
    }
    open.delete(object);
    return text;
  };
  return visit(value, root, 0);
}

/**
 * SHA-256 of a string's UTF-8 bytes as 43 base64url characters (ohash's `digest`: node:crypto
 * on Node, a pure-JS SHA-256 in browsers and edge runtimes).
 */
export function sha256Base64Url(text: string): string {
  return digest(text);
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

const requestCacheKeyInputSchema = z.strictObject({
  /** Tenant, user or other isolation scope; required so two scopes never share an entry. */
  scope: z.string().min(1, 'scope is required (tenant, user or project id) so scopes never share entries'),
  provider: z.string().optional(),
  model: z.string().optional(),
  request: z.unknown().optional(),
});

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

/** The prefix every {@link requestCacheKey} of `scope` starts with (for scoped invalidation). */
export function scopeKeyPrefix(scope: string): string {
  if (typeof scope !== 'string' || scope.length === 0) {
    throw new InvalidInputError('scope must be a non-empty string', ['scope']);
  }
  return `${escapeScope(scope)}:`;
}
