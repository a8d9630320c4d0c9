import { collectErrorDetails, type ErrorDetails } from './error-details.js';
import {
  BODY_TOO_LARGE_PATTERNS,
  COUNT_PARSERS,
  type ContextOverflowProvider,
  countsFromFields,
  HOST_HINTS,
  NOT_OVERFLOW_PATTERNS,
  OPENAI_FAMILY_HINTS,
  OVERFLOW_SIGNATURES,
  type OverflowSignature,
  SERVICE_HINTS,
  type StatedCounts,
  saysOverflowInGeneral,
} from './overflow-patterns.js';

export type { ContextOverflowProvider } from './overflow-patterns.js';

/**
 * Sizes a provider stated in its overflow error: exact counts by the provider's own tokenizer. Where
 * `inputTokens` is present, `requestedTokens - inputTokens` is the output reserve (`max_tokens`) the
 * provider counted against the window: 0 when it counted the input alone.
 */
export interface OverflowTokens {
  /** The total the provider says the request asked for (input, plus the output reserve where it counts it). */
  readonly requestedTokens: number;
  /** The provider's stated maximum for that total. */
  readonly limitTokens: number;
  /** The prompt (input) part, where the message states it apart from the output reserve. */
  readonly inputTokens?: number;
}

interface Diagnosis {
  readonly signature: OverflowSignature;
  readonly details: ErrorDetails;
  readonly counts: StatedCounts | undefined;
}

const RATE_LIMITED = 429;
const BODY_TOO_LARGE = 413;

function anyText(details: ErrorDetails, patterns: readonly RegExp[]): boolean {
  return details.texts.some((text) => patterns.some((pattern) => pattern.test(text)));
}

const GENERAL_SIGNATURE: OverflowSignature = { provider: 'generic', pattern: /(?:)/ };

/** The first provider wording that matches; else the general shape, which names no provider. */
function firstSignature(details: ErrorDetails): OverflowSignature | undefined {
  for (const signature of OVERFLOW_SIGNATURES) {
    if (details.texts.some((text) => signature.pattern.test(text))) return signature;
  }
  return details.texts.some(saysOverflowInGeneral) ? GENERAL_SIGNATURE : undefined;
}

function statedCounts(details: ErrorDetails): StatedCounts | undefined {
  for (const parse of COUNT_PARSERS) {
    for (const text of details.texts) {
      const found = parse(text);
      if (found !== undefined) return found;
    }
  }
  return countsFromFields(details.numbers);
}

/**
 * An overflow is wording that says the request did not fit the window. A 413 counts only by its wording:
 * byte-limit wording (`request_too_large`, "Request Entity Too Large") wins over any overflow signature.
 */
function diagnoseDetails(details: ErrorDetails): Diagnosis | undefined {
  if (details.statuses.has(RATE_LIMITED)) return undefined;
  if (anyText(details, NOT_OVERFLOW_PATTERNS) || anyText(details, BODY_TOO_LARGE_PATTERNS)) return undefined;
  const signature = firstSignature(details);
  if (signature === undefined) return undefined;
  return { signature, details, counts: statedCounts(details) };
}

function diagnose(error: unknown): Diagnosis | undefined {
  return diagnoseDetails(collectErrorDetails(error));
}

function hinted(
  hints: readonly (readonly [RegExp, ContextOverflowProvider])[],
  texts: readonly string[],
): ContextOverflowProvider | undefined {
  for (const [pattern, provider] of hints) {
    if (texts.some((text) => pattern.test(text))) return provider;
  }
  return undefined;
}

/**
 * True when the error says the request did not fit the model's context window: the input alone, or the
 * input plus the requested output, even when that output reserve is most of it (see `parseOverflowTokens`
 * to lower `max_tokens` first). Rate limits, quotas, throttling (even when it names tokens), spending
 * limits, an output `max_tokens` over the model's output cap and 413 byte-limit errors are not overflows;
 * a 413 whose message says the prompt or request exceeds the context window is.
 * Accepts anything (Error, string, JSON body, AI SDK `APICallError`, nested `cause`) and never throws.
 */
export function isContextOverflowError(error: unknown): boolean {
  try {
    return diagnose(error) !== undefined;
  } catch {
    return false;
  }
}

/**
 * Which provider produced a context overflow error (`'anthropic'`, `'bedrock'`, `'ollama'`, …), from the
 * request URL, the client's wrapper names, then the wording; null when the error is not an overflow.
 */
export function getContextOverflowProvider(error: unknown): ContextOverflowProvider | null {
  try {
    const diagnosis = diagnose(error);
    if (diagnosis === undefined) return null;
    const { details, signature } = diagnosis;
    const byHost = hinted(HOST_HINTS, details.urls);
    if (byHost !== undefined) return byHost;
    const byService = hinted(SERVICE_HINTS, details.texts);
    if (byService !== undefined) return byService;
    const sharedWording =
      signature.provider === 'openai' || signature.provider === 'groq' || signature.provider === 'generic';
    if (sharedWording) return hinted(OPENAI_FAMILY_HINTS, details.texts) ?? signature.provider;
    return signature.provider;
  } catch {
    return null;
  }
}

/**
 * The sizes an overflow error states, for calibrating a token estimate against the provider's own count:
 * `prompt is too long: 208000 tokens > 200000 maximum` → `{ requestedTokens: 208000, limitTokens: 200000,
 * inputTokens: 208000 }`. `requestedTokens - inputTokens` is the output reserve the provider counted:
 * when it is half the window or more, lower `max_tokens` before compacting history. Null when the error
 * is not an overflow or states no sizes. Never throws.
 */
export function parseOverflowTokens(error: unknown): OverflowTokens | null {
  try {
    const counts = diagnose(error)?.counts;
    if (counts === undefined) return null;
    return {
      requestedTokens: counts.requested,
      limitTokens: counts.limit,
      ...(counts.input === undefined ? {} : { inputTokens: counts.input }),
    };
  } catch {
    return null;
  }
}

/**
 * True for an HTTP body over the server's byte limit (status 413, `request_too_large`, "Request Entity
 * Too Large", "Request payload size exceeds the limit"), which calls for smaller attachments rather than
 * fewer tokens; a 413 that is really a tokens-per-minute rate limit, or a context overflow ("Request
 * size exceeds model context window"), is not one. Never throws.
 */
export function isRequestTooLargeError(error: unknown): boolean {
  try {
    const details = collectErrorDetails(error);
    const rateLimited =
      details.statuses.has(RATE_LIMITED) ||
      details.texts.some((text) => /rate[ _-]?limit|tokens? per (?:min|minute|day)|\bTPM\b/i.test(text));
    if (rateLimited) return false;
    const overBytes = details.statuses.has(BODY_TOO_LARGE) || anyText(details, BODY_TOO_LARGE_PATTERNS);
    return overBytes && diagnoseDetails(details) === undefined;
  } catch {
    return false;
  }
}
