export { RedisStorageError, RedisUnavailableError } from './errors.js';
export type { RedisPersistenceOptions } from './redis-persistence.js';
export { RedisPersistence } from './redis-persistence.js';
