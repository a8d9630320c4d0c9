export { CorruptEntryError, StorageError, UnserializableValueError } from './errors.js';
export { assertJsonSerializable, serializeValue } from './json-value.js';
export { assertKey, assertPrefix, MemoryPersistence } from './memory-persistence.js';
export type { Persistence } from './persistence.js';
