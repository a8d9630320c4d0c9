export { type AtomicCreate, supportsAtomicCreate, withoutAtomicCreate } from './atomic-create.js';
export {
  AtomicCreateUnsupportedError,
  CorruptEntryError,
  StorageError,
  UnserializableValueError,
} from './errors.js';
export { FilePersistence, type FilePersistenceOptions } from './file-persistence.js';
export type { FileHandleLike, FileSystemAdapter } from './file-system.js';
export { assertJsonSerializable, serializeValue } from './json-value.js';
export { assertKey, assertPrefix, MemoryPersistence } from './memory-persistence.js';
export { escapeKeyPart, isPersistence, type Persistence } from './persistence.js';
