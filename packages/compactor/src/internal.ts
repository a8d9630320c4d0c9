/**
 * Helpers shared between ctxguard packages (the guard applies the rewrites to a history with
 * them). Not public API: may change without notice.
 */

export { spanOperation } from './compaction-stages.js';
export { summarizeRequestSchema } from './context-tools.js';
export { containsWhole, rankFactsByWorth } from './fact-digest.js';
export { FACT_VALUE_SEPARATOR, hasPlainKey, sharesBullet, stripFactsBlocks } from './facts-block.js';
export { applyOperation as applyHistoryOperation } from './history-operation.js';
export { lightTrimMessagesOptionsSchema } from './light-trim.js';
export { partsOf, toolResultsOf } from './message-parts.js';
export { microcompactToolResultsOptionsSchema } from './microcompact-tool-results.js';
export { dropSignedReasoningFrom, isSignedReasoning } from './signed-reasoning.js';
export { summarizeInChunks } from './summarize-messages.js';
export { TokenMeter } from './token-meter.js';
