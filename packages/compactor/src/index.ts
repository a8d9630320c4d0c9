// Public API of @ctxguard/compactor: explicit named re-exports, one block per concept file.

export type {
  BudgetBreakdown,
  BudgetCheckParams,
  BudgetCheckResult,
  ContextStats,
  ContextStatsContext,
} from './budget/context-budget.js';
export {
  checkContextBudget,
  contextStats,
  DEFAULT_COMPACTION_THRESHOLD,
  needsCompaction,
} from './budget/context-budget.js';
export type {
  AggregateFileBudgetOptions,
  AggregateFileBudgetResult,
  FileAttachment,
  FileTruncationDecision,
} from './budget/file-budget.js';
export {
  calculateFileTokenBudget,
  enforceAggregateFileBudget,
  FILE_FAST_PATH_SIZE,
  FILE_PREVIEW_CHARS,
  FILE_PREVIEW_MODE_SIZE,
  FILE_READ_BUDGET_PERCENT,
  shouldTruncateFile,
} from './budget/file-budget.js';
export type { StripMediaResult } from './budget/media-bytes.js';
export {
  DEFAULT_MAX_REQUEST_BYTES,
  messageBytes,
  requestBytes,
  stripMediaToFit,
} from './budget/media-bytes.js';
export { TokenMeter } from './budget/token-meter.js';
export type { UsageAnchoredEstimate } from './budget/usage-anchored-estimate.js';
export { usageAnchoredEstimate } from './budget/usage-anchored-estimate.js';
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
export type { PrunedOutputInfo } from './facts/markers.js';
export {
  containsMarkerLookalike,
  isPrunedOutputText,
  isTruncationMarkerText,
  neutralizeMarkers,
  parsePrunedOutput,
  parseTruncationMarker,
  renderPrunedOutput,
  renderSupersededRead,
  renderTruncationMarker,
  restoreMarkers,
} from './facts/markers.js';
export type { OfflineContextToolsOptions } from './facts/offline-context-tools.js';
export {
  createOfflineContextTools,
  offlineContextToolsOptionsSchema,
} from './facts/offline-context-tools.js';
export type { SummaryContent } from './facts/summary-format.js';
export { isSummaryText, parseSummary, renderSummary } from './facts/summary-format.js';
export type { TranscriptLine, TranscriptMessage, TranscriptRole } from './facts/transcript.js';
export { countTranscriptMessages, parseTranscript, renderTranscript } from './facts/transcript.js';
export { frozenPrefixEnd } from './messages/frozen-prefix.js';
export { openToolRoundStart, restateToolRound, staleToolLoopStart } from './messages/open-tool-round.js';
export type { RepairToolPairsResult, ToolPairRepair, ToolPairUnit } from './messages/tool-pairs.js';
export { countToolPairViolations, repairToolPairs, toolPairUnits } from './messages/tool-pairs.js';
export type { ContextExhaustedSizes } from './overflow/context-exhausted-error.js';
export { ContextExhaustedError } from './overflow/context-exhausted-error.js';
export type { ContextOverflowProvider, OverflowTokens } from './overflow/overflow-errors.js';
export {
  getContextOverflowProvider,
  isContextOverflowError,
  isRequestTooLargeError,
  parseOverflowTokens,
} from './overflow/overflow-errors.js';
export type {
  CompactionResult,
  CompactionStage,
  CompactMessagesOptions,
  HistoryOperation,
  StageOperations,
  StageReport,
} from './pipeline/compact-messages.js';
export { compactMessages, compactMessagesOptionsSchema } from './pipeline/compact-messages.js';
export { spanOperation } from './pipeline/compaction-stages.js';
export { applyOperation as applyHistoryOperation } from './pipeline/history-operation.js';
export type {
  DeduplicateFileReadsStageOptions,
  DeduplicateFileReadsStageResult,
} from './rewrites/deduplicate-file-reads.js';
export {
  deduplicateFileReads,
  deduplicateFileReadsOptionsSchema,
} from './rewrites/deduplicate-file-reads.js';
export type { LightTrimMessagesOptions, LightTrimMessagesResult } from './rewrites/light-trim.js';
export { lightTrimMessages, lightTrimMessagesOptionsSchema } from './rewrites/light-trim.js';
export type {
  MicrocompactToolResultsRewriteOptions,
  MicrocompactToolResultsRewriteResult,
  ToolResultClassifier,
} from './rewrites/microcompact-tool-results.js';
export {
  CLEARED_TOOL_RESULT,
  microcompactToolResults,
  microcompactToolResultsOptionsSchema,
} from './rewrites/microcompact-tool-results.js';
export type {
  PrunedOutput,
  PruneToolOutputsStageOptions,
  PruneToolOutputsStageResult,
} from './rewrites/prune-tool-outputs.js';
export { pruneToolOutputs, pruneToolOutputsOptionsSchema } from './rewrites/prune-tool-outputs.js';
export { redactSecrets } from './rewrites/redact-secrets.js';
export type { SignedReasoningResult } from './rewrites/signed-reasoning.js';
export {
  dropSignedReasoningAfterChange,
  dropSignedReasoningFrom,
  isSignedReasoning,
} from './rewrites/signed-reasoning.js';
export type { SlidingWindowOptions, SlidingWindowResult } from './rewrites/sliding-window.js';
export { slidingWindowOptionsSchema, truncateWithSlidingWindow } from './rewrites/sliding-window.js';
export type { SummarizeMessagesOptions, SummarizeMessagesResult } from './rewrites/summarize-messages.js';
export {
  STRUCTURED_SUMMARY_PROMPT,
  summarizeInChunks,
  summarizeMessages,
  summarizeMessagesOptionsSchema,
} from './rewrites/summarize-messages.js';
export type {
  ToolOutputWriter,
  TruncateToolOutputOptions,
  TruncateToolOutputResult,
} from './rewrites/tool-output-limits.js';
export {
  MAX_TOOL_OUTPUT_BYTES,
  MAX_TOOL_OUTPUT_LINES,
  truncateToolOutput,
} from './rewrites/tool-output-limits.js';
export type {
  TruncateToTokenBudgetOptions,
  TruncateToTokenBudgetResult,
} from './rewrites/truncate-to-budget.js';
export { truncateToTokenBudget } from './rewrites/truncate-to-budget.js';
