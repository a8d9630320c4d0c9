export type { DeclinedSizes } from './context-declined-error.js';
export { ContextDeclinedError } from './context-declined-error.js';
export type { CreateContextGuardOptions } from './context-guard-options.js';
export { conversationIdSchema, createContextGuardOptionsSchema } from './context-guard-options.js';
export { ConversationGuard, createContextGuard } from './conversation-guard.js';
export type {
  CompactionSummary,
  ContextAction,
  ConversationStats,
  PrepareInput,
  PrepareResult,
  RecordCompletionInput,
  RecoverOverflowInput,
  RewindResult,
  StoredMeasurement,
} from './facade-types.js';
export type { AnthropicUsage, OpenAIChatUsage, OpenAIResponsesUsage } from './provider-shapes.js';
