// Helpers the ctxguard packages share. This package is private: each package bundles what it uses
// into its own build, so none of these is part of a published surface.

export { abortReason, abortSignalSchema, isAbortSignal, throwIfAborted } from './abort.js';
export { pushAll } from './arrays.js';
export { CHARS_PER_TOKEN } from './chars-per-token.js';
export { containsWhole } from './contains-whole.js';
export type { EntryTags } from './contract-checks.js';
export { isContextStrategy, isContextTools, isHookBus, isOriginalEntry } from './contract-checks.js';
export { describeKind, describeThrown, describeValue } from './describe-value.js';
export { formatPath } from './format-path.js';
export { importUnbundled } from './import-unbundled.js';
export type { JsonCheckOptions, JsonValue, JsonValueIssue } from './json-value.js';
export { copyJsonValue, findJsonValueIssue } from './json-value.js';
export { lazySchema } from './lazy-schema.js';
export { COUNTS_IN_FLIGHT, mapLimited } from './map-limited.js';
export { isRecord, partsOf, roleOf } from './message-readers.js';
export type { MessageSnapshot } from './message-snapshot.js';
export { matchesSnapshot, takeMessageSnapshot } from './message-snapshot.js';
export type { CompactionPart } from './provider-compaction.js';
export { COMPACTION_KIND, isCompactionPart, newestCompactionIndex } from './provider-compaction.js';
export {
  addCacheMarkers,
  CACHE_MARKER_KEYS,
  CTXGUARD_PROVIDER,
  converterHint,
  foreignFormatOf,
  isAISDKOutput,
  isUnconvertedAISDKOutput,
  OPENAI_ONLY_FIELDS,
  OWN_OUTPUT_MARK,
  providerFormatOf,
} from './provider-format.js';
export { randomUuid } from './random-uuid.js';
export { closestName, misspeltKeys, misspeltKeysCheck, tolerantObject } from './spelling.js';
export { namespacePrefix, storeNamespaceSchema } from './store-namespace.js';
export { belowTokenizerSpread } from './tokenizer-spread.js';
export { charsPerRequest, toolsWindowTokens } from './tools-window.js';
export { utf8Length } from './utf8-length.js';
export { warnMisconfigured } from './warn-misconfigured.js';
