// The ctxguard meta-package. Every package's public names are re-exported flat (the few names
// two packages share are one and the same binding), and each package is also re-exported as a
// namespace named after it, so `compactor.compactMessages` reads as where it comes from. Then the
// facade: createContextGuard and what it returns.

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
export { createContextGuardOptionsSchema } from './context-guard-options.js';
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
