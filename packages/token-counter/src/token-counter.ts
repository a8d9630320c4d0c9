import type { ContentClass } from '@ctxguard/calibration';
import type { Message } from '@ctxguard/core';
import { InvalidInputError } from '@ctxguard/core';
import { describeValue, isAbortSignal, lazySchema, misspeltKeys, throwIfAborted } from '@ctxguard/shared';
import { z } from 'zod';

/** Which model a count is for; routes tokenizers, multipliers and calibration. */
export interface CountContext {
  provider: string;
  model: string;
}

/** Schema of a {@link CountContext}: what `measure*` checks its context against. */
export const countContextSchema = lazySchema(() => z.object({ provider: z.string(), model: z.string() }));

/** How a count was obtained. */
export type Accuracy = 'estimate' | 'exact';

/** A token count and how far it can be trusted. */
export interface TokenCount {
  tokens: number;
  accuracy: Accuracy;
}

/** Options of the async `measure*` calls. */
export interface MeasureOptions {
  /** `exact` asks for an exact count; counters that cannot give one return an estimate and say so. */
  accuracy?: Accuracy;
  signal?: AbortSignal;
}

/**
 * Checks `options` of a `measure*` call, naming the field that is wrong (`options.accuracy: …`),
 * then throws the signal's reason when it was aborted. A few `typeof` checks: it runs on every call.
 */
export function checkMeasureOptions(options: unknown): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null)
    throw new InvalidInputError(
      `options: expected { accuracy?, signal? }, received ${describeValue(options)}`,
      ['options'],
    );
  checkKeys(options, MEASURE_OPTION_KEYS, 'options');
  const { accuracy, signal } = options as { accuracy?: unknown; signal?: unknown };
  if (accuracy !== undefined && accuracy !== 'estimate' && accuracy !== 'exact')
    throw new InvalidInputError(
      `options.accuracy: expected 'estimate' or 'exact', received ${describeValue(accuracy)}`,
      ['options', 'accuracy'],
    );
  if (signal !== undefined && !isAbortSignal(signal))
    throw new InvalidInputError(
      `options.signal: expected an AbortSignal, received ${describeValue(signal)}`,
      ['options', 'signal'],
    );
  throwIfAborted(signal);
}

const MEASURE_OPTION_KEYS = ['accuracy', 'signal'];
const CONVERSATION_KEYS = ['messages', 'system', 'tools'];

/**
 * Checks the `input` of `measureConversation` (`{ messages, system?, tools? }`) and its `ctx`,
 * naming what is wrong (`input.messages: …`). Other fields are let through (a whole request is an
 * input), but one a slip away from a field it reads is refused. `typeof` checks, no schema: the
 * function must bundle without zod.
 */
export function checkConversationInput(input: unknown, ctx: unknown): void {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new InvalidInputError(
      `input: expected { messages, system?, tools? }, received ${describeValue(input)}`,
      ['input'],
    );
  checkKeys(input, CONVERSATION_KEYS, 'input');
  const { messages, system, tools } = input as Record<string, unknown>;
  if (!Array.isArray(messages))
    throw new InvalidInputError(
      `input.messages: expected an array of messages, received ${describeValue(messages)}`,
      ['input', 'messages'],
    );
  if (system !== undefined && typeof system !== 'string')
    throw new InvalidInputError(`input.system: expected a string, received ${describeValue(system)}`, [
      'input',
      'system',
    ]);
  if (tools !== undefined && !Array.isArray(tools))
    throw new InvalidInputError(
      `input.tools: expected an array of tool definitions, received ${describeValue(tools)}`,
      ['input', 'tools'],
    );
  const { provider, model } = (typeof ctx === 'object' && ctx !== null ? ctx : {}) as Record<string, unknown>;
  if (typeof provider !== 'string' || typeof model !== 'string')
    throw new InvalidInputError(
      `ctx: expected { provider, model } (strings), received ${describeValue(ctx)}`,
      ['ctx'],
    );
}

