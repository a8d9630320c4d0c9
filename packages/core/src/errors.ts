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
 * Zod's message, but a required field left out says it is required ("received undefined" reads as
 * if a value had been given), a fraction where a whole number belongs says so ("expected int,
 * received number" does not), and an unknown key that is a known one misspelt names the known one.
 */
function messageOf(issue: RawIssue, path: readonly PropertyKey[], context: IssueContext): string {
  const { schema, input } = context;
  const value = valueAt(input, path);
  const expected = expectedOf(issue);
  if (expected !== undefined && isLeftOut(input, path)) return `is missing: add it (expected ${expected})`;
  // A discriminated union's key (a message's `role`) left out.
  if (issue.code === 'invalid_union' && 'options' in issue && issue.options && isLeftOut(input, path))
    return `is missing: add it (expected ${issue.options.map((option) => `'${String(option)}'`).join(' | ')})`;
  if (issue.code === 'invalid_type' && issue.expected === 'int')
    return isShareForTokens(path, value)
      ? 'Invalid input: expected a whole number of tokens (e.g. 32000), received a fraction; a share of the window is not a token count'
      : 'Invalid input: expected a whole number, received a fraction';
  if (issue.code === 'unrecognized_keys' && schema)
    return issue.message + spellingHint(issue.keys, namesAt(schema, path));
  if (issue.code === 'custom' && isClass(value))
    return `${issue.message}; ${value.name || 'this'} is a class: pass an instance (\`new ${value.name || 'Class'}(…)\`)`;
  if (expected === 'array' && context.requestHint && holdsMessages(value))
    return `${issue.message}; ${
      'system' in value
        ? 'this is a request with a `system` prompt and a `messages` list: convert an Anthropic one with `fromAnthropic(request)`, which keeps the system prompt'
        : 'this object holds a `messages` list: pass that list'
    }`;
  return issue.message;
}

/** The type an issue says belongs here: zod's, or a custom check's `params.expected`. */
function expectedOf(issue: RawIssue): string | undefined {
  if (issue.code === 'invalid_type') return issue.expected;
  const expected = issue.code === 'custom' ? issue.params?.['expected'] : undefined;
  return typeof expected === 'string' ? expected : undefined;
}

/** The object at `path`'s parent exists and has no such key (not even one set to undefined). */
function isLeftOut(input: unknown, path: readonly PropertyKey[]): boolean {
  if (path.length === 0) return false;
  const parent = valueAt(input, path.slice(0, -1));
  if (typeof parent !== 'object' || parent === null || Array.isArray(parent)) return false;
  try {
    return !(path.at(-1)! in parent);
  } catch {
    return false; // A proxy that throws: zod's own message, not a hint.
  }
}

/** A class (a function with methods on its prototype) given where an instance of it belongs. */
function isClass(value: unknown): value is { name: string } {
  if (typeof value !== 'function' || typeof value.prototype !== 'object' || value.prototype === null)
    return false;
  return Object.getOwnPropertyNames(value.prototype).some((name) => name !== 'constructor');
}

/** What `input` holds at `path` (undefined where it holds nothing). */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  try {
    for (const key of path) {
      if (typeof current !== 'object' || current === null) return undefined;
      current = (current as Record<PropertyKey, unknown>)[key];
    }
  } catch {
    return undefined; // A getter that throws on a second read: the hint is left out, not the error.
  }
  return current;
}

/** A request object (`{ system, messages }`, `{ model, messages }`) given where its list belongs. */
function holdsMessages(value: unknown): value is { messages: unknown[] } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'messages' in value
    ? Array.isArray(value.messages)
    : false;
}

/**
 * Zod reports a failed union as one issue at the union's path. Descend into the branch that
 * got furthest so the error names the real field (`content[0].toolCallId`), not `content`.
 */
function flattenIssue(issue: RawIssue, prefix: (string | number)[], context: IssueContext): FieldIssue[] {
  const { input } = context;
  const path = [...prefix, ...cleanPath(issue.path)];
  if (issue.code !== 'invalid_union' || issue.errors.length === 0)
    return [{ path, message: messageOf(issue, path, context) }];
  const branches = issue.errors.map((branch) =>
    branch.flatMap((inner) => flattenIssue(inner, path, context)),
  );
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
      ? isLeftOut(input, path)
        ? `is missing: add it (expected ${[...expected].join(' | ')})`
        : `Invalid input: expected ${[...expected].join(' | ')}`
      : [...new Set(branches.flat().map((i) => i.message))].join('; or ');
  return [{ path, message }];
}

/**
 * Flattens zod issues (unions included) into `{ path, message }` pairs. Given the `schema` that
 * failed, an unknown key that is one of its keys misspelt names that key; given its `input`, a class
 * where an instance belongs and a request object where its `messages` list belongs are named as such.
 */
export function describeZodIssues(error: z.ZodError, schema?: z.ZodType, input?: unknown): FieldIssue[] {
  return issuesOf(error, { schema, input, requestHint: true });
}

/** What the messages of one error may draw on: the schema that failed and the input it was given. */
interface IssueContext {
  schema: z.ZodType | undefined;
  input: unknown;
  /** Whether a request object where its list belongs is named (off when a converter hint follows). */
  requestHint: boolean;
}

function issuesOf(error: z.ZodError, context: IssueContext): FieldIssue[] {
  return error.issues.flatMap((issue) => flattenIssue(issue, [], context));
}

