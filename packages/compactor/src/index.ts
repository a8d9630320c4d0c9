// Public API of @ctxguard/compactor: explicit named re-exports, one block per concept file.

export type {
  CompactionResult,
  CompactionStage,
  CompactMessagesOptions,
  HistoryOperation,
  StageOperations,
  StageReport,
} from './compact-messages.js';
export { compactMessages, compactMessagesOptionsSchema } from './compact-messages.js';
export type {
  BudgetBreakdown,
  BudgetCheckParams,
  BudgetCheckResult,
  ContextStats,
  ContextStatsContext,
} from './context-budget.js';
export {
  checkContextBudget,
  contextStats,
  DEFAULT_COMPACTION_THRESHOLD,
  needsCompaction,
} from './context-budget.js';
export type { ContextExhaustedSizes } from './context-exhausted-error.js';
export { ContextExhaustedError } from './context-exhausted-error.js';
export type { ContextToolsFromFunctionsOptions } from './context-tools.js';
export { contextToolsFromFunctions } from './context-tools.js';
export type {
  DeduplicateFileReadsStageOptions,
  DeduplicateFileReadsStageResult,
} from './deduplicate-file-reads.js';
export { deduplicateFileReads, deduplicateFileReadsOptionsSchema } from './deduplicate-file-reads.js';
export { derivedFactKey, FACTS_CLOSE, FACTS_OPEN, parseFactsBlock, renderFactsBlock } from './facts-block.js';
export type {
  AggregateFileBudgetOptions,
  AggregateFileBudgetResult,
  FileAttachment,
  FileTruncationDecision,
} from './file-budget.js';
export {
  calculateFileTokenBudget,
  enforceAggregateFileBudget,
  FILE_FAST_PATH_SIZE,
  FILE_PREVIEW_CHARS,
  FILE_PREVIEW_MODE_SIZE,
  FILE_READ_BUDGET_PERCENT,
  shouldTruncateFile,
} from './file-budget.js';
export { frozenPrefixEnd } from './frozen-prefix.js';
export type { LightTrimMessagesOptions, LightTrimMessagesResult } from './light-trim.js';
export { lightTrimMessages } from './light-trim.js';
export type { PrunedOutputInfo } from './markers.js';
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
} from './markers.js';
export type { StripMediaResult } from './media-bytes.js';
export { DEFAULT_MAX_REQUEST_BYTES, messageBytes, requestBytes, stripMediaToFit } from './media-bytes.js';
export type {
  MicrocompactToolResultsRewriteOptions,
  MicrocompactToolResultsRewriteResult,
  ToolResultClassifier,
} from './microcompact-tool-results.js';
export { CLEARED_TOOL_RESULT, microcompactToolResults } from './microcompact-tool-results.js';
export type { OfflineContextToolsOptions } from './offline-context-tools.js';
export { createOfflineContextTools, offlineContextToolsOptionsSchema } from './offline-context-tools.js';
export { openToolRoundStart, restateToolRound, staleToolLoopStart } from './open-tool-round.js';
export type { ContextOverflowProvider, OverflowTokens } from './overflow-errors.js';
export {
  getContextOverflowProvider,
  isContextOverflowError,
  isRequestTooLargeError,
  parseOverflowTokens,
} from './overflow-errors.js';
export type {
  PrunedOutput,
  PruneToolOutputsStageOptions,
  PruneToolOutputsStageResult,
} from './prune-tool-outputs.js';
export { pruneToolOutputs, pruneToolOutputsOptionsSchema } from './prune-tool-outputs.js';
export { redactSecrets } from './redact-secrets.js';
export type { SignedReasoningResult } from './signed-reasoning.js';
export { dropSignedReasoningAfterChange } from './signed-reasoning.js';
export type { SlidingWindowOptions, SlidingWindowResult } from './sliding-window.js';
export { slidingWindowOptionsSchema, truncateWithSlidingWindow } from './sliding-window.js';
export type { SummarizeMessagesOptions, SummarizeMessagesResult } from './summarize-messages.js';
export {
  STRUCTURED_SUMMARY_PROMPT,
  summarizeMessages,
  summarizeMessagesOptionsSchema,
} from './summarize-messages.js';
export type { SummaryContent } from './summary-format.js';
export { isSummaryText, parseSummary, renderSummary } from './summary-format.js';
export type {
  ToolOutputWriter,
  TruncateToolOutputOptions,
  TruncateToolOutputResult,
} from './tool-output-limits.js';
export { MAX_TOOL_OUTPUT_BYTES, MAX_TOOL_OUTPUT_LINES, truncateToolOutput } from './tool-output-limits.js';
export type { RepairToolPairsResult, ToolPairRepair, ToolPairUnit } from './tool-pairs.js';
export { countToolPairViolations, repairToolPairs, toolPairUnits } from './tool-pairs.js';
export type { TranscriptLine, TranscriptMessage, TranscriptRole } from './transcript.js';
export { countTranscriptMessages, parseTranscript, renderTranscript } from './transcript.js';
export type { TruncateToTokenBudgetOptions, TruncateToTokenBudgetResult } from './truncate-to-budget.js';
export { truncateToTokenBudget } from './truncate-to-budget.js';
export type { UsageAnchoredEstimate } from './usage-anchored-estimate.js';
export { usageAnchoredEstimate } from './usage-anchored-estimate.js';