/** Refuses a key of `value` that `known` lacks but one of them is a slip away from. */
function checkKeys(value: object, known: readonly string[], root: string): void {
  const [misspelt] = misspeltKeys(value, known);
  if (misspelt)
    throw new InvalidInputError(`${root}.${misspelt.key}: unknown key; did you mean "${misspelt.meant}"?`, [
      root,
      misspelt.key,
    ]);
}

/**
 * What a provider reported for one whole request, used to learn estimate corrections.
 * Give the request's `messages` (and `system`/`tools`), or its per-class character counts.
 */
export interface LearnInput {
  provider: string;
  model: string;
  /** Input tokens the provider reported for the whole request. */
  actualTokens: number;
  messages?: readonly Message[];
  system?: string;
  tools?: readonly unknown[];
  /** Character counts per content class, when messages are not available. */
  charsByClass?: Partial<Record<ContentClass, number>>;
}

/**
 * Counts tokens. `estimate*` is sync and never throws on odd input; `measure*` may be exact.
 * Implement this to plug in another tokenizer; `@ctxguard/token-counter/testing` checks it.
 */
export interface TokenCounter {
  readonly specificationVersion: 'v1';
  /** Fast estimate of a text's tokens. */
  estimate(text: string, ctx: CountContext): number;
  /** Fast estimate of a message's tokens, framing included. */
  estimateMessage(message: Message, ctx: CountContext): number;
  /** Count of a text, exact when asked and possible. */
  measure(text: string, ctx: CountContext, options?: MeasureOptions): Promise<TokenCount>;
  /** Count of a message, framing included, exact when asked and possible. */
  measureMessage(message: Message, ctx: CountContext, options?: MeasureOptions): Promise<TokenCount>;
  /** Learns from a provider-reported count; a no-op for exact counters. */
  learn(input: LearnInput): Promise<void>;
  /** Frees encoders and caches. */
  dispose?(): void;
  /**
   * Bumped whenever the same input may count differently (after `learn()`, when an exact engine
   * finishes loading…); memos key on it. Counters whose answers never change may omit it.
   */
  readonly revision?: number;
  /**
   * The revision of one model's counts: changes only when that model's answers may change, so a
   * memo of one model survives learning about another. Counters without it are keyed on `revision`.
   */
  revisionFor?(ctx: CountContext): number;
  /** Fast estimate of a whole request (framing, tools, reply priming); memoised per message where supported. */
  estimateConversation?(input: ConversationInput, ctx: CountContext): number;
  /** Count of a whole request, memoised per message where supported. */
  measureConversation?(
    input: ConversationInput,
    ctx: CountContext,
    options?: MeasureOptions,
  ): Promise<ConversationCount>;
}

/** A whole request as sent to the model. */
export interface ConversationInput {
  messages: readonly Message[];
  /** A system prompt given apart from the messages (counted as one system message). */
  system?: string;
  /** Tool definitions (OpenAI, Anthropic or AI SDK shape). */
  tools?: readonly unknown[];
}

/** Tokens of a whole request, with each message's share. */
export interface ConversationCount extends TokenCount {
  /** Tokens of each message of `input.messages`, framing included, in order. */
  messages: number[];
  /** Tokens of the separate system prompt, tool definitions and reply priming. */
  system: number;
  tools: number;
  overhead: number;
}

/** The revision a memo of `ctx`'s counts keys on: the counter's per-model `revisionFor`, else its `revision`. */
export function revisionOf(
  counter: Pick<TokenCounter, 'revision' | 'revisionFor'>,
  ctx: CountContext,
): number {
  return typeof counter.revisionFor === 'function' ? counter.revisionFor(ctx) : (counter.revision ?? 0);
}

const tokenCounterMethods = ['estimate', 'estimateMessage', 'measure', 'measureMessage', 'learn'] as const;

/** Whether `value` is a {@link TokenCounter}: the five methods of the contract (for option checks). */
export function isTokenCounter(value: unknown): value is TokenCounter {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return tokenCounterMethods.every((method) => typeof record[method] === 'function');
}
