export { pushAll } from './arrays.js';
export { describeThrown, describeValue } from './describe-value.js';
export type { CtxGuardErrorCode } from './errors.js';
export {
  ConversionError,
  CtxGuardError,
  describeZodIssues,
  formatPath,
  InvalidInputError,
  InvalidOptionsError,
  parseInput,
  parseOptions,
} from './errors.js';
export type {
  CompactionRecord,
  ConversationHistory,
  HistoryEntry,
  HistoryMetadata,
  PersistableHistory,
} from './history.js';
export { historyEntrySchema, isOriginalEntry } from './history.js';
export type {
  CompactionEvent,
  CompletionEvent,
  ContextMeasureEvent,
  HookBusOptions,
  MessageResolveEvent,
  WarningEvent,
} from './hooks.js';
export { HookBus, hookNames, isHookBus } from './hooks.js';
export type { JsonCheckOptions, JsonValueIssue } from './json-value.js';
export { copyJsonValue, findJsonValueIssue } from './json-value.js';
export type {
  AssistantMessage,
  ContentPart,
  FilePart,
  ImagePart,
  JsonValue,
  Message,
  MessageInput,
  OpaquePart,
  ProviderOptions,
  ReasoningPart,
  SystemMessage,
  TextPart,
  ToolCallPart,
  ToolMessage,
  ToolResultContentPart,
  ToolResultPart,
  Usage,
  UserMessage,
} from './message.js';
export {
  contentParts,
  jsonValueSchema,
  messageSchema,
  messagesSchema,
  messageText,
  parseMessage,
  parseMessages,
  providerOptionsSchema,
  usageSchema,
} from './message.js';
export {
  isRecord,
  isToolCallPart,
  isToolResultPart,
  partsOf,
  roleOf,
  toolCallsOf,
  toolResultsOf,
} from './message-readers.js';
export type { MessageSnapshot } from './message-snapshot.js';
export { matchesSnapshot, takeMessageSnapshot } from './message-snapshot.js';
export { COMPACTION_KIND, isCompactionPart, newestCompactionIndex } from './provider-compaction.js';
export { randomUuid } from './random-uuid.js';
export type {
  Cancellable,
  CompactMessagesRewriteOptions,
  CompactMessagesRewriteResult,
  ContextStrategy,
  ContextTools,
  DeduplicateFileReadsOptions,
  DeduplicateFileReadsResult,
  ExtractedFact,
  ExtractFactsRequest,
  FactCategory,
  FactInjectionSite,
  HistorySegments,
  LightTrimRewriteOptions,
  LightTrimRewriteResult,
  MicrocompactToolResultsOptions,
  MicrocompactToolResultsResult,
  PruneToolOutputsOptions,
  PruneToolOutputsResult,
  ReactContext,
  RewriteResult,
  SlideWindowOptions,
  SlideWindowResult,
  StrategyDecision,
  StrategyTools,
  SummarizeRangeOptions,
  SummarizeRangeResult,
  SummarizeRequest,
  TriggerLevel,
} from './strategy.js';
export {
  abortReason,
  abortSignalSchema,
  containsWhole,
  factCategories,
  isContextStrategy,
  isContextTools,
  throwIfAborted,
  wellFormedFacts,
} from './strategy.js';
export { withSystemPrompt } from './system-prompt.js';
