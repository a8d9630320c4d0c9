// Public API of @ctxguard/guard: explicit named re-exports, one block per concept file.

export type {
  ContextGuardOptions,
  FitOutcome,
  FitRequest,
  GuardMeasurement,
  GuardMeasureRequest,
  GuardMeasurer,
  UnknownStrategyPolicy,
} from './context-guard.js';
export {
  ContextGuard,
  contextGuardOptionsSchema,
  defaultMaxFactTokens,
  highestCrossedLevel,
  UnknownStrategyError,
} from './context-guard.js';
export type { CompactionMemo, GuardConversationState } from './guard-state.js';
export { GUARD_STATE_SUBKEY, readState as readGuardState, STATE_KEY } from './guard-state.js';
export type { ToolsProblem } from './request-bound-tools.js';
export type { SendableView } from './sendable-view.js';
export { firstChangedIndex, sendableView } from './sendable-view.js';
export type { StaleReasoningDropped } from './signed-mark.js';
export { dropStaleSignedReasoning, forgetUnsentSignedMark, signedReasoningBoundary } from './signed-mark.js';
export type { RecordedRewrite, StrategyToolsInit } from './strategy-tools.js';
export { StrategyToolsImpl } from './strategy-tools.js';
