import { closestName, converterHint, foreignFormatOf, formatPath } from '@ctxguard/shared';
import { z } from 'zod';

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

/**
 * Brand every ctxguard error carries. `Symbol.for` gives the same symbol to every copy of this
 * package loaded in one realm, so `CtxGuardError.is` holds when two versions are installed.
 */
const ctxGuardErrorBrand: unique symbol = Symbol.for('ctxguard.error') as never;

function isBranded(value: unknown): value is CtxGuardError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { [ctxGuardErrorBrand]?: unknown })[ctxGuardErrorBrand] === true &&
    typeof (value as { code?: unknown }).code === 'string'
  );
}

/** Base class of every error ctxguard throws; `code` is stable across releases. */
export class CtxGuardError extends Error {
  override readonly name: string = 'CtxGuardError';
  readonly code: CtxGuardErrorCode;
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: read by isBranded through the shared symbol
  private readonly [ctxGuardErrorBrand] = true;

  constructor(code: CtxGuardErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }

  /**
   * True when `value` is a ctxguard error (from any installed copy of ctxguard), optionally with
   * the given code. Prefer it to `instanceof` across package boundaries.
   */
  static is(value: unknown, code?: CtxGuardErrorCode): value is CtxGuardError {
    return isBranded(value) && (code === undefined || value.code === code);
  }

  /** `instanceof CtxGuardError` also holds for errors made by another installed copy; subclasses check as usual. */
  static override [Symbol.hasInstance](instance: unknown): boolean {
    // `this` is the class `instanceof` was asked about: the brand answers only for the base class.
    // biome-ignore lint/complexity/noThisInStatic: subclasses inherit this method and must check their own prototype
    if (this === CtxGuardError) return isBranded(instance);
    // biome-ignore lint/complexity/noThisInStatic: as above
    return Function.prototype[Symbol.hasInstance].call(this, instance);
  }
}

/** Input data (messages, keys, values) failed validation; `path` names the field. */
export class InvalidInputError extends CtxGuardError {
  override readonly name: string = 'InvalidInputError';
  readonly path: readonly (string | number)[];

  constructor(message: string, path: readonly (string | number)[] = [], options?: { cause?: unknown }) {
    super('invalid_input', message, options);
    this.path = path;
  }
}

/** Constructor or function options failed validation; `path` names the option. */
export class InvalidOptionsError extends CtxGuardError {
  override readonly name: string = 'InvalidOptionsError';
  readonly path: readonly (string | number)[];

  constructor(message: string, path: readonly (string | number)[] = [], options?: { cause?: unknown }) {
    super('invalid_options', message, options);
    this.path = path;
  }
}

/**
 * Valid input that a message format cannot express (e.g. an image URL where the format only
 * takes base64); `path` names the field, as in `messages[3].content[1].image`.
 */
export class ConversionError extends CtxGuardError {
  override readonly name: string = 'ConversionError';
  readonly path: readonly (string | number)[];

  constructor(message: string, path: readonly (string | number)[] = [], options?: { cause?: unknown }) {
    super('conversion_error', message, options);
    this.path = path;
  }
}

/** One failing field: where (`path`) and why (`message`). */
export interface FieldIssue {
  path: (string | number)[];
  message: string;
}

type RawIssue = z.core.$ZodIssue;

function cleanPath(path: readonly PropertyKey[]): (string | number)[] {
  return path.filter((p): p is string | number => typeof p !== 'symbol');
}

/**
 * Zod's message, but a fraction where a whole number belongs says so ("expected int, received
 * number" does not), and an unknown key that is a known one misspelt names the known one.
 */
function messageOf(issue: RawIssue, path: readonly PropertyKey[], schema: z.ZodType | undefined): string {
  if (issue.code === 'invalid_type' && issue.expected === 'int')
    return 'Invalid input: expected a whole number, received a fraction';
  if (issue.code === 'unrecognized_keys' && schema)
    return issue.message + spellingHint(issue.keys, namesAt(schema, path));
  return issue.message;
}

/**
 * Zod reports a failed union as one issue at the union's path. Descend into the branch that
 * got furthest so the error names the real field (`content[0].toolCallId`), not `content`.
 */
