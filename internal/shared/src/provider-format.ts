import { isRecord } from './message-readers.js';

/** Where the converters a hint names come from, for an app that installed one package. */
const CONVERTERS_FROM = '; `ctxguard` and `@ctxguard/formats` export the converters';

/** What to use instead, per provider's own message format: said when such messages are given where ctxguard's are expected. */
const CONVERTER_HINTS = {
  openai: `OpenAI Chat Completions messages: convert them with \`fromOpenAIChat(messages)\` and send \`toOpenAIChat(result.messages)\`${CONVERTERS_FROM}`,
  anthropic: `Anthropic Messages API messages: convert them with \`fromAnthropic({ system, messages })\` and send \`toAnthropic(result.messages)\`${CONVERTERS_FROM}`,
  aisdk: `AI SDK messages: convert them with \`fromAISDK(messages)\` and send \`toAISDK(result.messages)\`${CONVERTERS_FROM}`,
  aisdk4:
    'AI SDK 4 messages: since AI SDK 5 a tool call carries `input` (was `args`) and a tool result `output` (was `result`)',
  uimessage: `AI SDK UI messages (\`parts\`, as \`useChat\` sends them): convert them with \`convertToModelMessages\` from \`ai\`, then \`fromAISDK\`${CONVERTERS_FROM}`,
  'openai-responses': `OpenAI Responses API input items: convert them with \`fromOpenAIResponses(input)\` and send \`toOpenAIResponses(result.messages)\`${CONVERTERS_FROM}`,
  gemini:
    "Google Gemini contents (`role: 'model'`, `parts` without a `type`): ctxguard has no Gemini converter; with the AI SDK (`@ai-sdk/google`), `@ctxguard/ai-sdk` guards Gemini models",
} as const;

/** Provider options that mark a prompt-cache breakpoint (Anthropic's and OpenRouter's, Bedrock's). */
export const CACHE_MARKER_KEYS: ReadonlySet<string> = new Set([
  'cacheControl',
  'cache_control',
  'cachePoint',
]);

/** Adds the cache breakpoints `options` (a message's or part's provider options) holds to `into`, by provider. */
export function addCacheMarkers(into: Record<string, Record<string, unknown>>, options: unknown): void {
  for (const [provider, values] of Object.entries(isRecord(options) ? options : {}))
    if (isRecord(values))
      for (const [key, value] of Object.entries(values))
        if (CACHE_MARKER_KEYS.has(key)) into[provider] = { ...into[provider], [key]: value };
}

/** Fields of OpenAI's messages the message model has no place for: validation would drop them. */
export const OPENAI_ONLY_FIELDS = ['tool_calls', 'tool_call_id', 'function_call'] as const;

const OPENAI_PART_TYPES = new Set(['image_url', 'input_audio', 'refusal']);
const ANTHROPIC_PART_TYPES = new Set([
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'document',
]);

const RESPONSES_PART_TYPES = new Set(['input_text', 'output_text', 'input_image', 'input_file']);
const RESPONSES_ITEM_TYPES = new Set([
  'function_call',
  'function_call_output',
  'reasoning',
  'item_reference',
]);

const AI_SDK_OUTPUT_TYPES = new Set(['text', 'json', 'error-text', 'error-json', 'content']);

/** A tool result's output in the AI SDK's shape (`{ type: 'text', value }` and the like). */
export function isAISDKOutput(output: unknown): boolean {
  return isRecord(output) && 'value' in output && AI_SDK_OUTPUT_TYPES.has(output['type'] as string);
}

/**
 * Provider-options key under which ctxguard's converters keep what core has no field for (the AI
 * SDK converters: an image file's name, how a tool output was sent, its own provider options).
 * Other formats ignore it, as they ignore every unknown provider.
 */
export const CTXGUARD_PROVIDER = 'ctxguard';

/**
 * The mark (under {@link CTXGUARD_PROVIDER}) on a tool result whose output is the tool's own value
 * though it has the shape of an AI SDK output (`{ type: 'json', value }`): `fromAISDK` sets it, an
 * app that builds such a result by hand sets it, and `prepare` then takes the output as it is.
 */
export const OWN_OUTPUT_MARK = 'ownOutput';

/**
 * Whether the tool-result `part` holds an AI SDK tool output as the AI SDK sends it: given without
 * `fromAISDK`, which unwraps outputs (and marks a tool's own value of that shape, {@link OWN_OUTPUT_MARK}).
 */
