// Public API of @ctxguard/compactor: explicit named re-exports, one block per concept file.

export { checkContextBudget } from './budget/context-budget.js';
export { fileBudget } from './budget/file-budget.js';
export { stripMediaToFit } from './budget/media-bytes.js';
export { TokenMeter } from './budget/token-meter.js';

export { contextToolsFromFunctions } from './facts/context-tools.js';
export { factsBlock, markers, summaryBlock } from './facts/formats.js';
export type { OfflineContextToolsOptions } from './facts/offline-context-tools.js';
export { createOfflineContextTools } from './facts/offline-context-tools.js';
export { renderTranscript } from './facts/transcript.js';

export { frozenPrefixEnd } from './messages/frozen-prefix.js';
export { openToolRoundStart } from './messages/open-tool-round.js';
export { countToolPairViolations, repairToolPairs, toolPairUnits } from './messages/tool-pairs.js';

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

export { deduplicateFileReads } from './rewrites/deduplicate-file-reads.js';
export { lightTrimMessages } from './rewrites/light-trim.js';
export { microcompactToolResults } from './rewrites/microcompact-tool-results.js';
export { schemas } from './rewrites/options-schemas.js';
export { pruneToolOutputs } from './rewrites/prune-tool-outputs.js';
export { redactSecrets } from './rewrites/redact-secrets.js';
export { signedReasoning } from './rewrites/signed-reasoning.js';
export { truncateWithSlidingWindow } from './rewrites/sliding-window.js';
export { summarizeInChunks, summarizeMessages } from './rewrites/summarize-messages.js';
export { truncateToolOutput } from './rewrites/tool-output-limits.js';
export { truncateToTokenBudget } from './rewrites/truncate-to-budget.js';
