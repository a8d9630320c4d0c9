import type { z } from 'zod';

/** Stable machine-readable codes used across every ctxguard package. */
export type CtxGuardErrorCode =
  | 'invalid_input'
  | 'invalid_options'
  | 'unknown_model'
  | 'storage_error'
  | 'storage_corrupt_entry'
  | 'storage_unserializable_value'
  | 'storage_conflict'
  | 'storage_unavailable'
  | 'history_invalid_index'
  | 'history_unknown_compaction'
  | 'history_unsupported_version'
  | 'count_api_error'
  | 'context_exhausted'
  | 'conversion_error'
  | (string & {});

/** Base class of every error ctxguard throws; `code` is stable across releases. */
export class CtxGuardError extends Error {
  override readonly name: string = 'CtxGuardError';
  readonly code: CtxGuardErrorCode;

  constructor(code: CtxGuardErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }

  /** True when `value` is a ctxguard error, optionally with the given code. */
  static is(value: unknown, code?: CtxGuardErrorCode): value is CtxGuardError {
    return value instanceof CtxGuardError && (code === undefined || value.code === code);
  }
}

/** Input data (messages, keys, values) failed validation; `path` names the field. */
export class InvalidInputError extends CtxGuardError {
  override readonly name = 'InvalidInputError';
  readonly path: readonly (string | number)[];

  constructor(message: string, path: readonly (string | number)[] = [], options?: { cause?: unknown }) {
    super('invalid_input', message, options);
    this.path = path;
  }
}

/** Constructor or function options failed validation; `path` names the option. */
export class InvalidOptionsError extends CtxGuardError {
  override readonly name = 'InvalidOptionsError';
  readonly path: readonly (string | number)[];

  constructor(message: string, path: readonly (string | number)[] = [], options?: { cause?: unknown }) {
    super('invalid_options', message, options);
    this.path = path;
  }
}

/** Renders a zod path as `messages[3].content[0].toolCallId`. */
export function formatPath(path: readonly PropertyKey[], root = ''): string {
  let out = root;
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out === '' ? '(root)' : out;
}

function describeIssues(error: z.ZodError, root: string): { text: string; path: (string | number)[] } {
  const first = error.issues[0];
  const path = (first?.path ?? []).filter((p): p is string | number => typeof p !== 'symbol');
  const lines = error.issues.slice(0, 5).map((issue) => `${formatPath(issue.path, root)}: ${issue.message}`);
  if (error.issues.length > 5) lines.push(`…and ${error.issues.length - 5} more`);
  return { text: lines.join('; '), path };
}

/**
 * Parses `input` with `schema`, throwing {@link InvalidInputError} whose message names every
 * failing field (e.g. `messages[2].content[0].toolCallId: expected string`).
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, root: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const { text, path } = describeIssues(result.error, root);
  throw new InvalidInputError(`Invalid ${root}: ${text}`, path, { cause: result.error });
}

/** Parses options with `schema`, throwing {@link InvalidOptionsError} naming the option. */
export function parseOptions<S extends z.ZodType>(schema: S, input: unknown, root: string): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const { text, path } = describeIssues(result.error, root);
  throw new InvalidOptionsError(`Invalid ${root}: ${text}`, path, { cause: result.error });
}
