export type { CacheOptions, CacheSetOptions, InvalidateScope } from './cache.js';
export { Cache, cacheOptionsSchema } from './cache.js';
export type { CacheEntry, CacheStore } from './cache-store.js';
export { cacheEntrySchema, isCacheEntry, isCacheStore } from './cache-store.js';
export type { FileCacheStoreOptions } from './file-cache-store.js';
export { FileCacheStore, fileCacheStoreOptionsSchema } from './file-cache-store.js';
export type { MemoryCacheStoreOptions } from './memory-cache-store.js';
export { MemoryCacheStore, memoryCacheStoreOptionsSchema } from './memory-cache-store.js';
export type { PersistenceCacheStoreOptions } from './persistence-cache-store.js';
export { PersistenceCacheStore, persistenceCacheStoreOptionsSchema } from './persistence-cache-store.js';
export type { RequestCacheKeyInput } from './request-hash.js';
export {
  canonicalJson,
  hashRequest,
  MAX_REQUEST_DEPTH,
  requestCacheKey,
  scopeKeyPrefix,
} from './request-hash.js';
export {
  assertCacheKey,
  assertCacheName,
  CACHE_KEY_PREFIX,
  MAX_CACHE_NAME_LENGTH,
  storageKey,
} from './storage-key.js';
export { DEFAULT_TTL_MS, MAX_TTL_MS, ttlSchema } from './ttl.js';
