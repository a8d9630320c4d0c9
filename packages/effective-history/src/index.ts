export type {
  ConversationHistoryOptions,
  TruncationInfo,
} from './conversation-history.js';
export { conversationHistoryOptionsSchema, InMemoryConversationHistory } from './conversation-history.js';
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
export { HistoryStore, historyStoreOptionsSchema } from './history-store.js';
export { HISTORY_FORMAT_VERSION } from './stored-format.js';
export { assertConsistentEntries } from './validate-entries.js';
