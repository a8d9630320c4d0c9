export type { CtxGuardErrorCode } from './errors.js';
export {
  ConversionError,
  CtxGuardError,
  describeZodIssues,
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
export { historyEntrySchema } from './history.js';
export type {
  CompactionEvent,
  CompletionEvent,
  ContextMeasureEvent,
  HookBusOptions,
  MessageResolveEvent,
  WarningEvent,
} from './hooks.js';
export { HookBus } from './hooks.js';
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
export { isToolCallPart, isToolResultPart, toolCallsOf, toolResultsOf } from './message-readers.js';
export type {
  Cancellable,
  ContextStrategy,
  ContextTools,
  ExtractedFact,
  ExtractFactsRequest,
  FactCategory,
  FactInjectionSite,
  HistorySegments,
  ReactContext,
  RewriteResult,
  StrategyDecision,
  StrategyToolOptions,
  StrategyToolResult,
  StrategyTools,
  SummarizeRequest,
  TriggerLevel,
} from './strategy.js';
export { factCategories, wellFormedFacts } from './strategy.js';
export { withSystemPrompt } from './system-prompt.js';
