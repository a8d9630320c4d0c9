export type {
  ConversationHistoryOptions,
  TruncationInfo,
} from './conversation-history.js';
export { InMemoryConversationHistory } from './conversation-history.js';
export type { CompactionInfo } from './effective-history.js';
export {
  compactionIdOf,
  compactionInfo,
  getEffectiveHistory,
  isHidden,
  listCompactions,
  removeCondensationTags,
  removeTruncationTags,
  tagForCondensation,
  tagForTruncation,
} from './effective-history.js';
export {
  DuplicateHistoryIdError,
  HistoryConflictError,
  HistoryIndexError,
  UnknownCompactionError,
  UnsupportedHistoryFormatError,
} from './errors.js';
export type { AtomicCreate, HistoryStoreOptions, SaveResult } from './history-store.js';
export { HistoryStore } from './history-store.js';
export { assertConsistentEntries } from './validate-entries.js';
