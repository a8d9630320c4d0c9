// The ctxguard meta-package: one install, and the names an app calls, flat. Everything else
// stays in its own package (`@ctxguard/compactor`, `@ctxguard/token-counter`, …), which an app
// that needs more adds itself.

export { countTokens, loadEncoder } from '@ctxguard/bpe';
export type { CacheOptions } from '@ctxguard/cache';
export { Cache, PersistenceCacheStore, requestCacheKey } from '@ctxguard/cache';
export type { CalibrationStore } from '@ctxguard/calibration';
export { PersistenceCalibrationStore } from '@ctxguard/calibration';

// One-shot compaction, overflow errors, offline context tools.
export type {
  CompactionResult,
  CompactMessagesOptions,
  OfflineContextToolsOptions,
} from '@ctxguard/compactor';
export {
  compactMessages,
  contextToolsFromFunctions,
  createOfflineContextTools,
  isContextOverflowError,
  redactSecrets,
} from '@ctxguard/compactor';
// Messages, contracts and errors.
export type {
  AssistantMessage,
  CompactionEvent,
  ContentPart,
  ContextMeasureEvent,
  ContextStrategy,
  ContextTools,
  ConversationHistory,
  ExtractedFact,
  ExtractFactsRequest,
  FactCategory,
  FilePart,
  HistoryEntry,
  ImagePart,
  Message,
  MessageInput,
  ReactContext,
  ReasoningPart,
  StrategyDecision,
  StrategyTools,
  SummarizeRequest,
  SystemMessage,
  TextPart,
  ToolCallPart,
  ToolMessage,
  ToolResultPart,
  TriggerLevel,
  Usage,
  UserMessage,
  WarningEvent,
} from '@ctxguard/core';
export {
  ConversionError,
  CtxGuardError,
  describeZodIssues,
  factCategories,
  HookBus,
  InvalidInputError,
  InvalidOptionsError,
  messageSchema,
  messagesSchema,
} from '@ctxguard/core';
export { UnknownCompactionError } from '@ctxguard/effective-history';
// The facade: one stateful guard per app.
export * from '@ctxguard/facade';
// Converters between provider message shapes and ctxguard's.
export type {
  AISDKModelMessage,
  AnthropicBetaPrompt,
  AnthropicMessageParam,
  AnthropicPrompt,
  OpenAIChatMessage,
  OpenAIResponsesItem,
} from '@ctxguard/formats';
export {
  fromAISDK,
  fromAnthropic,
  fromOpenAIChat,
  fromOpenAIResponses,
  toAISDK,
  toAnthropic,
  toOpenAIChat,
  toOpenAIResponses,
} from '@ctxguard/formats';
export type { ContextMeasurement } from '@ctxguard/measurer';
export { ContextMeasurer } from '@ctxguard/measurer';
export type { ModelInfo } from '@ctxguard/models';
export { ModelCatalog } from '@ctxguard/models';
// Stores.
export type { FilePersistenceOptions, Persistence } from '@ctxguard/persistence';
export { FilePersistence, MemoryPersistence } from '@ctxguard/persistence';
export type { RedisPersistenceOptions } from '@ctxguard/persistence-redis';
export { RedisPersistence } from '@ctxguard/persistence-redis';
// Strategies.
export type {
  CacheFriendlyStrategyOptions,
  EngineStrategyOptions,
  LayeredStrategyOptions,
  LayoutStrategyOptions,
  PipelineStrategyOptions,
  RecompactStrategyOptions,
  RelevanceStrategyOptions,
  TruncateStrategyOptions,
} from '@ctxguard/strategies';
export {
  CacheFriendlyStrategy,
  EngineStrategy,
  LayeredStrategy,
  LayoutStrategy,
  PipelineStrategy,
  RecompactStrategy,
  RelevanceStrategy,
  TruncateStrategy,
} from '@ctxguard/strategies';
// Counting and measuring.
export type { CountContext, MeasureOptions, TokenCount, TokenCounter } from '@ctxguard/token-counter';
export {
  ExactTokenCounter,
  HeuristicCounter,
  HybridTokenCounter,
  MemoizedCounter,
  measureConversation,
} from '@ctxguard/token-counter';
