export { RedisStorageError, RedisUnavailableError } from './errors.js';
export { escapeGlob } from './glob.js';
export type { RedisPersistenceOptions } from './redis-persistence.js';
export { RedisPersistence, redisPersistenceOptionsSchema } from './redis-persistence.js';
