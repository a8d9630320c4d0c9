/**
 * Helpers shared between ctxguard packages (the guard applies the rewrites to a history with
 * them). Not public API: may change without notice.
 */

export { TokenMeter } from './budget/token-meter.js';
export { summarizeRequestSchema } from './facts/context-tools.js';
export { containsWhole, rankFactsByWorth } from './facts/fact-digest.js';
export { FACT_VALUE_SEPARATOR, hasPlainKey, sharesBullet, stripFactsBlocks } from './facts/facts-block.js';
export { partsOf, toolResultsOf } from './messages/message-parts.js';
export { spanOperation } from './pipeline/compaction-stages.js';
export { applyOperation as applyHistoryOperation } from './pipeline/history-operation.js';
export { lightTrimMessagesOptionsSchema } from './rewrites/light-trim.js';
export { microcompactToolResultsOptionsSchema } from './rewrites/microcompact-tool-results.js';
export { dropSignedReasoningFrom, isSignedReasoning } from './rewrites/signed-reasoning.js';
export { summarizeInChunks } from './rewrites/summarize-messages.js';
