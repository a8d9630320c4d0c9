// Public API of @ctxguard/compactor: explicit named re-exports, one block per concept file.

export type { ContextToolsFromFunctionsOptions } from './context-tools.js';
export { contextToolsFromFunctions } from './context-tools.js';
export { FACTS_CLOSE, FACTS_OPEN, parseFactsBlock, renderFactsBlock } from './facts-block.js';
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
export type { OfflineContextToolsOptions } from './offline-context-tools.js';
export { createOfflineContextTools, offlineContextToolsOptionsSchema } from './offline-context-tools.js';
export { redactSecrets } from './redact-secrets.js';
export type { SummaryContent } from './summary-format.js';
export { isSummaryText, parseSummary, renderSummary } from './summary-format.js';
export type { TranscriptLine, TranscriptMessage, TranscriptRole } from './transcript.js';
export { countTranscriptMessages, parseTranscript, renderTranscript } from './transcript.js';