export function isUnconvertedAISDKOutput(part: unknown): boolean {
  if (!isRecord(part) || part['type'] !== 'tool-result' || !isAISDKOutput(part['output'])) return false;
  const options = part['providerOptions'];
  const ours = isRecord(options) ? options[CTXGUARD_PROVIDER] : undefined;
  return !(isRecord(ours) && ours[OWN_OUTPUT_MARK] === true);
}

/** An image or file part whose data is a `URL` or bytes, as the AI SDK takes them (ctxguard's are strings). */
function holdsAISDKData(part: Record<string, unknown>): boolean {
  const data = part['type'] === 'image' ? part['image'] : part['type'] === 'file' ? part['data'] : undefined;
  return data instanceof URL || data instanceof ArrayBuffer || ArrayBuffer.isView(data);
}

/** A tool part as AI SDK 4 wrote it: `args` for `input`, `result` for `output`. */
function isAISDK4Part(part: Record<string, unknown>): boolean {
  if (part['type'] === 'tool-call') return 'args' in part && !('input' in part);
  return part['type'] === 'tool-result' && 'result' in part && !('output' in part);
}

/** Gemini's `Content`: role `model` for the assistant, parts without a `type` (`{ text }`, `{ functionCall }`). */
function isGeminiContent(message: Record<string, unknown>, parts: unknown[]): boolean {
  return message['role'] === 'model' || parts.some((part) => isRecord(part) && !('type' in part));
}

/** Which provider's own message format `message` is in, when it is recognisably one. */
export function providerFormatOf(message: unknown): ProviderFormat | undefined {
  if (!isRecord(message)) return undefined;
  if (Array.isArray(message['parts']) && !('content' in message))
    return isGeminiContent(message, message['parts']) ? 'gemini' : 'uimessage';
  if (RESPONSES_ITEM_TYPES.has(message['type'] as string)) return 'openai-responses';
  if (OPENAI_ONLY_FIELDS.some((field) => field in message)) return 'openai';
  const parts = Array.isArray(message['content']) ? message['content'] : [];
  for (const part of parts) {
    if (!isRecord(part) || typeof part['type'] !== 'string') continue;
    if (OPENAI_PART_TYPES.has(part['type'])) return 'openai';
    if (RESPONSES_PART_TYPES.has(part['type'])) return 'openai-responses';
    if (ANTHROPIC_PART_TYPES.has(part['type']) || (part['type'] === 'image' && 'source' in part))
      return 'anthropic';
    if (isUnconvertedAISDKOutput(part) || holdsAISDKData(part)) return 'aisdk';
    if (isAISDK4Part(part)) return 'aisdk4';
  }
  if (message['content'] === null || message['role'] === 'developer') return 'openai';
  return undefined;
}

/** A message with a field or part only Chat Completions has (`tool_calls`, `image_url`, …). */
function hasChatOnlyFields(message: unknown): boolean {
  if (!isRecord(message)) return false;
  if (OPENAI_ONLY_FIELDS.some((field) => field in message)) return true;
  const parts = Array.isArray(message['content']) ? message['content'] : [];
  // A refusal part is Chat's, but Responses messages hold one too.
  return parts.some(
    (part) => isRecord(part) && part['type'] !== 'refusal' && OPENAI_PART_TYPES.has(part['type'] as string),
  );
}

/** The sentence an error adds for messages in `format`: which converter (or fields) to use. */
export function converterHint(format: ProviderFormat): string {
  return `These look like ${CONVERTER_HINTS[format]}.`;
}

/** A provider's own message format {@link providerFormatOf} recognises. */
export type ProviderFormat = keyof typeof CONVERTER_HINTS;

/**
 * The provider format other than `own` the first recognisable of `messages` is in; the Responses
 * API when any item is its own (its input opens with a `developer` message as Chat Completions may).
 */
export function foreignFormatOf(messages: unknown, own?: string): ProviderFormat | undefined {
  if (!Array.isArray(messages)) return undefined;
  let first: ProviderFormat | undefined;
  for (const message of messages) {
    const format = providerFormatOf(message);
    if (format === undefined || format === own) continue;
    // Responses input takes `developer` messages and refusals too: only Chat's own fields tell Chat apart.
    if (own === 'openai-responses' && format === 'openai' && !hasChatOnlyFields(message)) continue;
    if (format === 'openai-responses') return format;
    first ??= format;
  }
  return first;
}
