export {
  CtxGuardError,
  formatPath,
  InvalidInputError,
  InvalidOptionsError,
  parseInput,
  parseOptions,
} from './errors.js';
export type { CtxGuardErrorCode } from './errors.js';
export { historyEntrySchema } from './history.js';
export type { CompactionRecord, ConversationHistory, HistoryEntry, HistoryMetadata } from './history.js';
export { HookBus } from './hooks.js';
export type {
  CompactionEvent,
  CompletionEvent,
  ContextMeasureEvent,
  HookEvents,
  HookListener,
  HookName,
  ListenerErrorHandler,
  MessageResolveEvent,
  WarningEvent,
} from './hooks.js';
export {
  assistantMessageSchema,
  contentPartSchema,
  contentParts,
  filePartSchema,
  imagePartSchema,
  jsonValueSchema,
  messageSchema,
  messagesSchema,
  messageText,
  parseMessage,
  parseMessages,
  reasoningPartSchema,
  systemMessageSchema,
  textPartSchema,
  toolCallPartSchema,
  toolMessageSchema,
  toolResultPartSchema,
  usageSchema,
  userMessageSchema,
} from './message.js';
export type {
  AssistantMessage,
  ContentPart,
  FilePart,
  ImagePart,
  JsonValue,
  Message,
  MessageInput,
  MessageRole,
  ReasoningPart,
  SystemMessage,
  TextPart,
  ToolCallPart,
  ToolMessage,
  ToolResultPart,
  Usage,
  UserMessage,
} from './message.js';
export type {
  ContextStrategy,
  ContextTools,
  ExtractedFact,
  FactCategory,
  FactInjectionSite,
  HistorySegments,
  ReactContext,
  StrategyDecision,
  StrategyTools,
  TriggerLevel,
} from './strategy.js';
