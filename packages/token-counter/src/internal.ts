/**
 * Helpers shared between ctxguard packages (schemas to compose options, the encoder pool, the
 * per-message memo, message-pricing constants, count-API request bodies). Not public API: anything
 * here may change or go away in any release without notice. Import from `@ctxguard/token-counter`.
 */
export { addedSystemMessage, measureTools, sumEstimates } from './conversation.js';
export {
  ANTHROPIC_VERSION,
  countApiCounterOptionsSchema,
  DEFAULT_COUNT_API_BASE_URLS,
  defaultCountApi,
} from './count-api-counter.js';
export type { CountRequest, ToolDefinition } from './count-api-requests.js';
export {
  anthropicCountBody,
  geminiContents,
  geminiCountBody,
  geminiModelPath,
  normalizeTool,
} from './count-api-requests.js';
export { MemoryCountCache, requestKey } from './count-cache.js';
export { EncoderPool, sharedEncoderPool } from './encoder-pool.js';
export { ENGINE_KINDS, exactEncodingSchema } from './exact-engine.js';
export { exactTokenCounterOptionsSchema } from './exact-token-counter.js';
export { heuristicCounterOptionsSchema, weighParts } from './heuristic-counter.js';
export { hybridTokenCounterOptionsSchema } from './hybrid-counter.js';
export { memoizedCounterOptionsSchema } from './memoized-counter.js';
export type { MediaFamily } from './message-cost.js';
export {
  AUDIO_TOKENS_PER_SECOND,
  anthropicImageTokens,
  DEFAULT_FILE_TOKENS,
  DEFAULT_IMAGE_SIZE,
  GEMINI_PDF_PAGE_TOKENS,
  geminiImageTokens,
  imageSize,
  jsonText,
  mediaFamily,
  openAiImageTokens,
  PDF_BYTES_PER_PAGE,
  PDF_PAGE_TOKENS,
  partTokens,
  REPLY_PRIMING_TOKENS,
  TOKENS_PER_MESSAGE,
  TOKENS_PER_NAME,
  TOKENS_PER_TOOL_CALL,
  toolCallTokens,
  VIDEO_TOKENS_PER_SECOND,
} from './message-cost.js';
export type { MemoSlot, MessageMemoOptions } from './message-memo.js';
export { MessageMemo } from './message-memo.js';
export type { MessageSnapshot } from './message-snapshot.js';
export { matchesSnapshot, takeMessageSnapshot } from './message-snapshot.js';
export type { ProviderMultiplier } from './provider-multipliers.js';
export { PROVIDER_MULTIPLIERS, providerMultiplier } from './provider-multipliers.js';
export { longestRun, roughEstimate } from './rough-estimate.js';
export { countContextSchema } from './token-counter.js';
