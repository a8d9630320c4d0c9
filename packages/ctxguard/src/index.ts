// The ctxguard meta-package. Every package is re-exported as a namespace named after it
// (`compactor.compactMessages`), and its public names flat. Names two packages export as one
// binding are simply flat. Where two packages export different things under one name, the flat
// name is given explicitly to one of them below and the other stays reachable through its
// namespace. Then the facade: createContextGuard and what it returns.

export * as bpe from '@ctxguard/bpe';
export * from '@ctxguard/bpe';
export * as cache from '@ctxguard/cache';
export * from '@ctxguard/cache';
export * as calibration from '@ctxguard/calibration';
export * from '@ctxguard/calibration';
export * as compactor from '@ctxguard/compactor';
export * from '@ctxguard/compactor';
export * as core from '@ctxguard/core';
export * from '@ctxguard/core';
export * as effectiveHistory from '@ctxguard/effective-history';
export * from '@ctxguard/effective-history';
export * as formats from '@ctxguard/formats';
export * from '@ctxguard/formats';
export * as guard from '@ctxguard/guard';
export * from '@ctxguard/guard';
export * as measurer from '@ctxguard/measurer';
export * from '@ctxguard/measurer';
export * as models from '@ctxguard/models';
export * from '@ctxguard/models';
export * as persistence from '@ctxguard/persistence';
export * from '@ctxguard/persistence';
export * as persistenceRedis from '@ctxguard/persistence-redis';
export * from '@ctxguard/persistence-redis';
export * as strategies from '@ctxguard/strategies';
export * from '@ctxguard/strategies';
export * as tokenCounter from '@ctxguard/token-counter';
export * from '@ctxguard/token-counter';

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
export type { AnthropicUsage, OpenAIChatUsage } from './provider-shapes.js';
