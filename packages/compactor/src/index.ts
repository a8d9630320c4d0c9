// Public API of @ctxguard/compactor: explicit named re-exports, one block per concept file.

export {
  checkContextBudget,
  contextStats,
  DEFAULT_COMPACTION_THRESHOLD,
  needsCompaction,
} from './budget/context-budget.js';

export {
  calculateFileTokenBudget,
  enforceAggregateFileBudget,
  shouldTruncateFile,
} from './budget/file-budget.js';

export { messageBytes, requestBytes, stripMediaToFit } from './budget/media-bytes.js';
export { TokenMeter } from './budget/token-meter.js';

export type { ContextToolsFromFunctionsOptions } from './facts/context-tools.js';
export { contextToolsFromFunctions, summarizeRequestSchema } from './facts/context-tools.js';
export { boundFacts, leftOutFacts } from './facts/fact-bound.js';
export {
  derivedFactKey,
  FACTS_CLOSE,
  FACTS_OPEN,
  parseFactsBlock,
  redactFact,
  renderFactsBlock,
  stripFactsBlocks,
} from './facts/facts-block.js';

export {
  containsMarkerLookalike,
  isPrunedOutputText,
  isTruncationMarkerText,
  neutralizeMarkers,
  parsePrunedOutput,
  parseTruncationMarker,
  renderPrunedOutput,
  renderTruncationMarker,
  restoreMarkers,
} from './facts/markers.js';
export type { OfflineContextToolsOptions } from './facts/offline-context-tools.js';
export { createOfflineContextTools } from './facts/offline-context-tools.js';

export { isSummaryText, parseSummary, renderSummary } from './facts/summary-format.js';

export { renderTranscript } from './facts/transcript.js';
export { frozenPrefixEnd } from './messages/frozen-prefix.js';
export { openToolRoundStart, restateToolRound, staleToolLoopStart } from './messages/open-tool-round.js';

export { countToolPairViolations, repairToolPairs, toolPairUnits } from './messages/tool-pairs.js';

export type { ContextExhaustedSizes } from './overflow/context-exhausted-error.js';
export { ContextExhaustedError } from './overflow/context-exhausted-error.js';
export type { OverflowTokens } from './overflow/overflow-errors.js';
export {
  getContextOverflowProvider,
  isContextOverflowError,
  isRequestTooLargeError,
  parseOverflowTokens,
} from './overflow/overflow-errors.js';
export type {
  CompactionResult,
  CompactMessagesOptions,
  HistoryOperation,
} from './pipeline/compact-messages.js';
export { compactMessages } from './pipeline/compact-messages.js';
export { spanOperation } from './pipeline/compaction-stages.js';
export { applyOperation as applyHistoryOperation } from './pipeline/history-operation.js';

export {
  deduplicateFileReads,
  deduplicateFileReadsOptionsSchema,
} from './rewrites/deduplicate-file-reads.js';

export type { LightTrimMessagesOptions } from './rewrites/light-trim.js';
export { lightTrimMessages, lightTrimMessagesOptionsSchema } from './rewrites/light-trim.js';

export {
  microcompactToolResults,
  microcompactToolResultsOptionsSchema,
} from './rewrites/microcompact-tool-results.js';

export { pruneToolOutputs, pruneToolOutputsOptionsSchema } from './rewrites/prune-tool-outputs.js';
export { redactSecrets } from './rewrites/redact-secrets.js';

export {
  dropSignedReasoningAfterChange,
  dropSignedReasoningFrom,
  isSignedReasoning,
} from './rewrites/signed-reasoning.js';

export type { SlidingWindowOptions } from './rewrites/sliding-window.js';
export { slidingWindowOptionsSchema, truncateWithSlidingWindow } from './rewrites/sliding-window.js';

export type { SummarizeMessagesOptions } from './rewrites/summarize-messages.js';
export {
  STRUCTURED_SUMMARY_PROMPT,
  summarizeInChunks,
  summarizeMessages,
} from './rewrites/summarize-messages.js';

export type { TruncateToolOutputOptions } from './rewrites/tool-output-limits.js';
export { truncateToolOutput } from './rewrites/tool-output-limits.js';

export type { TruncateToTokenBudgetOptions } from './rewrites/truncate-to-budget.js';
export { truncateToTokenBudget } from './rewrites/truncate-to-budget.js';
