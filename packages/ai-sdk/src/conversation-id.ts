import type { LanguageModelV3CallOptions, SharedV3ProviderOptions } from '@ai-sdk/provider';
import { describeZodIssues, InvalidInputError } from '@ctxguard/core';
import { conversationIdSchema } from '@ctxguard/facade';
import { describeValue, isRecord } from '@ctxguard/shared';
import type { AISdk7CallParams } from './middleware-v4.js';

/**
 * Picks the conversation id of a call from the option function or `providerOptions.ctxguard`:
 * a function of AI SDK 6's call options, or with `'v4'` of AI SDK 7's (`LanguageModelV4CallOptions`).
 */
export type ConversationIdResolver<Version extends 'v3' | 'v4' = 'v3'> = Version extends 'v4'
  ? // declared as a method so that a function of the full `LanguageModelV4CallOptions` fits too
    { resolve(params: AISdk7CallParams): string | undefined }['resolve']
  : (params: LanguageModelV3CallOptions) => string | undefined;

/** The call's conversation id; throws `InvalidInputError` naming the field when there is none. */
export function conversationIdOf(
  params: LanguageModelV3CallOptions,
  resolve: ConversationIdResolver | undefined,
): string {
  const fromOptions = params.providerOptions?.['ctxguard']?.['conversationId'];
  const resolved = resolve?.(params);
  const path = ['providerOptions', 'ctxguard', 'conversationId'];
  if (resolved !== undefined && resolved !== null && typeof resolved !== 'string')
    throw new InvalidInputError(
      `the conversationId option returned ${describeValue(resolved)}: it must return the id, a string, at once (not a Promise), or undefined to use providerOptions.ctxguard.conversationId`,
      path,
    );
  const id = resolved ?? fromOptions;
  refuseOtherKeys(params, typeof id === 'string' && id.length > 0);
  if (typeof id !== 'string' || id.length === 0)
    throw new InvalidInputError(
      'providerOptions.ctxguard.conversationId: every guarded call needs a conversation id (a non-empty string), ' +
        `set there or returned by the conversationId option${resolve === undefined && fromOptions === undefined ? otherKeysOf(params) : ''}`,
      path,
    );
  const checked = conversationIdSchema.safeParse(id);
  if (checked.success) return id;
  const why = describeZodIssues(checked.error)
    .map((issue) => issue.message)
    .join('; ');
  const where =
    resolved === undefined
      ? 'providerOptions.ctxguard.conversationId'
      : 'the id the conversationId option returned';
  throw new InvalidInputError(`${where}: ${why}`, path);
}

/**
 * `providerOptions.ctxguard` holds the conversation id only: anything else there (a misspelt key, a
 * middleware option such as `contextLimit` given per call) would otherwise be ignored without a word.
 * Without an id, the missing-id error names them instead.
 */
function refuseOtherKeys(params: LanguageModelV3CallOptions, hasId: boolean): void {
  const [other] = otherKeys(params);
  if (!hasId || other === undefined) return;
  throw new InvalidInputError(
    `providerOptions.ctxguard.${other}: not a per-call option; providerOptions.ctxguard takes only conversationId (set other options on ctxguardMiddleware)`,
    ['providerOptions', 'ctxguard', other],
  );
}

/** What else `providerOptions.ctxguard` holds, said when it holds no conversation id (a misspelled key). */
function otherKeysOf(params: LanguageModelV3CallOptions): string {
  const others = otherKeys(params);
  if (others.length === 0) return '';
  return ` (providerOptions.ctxguard holds ${others.map((key) => JSON.stringify(key)).join(', ')}; the key is "conversationId")`;
}

/** The keys of `providerOptions.ctxguard` other than `conversationId` that hold a value (a spread may leave `undefined`s). */
function otherKeys(params: LanguageModelV3CallOptions): string[] {
  const own: unknown = params.providerOptions?.['ctxguard'];
  if (!isRecord(own)) return [];
  return Object.keys(own).filter((key) => key !== 'conversationId' && own[key] !== undefined);
}

/** The call's provider options without ctxguard's own entry (providers never see it). */
export function withoutCtxguardOptions(
  options: SharedV3ProviderOptions | undefined,
): SharedV3ProviderOptions | undefined {
  if (options === undefined || !('ctxguard' in options)) return options;
  const { ctxguard: _own, ...rest } = options;
  return Object.keys(rest).length === 0 ? undefined : rest;
}
