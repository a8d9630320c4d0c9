/** The texts, HTTP statuses, URLs and numeric fields an unknown thrown value carries, gathered without throwing. */
export interface ErrorDetails {
  /** Every message-like string found, JSON bodies included both raw and decoded. */
  readonly texts: readonly string[];
  /** HTTP statuses from status fields, numeric `code`s and status prefixes such as `Error: 429 …`. */
  readonly statuses: ReadonlySet<number>;
  /** URLs the value names (`url` fields, AI SDK `APICallError.url`). */
  readonly urls: readonly string[];
  /** Numeric fields some servers return beside the text (llama.cpp's `n_prompt_tokens`, `n_ctx`). */
  readonly numbers: ReadonlyMap<string, number>;
}

const MAX_CAUSE_DEPTH = 8;
const MAX_NODES = 256;
const MAX_ARRAY_ITEMS = 16;
const MAX_TEXT_CHARS = 50_000;
const MAX_JSON_CHARS = 500_000;

/** Keys whose values describe the error; anything else (request bodies, headers) is never read. */
const DESCRIBING_KEYS = [
  'message',
  'Message',
  'error',
  'errors',
  'body',
  'responseBody',
  'data',
  'cause',
  'lastError',
  'response',
  'detail',
  'details',
  'msg',
  'reason',
  'errorMessage',
  'error_message',
  'errorType',
  'type',
  'code',
  'status',
  'statusText',
  'title',
  'name',
  '__type',
  'metadata',
  'raw',
  'provider_name',
  '$metadata',
] as const;

const STATUS_KEYS = new Set([
  'status',
  'statusCode',
  'status_code',
  'http_status',
  'httpStatus',
  'httpStatusCode',
  'code',
]);
const NUMBER_KEYS = ['n_prompt_tokens', 'n_ctx'] as const;

const LEADING_STATUS =
  /^\s*[([]?\s*(?:(?:[A-Za-z_$][\w.$]{0,60}(?:Error|Exception)|API Error|Error|HTTP(?:\/\d(?:\.\d)?)?)\s*:?\s*)?([45]\d\d)\b/;
const LABELLED_STATUS =
  /(?:status(?:[ _]?code)?|error code|http(?:[ _]status)?(?:[ _]code)?|request rejected)\s*[:=(]?\s*([45]\d\d)\b/gi;
const URL_IN_TEXT = /https?:\/\/[^\s"'`<>)\]}]{1,200}/g;

interface Walk {
  texts: string[];
  statuses: Set<number>;
  urls: string[];
  numbers: Map<string, number>;
  seen: WeakSet<object>;
  nodes: number;
}

/** Reads one property; getters and proxies that throw read as undefined. */
function read(value: object, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

function isArray(value: unknown): value is readonly unknown[] {
  try {
    return Array.isArray(value);
  } catch {
    return false;
  }
}

function addStatus(walk: Walk, status: number): void {
  if (Number.isInteger(status) && status >= 100 && status <= 599) walk.statuses.add(status);
}

function statusesInText(walk: Walk, text: string): void {
  const leading = LEADING_STATUS.exec(text);
  if (leading?.[1] !== undefined) addStatus(walk, Number(leading[1]));
  for (const match of text.matchAll(LABELLED_STATUS)) {
    if (match[1] !== undefined) addStatus(walk, Number(match[1]));
  }
}

/** The JSON document a text carries (`400 {"error":…}`, a bare body), or undefined. */
function embeddedJson(text: string): unknown {
  const start = text.search(/[{[]/);
  if (start < 0 || text.length - start > MAX_JSON_CHARS) return undefined;
  const end = Math.max(text.lastIndexOf('}'), text.lastIndexOf(']'));
  if (end <= start) return undefined;
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
}

function visitText(walk: Walk, text: string, depth: number): void {
  const clipped = text.length > MAX_TEXT_CHARS ? text.slice(0, MAX_TEXT_CHARS) : text;
  if (clipped.trim() === '') return;
  // First as one line (whitespace and JSON-escaped line breaks joined): clients and terminals wrap
  // long messages mid-sentence, and the sizes are read from the first text that states them.
  const oneLine = clipped.replace(/(?:\s|\\[nrt])+/g, ' ');
  if (oneLine !== clipped) walk.texts.push(oneLine);
  walk.texts.push(clipped);
  statusesInText(walk, clipped);
  for (const url of clipped.matchAll(URL_IN_TEXT)) walk.urls.push(url[0]);
  if (depth < MAX_CAUSE_DEPTH) {
    const json = embeddedJson(text);
    if (json !== undefined && typeof json === 'object') visit(walk, json, depth + 1);
  }
}

function visitObject(walk: Walk, value: object, depth: number): void {
  if (isArray(value)) {
    const length = Math.min(Number(read(value, 'length')) || 0, MAX_ARRAY_ITEMS);
    for (let index = 0; index < length; index++) visit(walk, read(value, String(index)), depth + 1);
    return;
  }
  const url = read(value, 'url');
  if (typeof url === 'string') walk.urls.push(url.slice(0, 2_000));
  for (const key of NUMBER_KEYS) {
    const field = read(value, key);
    if (typeof field === 'number' && Number.isFinite(field)) walk.numbers.set(key, field);
  }
  for (const key of DESCRIBING_KEYS) {
    const field = read(value, key);
    if (field === undefined || field === null) continue;
    if (typeof field === 'number') {
      if (STATUS_KEYS.has(key)) addStatus(walk, field);
      continue;
    }
    if (key === 'name' && typeof field === 'string' && /^Error$/.test(field)) continue;
    visit(walk, field, depth + 1);
  }
  for (const key of STATUS_KEYS) {
    if ((DESCRIBING_KEYS as readonly string[]).includes(key)) continue;
    const field = read(value, key);
    if (typeof field === 'number') addStatus(walk, field);
    else if (typeof field === 'string' && /^[45]\d\d$/.test(field)) addStatus(walk, Number(field));
  }
}

function visit(walk: Walk, value: unknown, depth: number): void {
  if (depth > MAX_CAUSE_DEPTH || walk.nodes >= MAX_NODES) return;
  walk.nodes++;
  if (typeof value === 'string') {
    visitText(walk, value, depth);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (walk.seen.has(value)) return;
  walk.seen.add(value);
  visitObject(walk, value, depth);
}

/**
 * Gathers what an unknown thrown value says about itself: Error objects, strings, JSON bodies, objects
 * with `message` / `error` / `body` / `responseBody` / `data`, `cause` chains (bounded, cycle-safe) and
 * AI SDK `APICallError` fields. Never throws; request bodies and headers are never read.
 */
export function collectErrorDetails(error: unknown): ErrorDetails {
  const walk: Walk = {
    texts: [],
    statuses: new Set(),
    urls: [],
    numbers: new Map(),
    seen: new WeakSet(),
    nodes: 0,
  };
  try {
    visit(walk, error, 0);
  } catch {
    // A hostile value (revoked proxy, throwing iterator): keep what was gathered so far.
  }
  return walk;
}
