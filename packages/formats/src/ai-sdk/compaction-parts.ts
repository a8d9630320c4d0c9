import type { JsonValue, OpaquePart, ProviderOptions } from '@ctxguard/core';
import { COMPACTION_KIND } from '@ctxguard/shared';
import type { LossReporter } from '../shared.js';
import type { AISDKProviderOptions, AISDKTextPart } from './wire-types.js';

/** The fields of an Anthropic compaction block the AI SDK's text part carries. */
const CARRIED = new Set(['type', 'content', 'cache_control']);

/** True for the text part the AI SDK uses for an Anthropic compaction block. */
export function isAnthropicCompactionText(part: { providerOptions?: ProviderOptions | undefined }): boolean {
  return part.providerOptions?.['anthropic']?.['type'] === COMPACTION_KIND;
}

/**
 * The opaque part of an AI SDK Anthropic compaction text part: an empty text is the API's failed
 * compaction (`content: null`); `providerOptions` are kept without the marker `anthropic.type`.
 */
export function anthropicCompactionFromAISDK(
  part: AISDKTextPart | { text: string; providerOptions?: ProviderOptions | undefined },
): OpaquePart {
  const out: OpaquePart = {
    type: 'opaque',
    provider: 'anthropic',
    kind: COMPACTION_KIND,
    data: { type: COMPACTION_KIND, content: part.text === '' ? null : part.text },
  };
  const { type: _marker, ...anthropic } = part.providerOptions?.['anthropic'] ?? {};
  const rest: ProviderOptions = { ...part.providerOptions };
  delete rest['anthropic'];
  if (Object.keys(anthropic).length > 0) rest['anthropic'] = anthropic;
  if (Object.keys(rest).length > 0) out.providerOptions = rest;
  return out;
}

/**
 * The AI SDK text part for an Anthropic opaque part (`providerOptions.anthropic.type:
 * 'compaction'`, which the AI SDK's Anthropic provider sends back as the block). Fields a text part
 * cannot carry (`encrypted_content`, `signature`, …) are reported to `onLoss`.
 */
export function anthropicCompactionToAISDK(
  part: OpaquePart,
  path: (string | number)[],
  losses: LossReporter,
): AISDKTextPart {
  const { data } = part;
  const lost = Object.keys(data).filter((key) => !CARRIED.has(key));
  if (lost.length > 0) {
    losses.report(
      path,
      'provider-item',
      `AI SDK text parts cannot carry the compaction block's ${lost.join(', ')}; dropped`,
    );
  }
  const anthropic: { [key: string]: JsonValue } = { type: COMPACTION_KIND };
  const cache = data['cache_control'];
  if (cache !== null && cache !== undefined) anthropic['cacheControl'] = cache;
  Object.assign(anthropic, part.providerOptions?.['anthropic']);
  const options: AISDKProviderOptions = { ...part.providerOptions, anthropic };
  const content = data['content'];
  return { type: 'text', text: typeof content === 'string' ? content : '', providerOptions: options };
}

/** `kind` of the AI SDK 6 custom part that carries an OpenAI Responses compaction item. */
export const OPENAI_COMPACTION_KIND = 'openai.compaction';

/**
 * The opaque part of an AI SDK 6 `openai.compaction` custom part: its `providerOptions.openai`
 * `itemId` and `encryptedContent` become the Responses item `{ type, id, encrypted_content }`.
 */
export function openAICompactionFromAISDK(part: {
  providerOptions?: ProviderOptions | undefined;
}): OpaquePart | undefined {
  const openai = part.providerOptions?.['openai'];
  const encrypted = openai?.['encryptedContent'];
  if (typeof encrypted !== 'string') return undefined;
  const data: { [key: string]: JsonValue } = { type: COMPACTION_KIND };
  const id = openai?.['itemId'];
  if (typeof id === 'string') data['id'] = id;
  data['encrypted_content'] = encrypted;
  const out: OpaquePart = { type: 'opaque', provider: 'openai', kind: COMPACTION_KIND, data };
  const { type: _t, itemId: _i, encryptedContent: _e, ...rest } = openai ?? {};
  const options: ProviderOptions = { ...part.providerOptions };
  delete options['openai'];
  if (Object.keys(rest).length > 0) options['openai'] = rest;
  if (Object.keys(options).length > 0) out.providerOptions = options;
  return out;
}