function summarize(
  error: z.ZodError,
  root: string,
  context: IssueContext,
): { text: string; path: (string | number)[] } {
  const issues = issuesOf(error, context);
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
  const format = foreignFormatOf(messagesIn(input), own);
  // The converter hint names the request's format; a hint about the request object would repeat it.
  const { text, path } = summarize(result.error, root, { schema, input, requestHint: format === undefined });
  const hint = format === undefined ? '' : `. ${converterHint(format)}`;
  throw new InvalidInputError(`${text}${hint}`, path, { cause: result.error });
}

/** The messages `input` holds: a list, an object's `messages` (a request's too), or one message (an object with a `role`). */
function messagesIn(input: unknown, depth = 0): unknown[] {
  if (Array.isArray(input)) return input;
  if (typeof input !== 'object' || input === null || depth > 1) return [];
  if ('messages' in input) return messagesIn(input.messages, depth + 1);
  return 'role' in input ? [input] : [];
}

/**
 * Parses options with `schema`, throwing {@link InvalidOptionsError} naming the option. Options are
 * parsed once per object made, so zod's compiled fast path (built on an object schema's first parse,
 * the larger part of a cold start's validation) would never pay for itself here.
 */
export function parseOptions<S extends z.ZodType>(schema: S, input: unknown, root: string): z.output<S> {
  const given = input ?? {};
  const result = schema.safeParse(given, { jitless: true });
  if (result.success) return result.data;
  const { text, path } = summarize(result.error, root, { schema, input: given, requestHint: true });
  throw new InvalidOptionsError(text, path, { cause: result.error });
}

/**
 * The field names of the objects `schema` holds at `path`, through arrays, records, unions and
 * optional, nullable, default, catch, lazy and pipe wrappers.
 */
function namesAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current = alternatives(schema);
  for (const key of path) current = current.flatMap((at) => alternatives(childAt(at, key)));
  return [...new Set(current.flatMap((at) => (at instanceof z.ZodObject ? Object.keys(at.shape) : [])))];
}

function childAt(schema: unknown, key: PropertyKey): unknown {
  if (schema instanceof z.ZodArray && typeof key === 'number') return schema.element;
  if (schema instanceof z.ZodObject) return schema.shape[String(key)];
  if (schema instanceof z.ZodRecord) return schema.valueType;
  return undefined;
}

/** The schemas a value at `schema` is checked against: the union's branches, unwrapped. */
function alternatives(schema: unknown): unknown[] {
  const inner = unwrapped(schema);
  if (inner instanceof z.ZodUnion) return inner.options.flatMap(alternatives);
  return inner === undefined ? [] : [inner];
}

function unwrapped(schema: unknown): unknown {
  let current = schema;
  for (;;) {
    if (
      current instanceof z.ZodOptional ||
      current instanceof z.ZodNullable ||
      current instanceof z.ZodDefault ||
      current instanceof z.ZodCatch ||
      current instanceof z.ZodLazy
    )
      current = current.unwrap();
    // A preprocess pipes a transform into the schema; a transform pipes the schema into one.
    else if (current instanceof z.ZodPipe)
      current = current.in instanceof z.ZodTransform ? current.out : current.in;
    else return current;
  }
}

/**
 * A fraction below 1 given for a count of tokens (`budgetTokens: 0.25`): a share, meant or not. Not
 * for the counts of a provider's usage, where a fraction is bad data rather than a share.
 */
function isShareForTokens(path: readonly PropertyKey[], value: unknown): boolean {
  const field = String(path.at(-1) ?? '');
  return (
    typeof value === 'number' && value > 0 && value < 1 && /tokens$/i.test(field) && !USAGE_COUNTS.test(field)
  );
}

const USAGE_COUNTS = /^(input|output|total|cachedInput|cacheWriteInput|reasoning)Tokens$/;

/** ` (did you mean "contextLimit"?)` for the unknown names a known one is a slip of the keyboard away from. */
function spellingHint(unknown: readonly string[], known: readonly string[]): string {
  const meant = unknown.flatMap((name) => {
    const close = closestName(name, known);
    if (close !== undefined) return [`"${close}"`];
    const ours = (OTHER_NAMES.get(name) ?? []).filter((option) => known.includes(option));
    return ours.length === 0 ? [] : [ours.map((option) => `"${option}"`).join(' or ')];
  });
  return meant.length === 0 ? '' : ` (did you mean ${meant.join(', ')}?)`;
}

/** What other libraries, provider APIs and users call options ctxguard names otherwise (suggested where ours is an option). */
const OTHER_NAMES: ReadonlyMap<string, readonly string[]> = new Map([
  ['maxTokens', ['maxOutputTokens']],
  ['max_tokens', ['maxOutputTokens']],
  ['maxCompletionTokens', ['maxOutputTokens']],
  ['max_completion_tokens', ['maxOutputTokens']],
  ['max_output_tokens', ['maxOutputTokens']],
  ['contextWindow', ['contextLimit']],
  ['context_window', ['contextLimit']],
  ['maxContextTokens', ['contextLimit']],
  ['google', ['gemini']],
  ['compactionThreshold', ['at']],
  ['threshold', ['at']],
  ['directory', ['dir']],
  ['folder', ['dir']],
  ['path', ['dir']],
  ['tools', ['contextTools']],
  ['strategies', ['strategy']],
  ['defaultStrategy', ['strategy']],
  ['ttl', ['ttlMs', 'defaultTtlMs']],
  ['ttlMs', ['defaultTtlMs']],
  ['maxSize', ['maxEntries', 'maxBytes']],
  ['store', ['persistence', 'calibrationStore']],
  ['persistence', ['store']],
  ['model', ['contextTools', 'countContext']],
  ['provider', ['countContext']],
]);
