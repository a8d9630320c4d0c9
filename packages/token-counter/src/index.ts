export { estimateConversation, measureConversation, measureTools, systemMessage } from './conversation.js';
export type { CountApi, CountApiCounterOptions } from './count-api-counter.js';
export {
  ANTHROPIC_VERSION,
  CountApiCounter,
  CountApiError,
  countApiCounterOptionsSchema,
  DEFAULT_COUNT_API_BASE_URLS,
  defaultCountApi,
} from './count-api-counter.js';
export type { ToolDefinition } from './count-api-requests.js';
export {
  anthropicCountBody,
  geminiContents,
  geminiCountBody,
  geminiModelPath,
  normalizeTool,
} from './count-api-requests.js';
export { EncoderPool, sharedEncoderPool } from './encoder-pool.js';
export type { EngineKind, ExactEncoding, ExactEngine } from './exact-engine.js';
export { ENGINE_KINDS, EXACT_ENCODINGS, exactEncodingSchema } from './exact-engine.js';
export type { ClassTally, HeuristicCalibrationState, HeuristicCounterOptions } from './heuristic-counter.js';
export { HeuristicCounter, heuristicCounterOptionsSchema } from './heuristic-counter.js';
export type { CounterRoute, HybridTokenCounterOptions } from './hybrid-counter.js';
export { HybridTokenCounter, hybridTokenCounterOptionsSchema } from './hybrid-counter.js';
export type { MemoizedCounterOptions } from './memoized-counter.js';
export { MemoizedCounter, memoizedCounterOptionsSchema } from './memoized-counter.js';
export type { MediaFamily, MessageCostOptions, TextCounter } from './message-cost.js';
export {
  AUDIO_TOKENS_PER_SECOND,
  anthropicImageTokens,
  conversationOverhead,
  DEFAULT_FILE_TOKENS,
  DEFAULT_IMAGE_SIZE,
  fileTokens,
  GEMINI_PDF_PAGE_TOKENS,
  geminiImageTokens,
  imageSize,
  imageTokens,
  jsonText,
  mediaFamily,
  messageTokens,
  openAiImageTokens,
  PDF_BYTES_PER_PAGE,
  PDF_PAGE_TOKENS,
  partTokens,
  REPLY_PRIMING_TOKENS,
  TOKENS_PER_MESSAGE,
  TOKENS_PER_NAME,
  TOKENS_PER_TOOL_CALL,
  toolCallTokens,
  toolDefinitionsTokens,
  VIDEO_TOKENS_PER_SECOND,
} from './message-cost.js';
export type { MemoSlot, MessageMemoOptions } from './message-memo.js';
export { MessageMemo } from './message-memo.js';
export { splitPieces } from './pretokenizer.js';
export type { ProviderMultiplier } from './provider-multipliers.js';
export { PROVIDER_MULTIPLIERS, providerMultiplier } from './provider-multipliers.js';
export { longestRun, roughEstimate } from './rough-estimate.js';
export type { EngineFactory, TiktokenCounterOptions } from './tiktoken-counter.js';
export { encodingForModel, TiktokenCounter, tiktokenCounterOptionsSchema } from './tiktoken-counter.js';
export type {
  Accuracy,
  ConversationCount,
  ConversationInput,
  CountContext,
  LearnInput,
  MeasureOptions,
  TokenCount,
  TokenCounter,
} from './token-counter.js';
export { countContextSchema } from './token-counter.js';