function flattenIssue(issue: RawIssue, prefix: (string | number)[], schema?: z.ZodType): FieldIssue[] {
  const path = [...prefix, ...cleanPath(issue.path)];
  if (issue.code !== 'invalid_union' || issue.errors.length === 0)
    return [{ path, message: messageOf(issue, path, schema) }];
  const branches = issue.errors.map((branch) => branch.flatMap((inner) => flattenIssue(inner, path)));
  // A loop, not Math.max(...): a branch may hold more issues than a call takes arguments.
  const depth = (branch: FieldIssue[]) => {
    let deepest = Number.NEGATIVE_INFINITY;
    for (const issue of branch) deepest = Math.max(deepest, issue.path.length);
    return deepest;
  };
  let best: FieldIssue[] | undefined;
  for (const branch of branches) {
    if (branch.length === 0) continue;
    if (
      !best ||
      depth(branch) > depth(best) ||
      (depth(branch) === depth(best) && branch.length < best.length)
    ) {
      best = branch;
    }
  }
  if (best && depth(best) > path.length) return best;
  // Every branch failed at the union itself: say what would have been accepted.
  const expected = new Set<string>();
  for (const inner of issue.errors.flat()) {
    if (inner.code === 'invalid_type') expected.add(inner.expected);
  }
  const message =
    expected.size > 0
      ? `Invalid input: expected ${[...expected].join(' | ')}`
      : [...new Set(branches.flat().map((i) => i.message))].join('; or ');
  return [{ path, message }];
}

/**
 * Flattens zod issues (unions included) into `{ path, message }` pairs. Given the `schema` that
 * failed, an unknown key that is one of its keys misspelt names that key.
 */
export function describeZodIssues(error: z.ZodError, schema?: z.ZodType): FieldIssue[] {
  return error.issues.flatMap((issue) => flattenIssue(issue, [], schema));
}

function summarize(
  error: z.ZodError,
  root: string,
  schema: z.ZodType,
): { text: string; path: (string | number)[] } {
  const issues = describeZodIssues(error, schema);
  const lines = issues.slice(0, 5).map((issue) => `${formatPath(issue.path, root)}: ${issue.message}`);
  if (issues.length > 5) lines.push(`…and ${issues.length - 5} more`);
  return { text: lines.join('; '), path: issues[0]?.path ?? [] };
}

/**
 * Parses `input` with `schema`, throwing {@link InvalidInputError} whose message names every
 * failing field (e.g. `messages[2].content[0].toolCallId: expected string`). When the input holds
 * messages (a message, a list, or an object with `messages`) and some are recognisably a provider's
 * own format (other than `own`, the format a converter takes), it also says which converter takes them.
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  root: string,
  { own }: { own?: string } = {},
): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const { text, path } = summarize(result.error, root, schema);
  const format = foreignFormatOf(messagesIn(input), own);
  const hint = format === undefined ? '' : `. ${converterHint(format)}`;
  throw new InvalidInputError(`${text}${hint}`, path, { cause: result.error });
}

/** The messages `input` holds: a list, an object's `messages`, or one message (an object with a `role`). */
function messagesIn(input: unknown): unknown[] {
  if (Array.isArray(input)) return input;
  if (typeof input !== 'object' || input === null) return [];
  if ('messages' in input) return Array.isArray(input.messages) ? input.messages : [];
  return 'role' in input ? [input] : [];
}

/**
 * Parses options with `schema`, throwing {@link InvalidOptionsError} naming the option. Options are
 * parsed once per object made, so zod's compiled fast path (built on an object schema's first parse,
 * the larger part of a cold start's validation) would never pay for itself here.
 */
export function parseOptions<S extends z.ZodType>(schema: S, input: unknown, root: string): z.output<S> {
  const result = schema.safeParse(input ?? {}, { jitless: true });
  if (result.success) return result.data;
  const { text, path } = summarize(result.error, root, schema);
  throw new InvalidOptionsError(text, path, { cause: result.error });
}

/** The field names of the object `schema` holds at `path` (through arrays and optional, nullable and default wrappers). */
function namesAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current = unwrapped(schema);
  for (const key of path) {
    if (current instanceof z.ZodArray && typeof key === 'number') current = unwrapped(current.element);
    else if (current instanceof z.ZodObject) current = unwrapped(current.shape[String(key)]);
    else return [];
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

function unwrapped(schema: unknown): unknown {
  let current = schema;
  while (
    current instanceof z.ZodOptional ||
    current instanceof z.ZodNullable ||
    current instanceof z.ZodDefault
  )
    current = current.unwrap();
  return current;
}

/** ` (did you mean "contextLimit"?)` for the unknown names a known one is a slip of the keyboard away from. */
function spellingHint(unknown: readonly string[], known: readonly string[]): string {
  const meant = unknown.flatMap((name) => {
    const close = closestName(name, known);
    return close === undefined ? [] : [`"${close}"`];
  });
  return meant.length === 0 ? '' : ` (did you mean ${meant.join(', ')}?)`;
}
