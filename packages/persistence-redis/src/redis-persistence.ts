import { parseOptions } from '@ctxguard/core';
import {
  type AtomicCreate,
  assertKey,
  assertPrefix,
  CorruptEntryError,
  type Persistence,
  serializeValue,
} from '@ctxguard/persistence';
import { lazySchema, namespacePrefix, storeNamespaceSchema } from '@ctxguard/shared';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { RedisStorageError, RedisUnavailableError } from './errors.js';
import { escapeGlob } from './glob.js';
import {
  authFailureMessage,
  type CommandAccess,
  isAuthError,
  refusedDatabaseMessage,
  replyErrorMessage,
  unavailableReason,
} from './ioredis-errors.js';

const LONE_SURROGATE = /\p{Cs}/u;

let ioredisModule: typeof import('ioredis') | undefined;

/**
 * ioredis, loaded when a store is first made: importing this package (or `ctxguard`) does not load
 * it. `node:module` is reached through `process` so that a browser bundle of ctxguard, which never
 * makes a store, does not have to resolve it.
 */
function ioredis(): typeof import('ioredis') {
  if (!ioredisModule) {
    const { createRequire } = process.getBuiltinModule('node:module');
    ioredisModule = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  }
  return ioredisModule;
}

/** What the store calls on a caller's client; an ioredis 5 `Redis` from any copy of ioredis has them. */
const CLIENT_METHODS = [
  'get',
  'set',
  'del',
  'exists',
  'scan',
  'unlink',
  'select',
  'quit',
  'disconnect',
  'on',
  'off',
  'once',
];

/**
 * Checked by shape, not `instanceof`: an app's own copy of ioredis (another version, or one its
 * package manager did not dedupe) has another `Redis` class. A `Cluster` is refused: `SCAN` would
 * see one node only.
 */
function isRedisClient(value: unknown): value is Redis {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    candidate.isCluster !== true &&
    typeof candidate.status === 'string' &&
    typeof candidate.options === 'object' &&
    CLIENT_METHODS.every((method) => typeof candidate[method] === 'function')
  );
}

const timeoutMs = lazySchema(() =>
  z
    .number()
    .int()
    .positive()
    .max(2 ** 31 - 1),
);

/**
 * Whether a Redis URL names its database, if at all, as a number (its path, or a `db` parameter):
 * ioredis would send anything else to `SELECT` as `NaN` and crash the process with an unhandled
 * reply error.
 */
function namesADatabase(url: string): boolean {
  try {
    const { pathname, searchParams } = new URL(url);
    const db = searchParams.get('db');
    return /^\/?(\d+)?$/.test(pathname) && (db === null || /^\d+$/.test(db));
  } catch {
    return true; // a URL the WHATWG parser refuses is left to ioredis, which says what is wrong
  }
}

/** Options of {@link RedisPersistence}: a `url` (the store owns the connection) or an existing ioredis `client`. */
export const redisPersistenceOptionsSchema = lazySchema(() =>
  z
    .object({
      /** `redis://` or `rediss://` URL; the store opens and owns the connection. */
      url: z
        .string()
        .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
        .refine(
          namesADatabase,
          'its database (path or ?db=) must be a number, or left out (redis://host:6379/0, redis://host:6379)',
        )
        .optional(),
      /** An ioredis client the caller owns; `close()` leaves it open and its own options apply. */
      client: z
        .custom<Redis>(isRedisClient, 'must be an ioredis 5 Redis client (a Redis Cluster is not supported)')
        .optional(),
      /** First segment of every key in Redis (`{namespace}:{key}`); `list()` only sees keys under it. */
      namespace: storeNamespaceSchema().default('ctxguard'),
      /** How long a connection attempt may take before it counts as failed. */
      connectTimeoutMs: timeoutMs.default(2000),
      /** How long a command may wait for its reply before it fails. */
      commandTimeoutMs: timeoutMs.default(5000),
      /** How often a command in flight when the connection drops is re-sent after reconnecting (0 = fail at once). */
      maxRetriesPerRequest: z.number().int().min(0).max(100).default(0),
      /** Upper bound of the back-off between reconnection attempts, which go on in the background. */
      maxReconnectDelayMs: timeoutMs.default(1000),
      /** `COUNT` hint per `SCAN` call in `list()`. */
      scanCount: z.number().int().positive().max(1_000_000).default(1000),
    })
    .strict()
    .superRefine((options, ctx) => {
      if ((options.url === undefined) === (options.client === undefined)) {
        ctx.addIssue({ code: 'custom', path: ['url'], message: 'give exactly one of url or client' });
      }
    }),
);

/** Options accepted by the {@link RedisPersistence} constructor. */
export type RedisPersistenceOptions = z.input<typeof redisPersistenceOptionsSchema>;

type ParsedOptions = z.output<typeof redisPersistenceOptionsSchema>;

/**
 * A {@link Persistence} on Redis (ioredis), for state shared by many processes or machines.
 * Values are stored as JSON strings under `{namespace}:{key}`; while Redis is unreachable every
 * command fails at once with `storage_unavailable`, and the client reconnects in the background.
 */
export class RedisPersistence implements Persistence, AtomicCreate {
  readonly specificationVersion = 'v1' as const;
  /** The first segment of every key inside Redis. */
  readonly namespace: string;
  /** What every key carries in front inside Redis: the namespace and its `:`. */
  readonly #keyPrefix: string;
  readonly #client: Redis;
  readonly #ownsClient: boolean;
  readonly #options: ParsedOptions;
  /** Whether a call waits for the connection: until the store was ready once or one wait ran out. */
  #waitsForConnection: boolean;
  #lastError: Error | undefined;
  /** The password error of the latest connection attempt: a configuration error, not worth waiting out. */
  #authError: Error | undefined;
  /** This store's SELECT on the connection `stream`: the database is verified once per connection. */
  #databaseCheck: { readonly stream: unknown; readonly outcome: Promise<unknown> } | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;
  /** Operations called before `close()`, which it lets finish before it quits. */
  readonly #running = new Set<Promise<unknown>>();
  #firstConnection: Promise<void> | undefined;

  constructor(options: RedisPersistenceOptions) {
    const parsed = parseOptions(redisPersistenceOptionsSchema, options, 'RedisPersistence options');
    this.#options = parsed;
    this.namespace = parsed.namespace;
    this.#keyPrefix = namespacePrefix(parsed.namespace);
    if (parsed.client !== undefined) {
      this.#client = parsed.client;
      this.#ownsClient = false;
    } else {
      const maxDelay = parsed.maxReconnectDelayMs;
      this.#client = new (ioredis().Redis)(parsed.url as string, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: parsed.maxRetriesPerRequest,
        connectTimeout: parsed.connectTimeoutMs,
        commandTimeout: parsed.commandTimeoutMs,
        retryStrategy: (attempt) => Math.min(maxDelay, 50 * 2 ** Math.min(attempt, 16)),
        lazyConnect: false,
      });
      this.#ownsClient = true;
    }
    this.#waitsForConnection = this.#client.status !== 'ready';
    this.#client.on('ready', this.#onReady);
    this.#client.on('error', this.#onError);
  }

  readonly #onReady = (): void => {
    this.#waitsForConnection = false;
    this.#lastError = undefined;
    this.#authError = undefined;
  };

  readonly #onError = (error: Error): void => {
    this.#lastError = error;
    this.#authError = isAuthError(error) ? error : undefined;
  };

  /** The underlying ioredis client (for health checks or metrics; do not close it behind the store's back). */
  get client(): Redis {
    return this.#client;
  }

  async get<T = unknown>(key: string): Promise<T | null> {
    assertKey(key);
    return this.#admit(key, () => this.#get<T>(key));
  }

  async #get<T>(key: string): Promise<T | null> {
    const redisKey = this.#keyPrefix + key;
    let raw: string | null;
    try {
      raw = await this.#run(key, 'read', () => this.#client.get(redisKey));
    } catch (error) {
      if (error instanceof RedisStorageError && isWrongType(error.cause)) {
        throw new CorruptEntryError(key, undefined, error.cause, 'the Redis key holds a non-string type');
      }
      throw error;
    }
    if (raw === null) return null;
    try {
      return JSON.parse(raw) as T;
    } catch (error) {
      throw new CorruptEntryError(key, undefined, error, 'the stored string is not JSON');
    }
  }

  async set<T = unknown>(key: string, value: T): Promise<void> {
    assertKey(key);
    const json = serializeValue(key, value);
    await this.#admit(key, () =>
      this.#run(key, 'write', () => this.#client.set(this.#keyPrefix + key, json)),
    );
  }

  /**
   * Stores the value only when the key is absent, atomically (`SET NX`); resolves `true` when it
   * was stored. Lets writers such as `HistoryStore` commit without ever overwriting each other.
   */
  async setIfAbsent<T = unknown>(key: string, value: T): Promise<boolean> {
    assertKey(key);
    const json = serializeValue(key, value);
    const reply = await this.#admit(key, () =>
      this.#run(key, 'write', () => this.#client.set(this.#keyPrefix + key, json, 'NX')),
    );
    return reply === 'OK';
  }

  async delete(key: string): Promise<void> {
    assertKey(key);
    await this.#admit(key, () => this.#run(key, 'write', () => this.#client.del(this.#keyPrefix + key)));
  }

  async has(key: string): Promise<boolean> {
    assertKey(key);
    const count = await this.#admit(key, () =>
      this.#run(key, 'read', () => this.#client.exists(this.#keyPrefix + key)),
    );
    return count > 0;
  }

  async list(prefix?: string): Promise<string[]> {
    assertPrefix(prefix);
    return this.#admit(undefined, () => this.#list(prefix));
  }

  async #list(prefix: string | undefined): Promise<string[]> {
    const full = this.#keyPrefix + (prefix ?? '');
    // UTF-8 cannot carry a lone surrogate (a prefix may end inside an emoji's pair), so the
    // server-side pattern stops before the first one and the exact check below does the rest.
    const lone = LONE_SURROGATE.exec(full);
    const pattern = `${escapeGlob(lone === null ? full : full.slice(0, lone.index))}*`;
    const found = new Set<string>();
    let cursor = '0';
    do {
      const [next, keys] = await this.#run(undefined, 'read', () =>
        this.#client.scan(cursor, 'MATCH', pattern, 'COUNT', this.#options.scanCount),
      );
      cursor = next;
      for (const redisKey of keys) {
        if (redisKey.startsWith(full) && redisKey.length > this.#keyPrefix.length) {
          found.add(redisKey.slice(this.#keyPrefix.length));
        }
      }
    } while (cursor !== '0');
    return [...found].sort();
  }

  /** Deletes every key under this store's namespace (all of the database when the namespace is `''`). */
  async clear(): Promise<void> {
    return this.#admit(undefined, () => this.#clear());
  }

  async #clear(): Promise<void> {
    const keys = await this.#list(undefined);
    for (let start = 0; start < keys.length; start += 500) {
      const batch = keys.slice(start, start + 500).map((key) => this.#keyPrefix + key);
      await this.#run(undefined, 'write', () => this.#client.unlink(...batch));
    }
  }

  /**
   * Lets the operations called before it finish, then closes the connection the store opened (a
   * caller-provided client is left open). Later operations fail with `storage_unavailable`
   * ("the store is closed"). Calling it twice is fine.
   */
  close(): Promise<void> {
    this.#closed = true;
    this.#closing ??= this.#shutDown();
    return this.#closing;
  }

  async #shutDown(): Promise<void> {
    await Promise.allSettled(this.#running);
    this.#client.off('ready', this.#onReady);
    if (!this.#ownsClient) {
      this.#client.off('error', this.#onError);
      return;
    }
    const client = this.#client;
    const socketOpen =
      client.status === 'connecting' || client.status === 'connect' || client.status === 'ready';
    const ended = socketOpen
      ? new Promise<void>((resolve) => client.once('end', () => resolve()))
      : undefined;
    if (client.status === 'ready') await client.quit().catch(() => undefined);
    // While reconnecting there is no socket: disconnect() only cancels the pending reconnect.
    client.disconnect(false);
    if (ended !== undefined && client.status !== 'end') {
      await Promise.race([ended, delay(this.#options.connectTimeoutMs)]);
    }
    client.off('error', this.#onError);
  }

  /**
   * Starts one public operation unless the store is closed, and tracks it until it settles: a
   * command sent after `close()` began would follow its QUIT and fail with "Connection is closed".
   */
  #admit<R>(key: string | undefined, operation: () => Promise<R>): Promise<R> {
    if (this.#closed) return Promise.reject(new RedisUnavailableError('the store is closed', key));
    const running = operation();
    this.#running.add(running);
    const settled = (): void => {
      this.#running.delete(running);
    };
    running.then(settled, settled);
    return running;
  }

  async #run<R>(key: string | undefined, access: CommandAccess, command: () => Promise<R>): Promise<R> {
    await this.#connected(key);
    try {
      return await command();
    } catch (error) {
      throw this.#wrap(key, access, error);
    }
  }

  /**
   * Lets a command go once the connection is ready and on the right database. Until the first
   * connection, calls wait for it, once, up to `connectTimeoutMs`; after that wait, or after a
   * connection, a call fails fast while Redis is down.
   */
  async #connected(key: string | undefined): Promise<void> {
    const client = this.#client;
    if (client.status !== 'ready') {
      if (this.#authError !== undefined) throw this.#authFailure(key, this.#authError);
      if (this.#waitsForConnection) await this.#awaitFirstConnection(key);
    }
    if (client.status === 'ready') await this.#databaseSelected(key);
  }

  async #awaitFirstConnection(key: string | undefined): Promise<void> {
    if (this.#client.status === 'end') {
      throw new RedisUnavailableError('the Redis connection was closed', key);
    }
    this.#firstConnection ??= this.#waitForFirstConnection().finally(() => {
      this.#firstConnection = undefined;
    });
    try {
      await this.#firstConnection;
    } catch (error) {
      if (this.#authError !== undefined) throw this.#authFailure(key, this.#authError);
      // Redis is down from the start: later calls fail at once, as they do after a drop. A caller's
      // client with its offline queue on would queue them unchecked instead, so those still wait.
      if (this.#client.options.enableOfflineQueue === false) this.#waitsForConnection = false;
      const reason = error instanceof Error ? error.message : String(error);
      throw new RedisUnavailableError(reason, key, this.#lastError);
    }
  }

  /** Resolves on `ready`; rejects on a password error at once, or after `connectTimeoutMs`. */
  #waitForFirstConnection(): Promise<void> {
    const client = this.#client;
    if (client.status === 'wait') client.connect().catch(() => undefined);
    return new Promise<void>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        client.off('ready', onReady);
        client.off('end', onEnd);
        client.off('error', onError);
      };
      const onReady = (): void => {
        done();
        resolve();
      };
      const onEnd = (): void => {
        done();
        reject(new Error('the Redis connection was closed'));
      };
      const onError = (error: Error): void => {
        if (!isAuthError(error)) return;
        done();
        reject(error);
      };
      const timer = setTimeout(() => {
        done();
        const last = this.#lastError ? ` (last error: ${this.#lastError.message})` : '';
        reject(new Error(`no connection to Redis within ${this.#options.connectTimeoutMs} ms${last}`));
      }, this.#options.connectTimeoutMs);
      client.once('ready', onReady);
      client.once('end', onEnd);
      client.on('error', onError);
    });
  }

  /**
   * Verifies, once per connection and before this store sends anything on it, that the server
   * accepted the database ioredis selects: when ioredis' own SELECT fails it only emits `error`,
   * and the commands after it would run on database 0.
   */
  async #databaseSelected(key: string | undefined): Promise<void> {
    const client = this.#client;
    const database = client.condition?.select ?? client.options.db ?? 0;
    if (database === 0) return;
    if (this.#databaseCheck?.stream !== client.stream) {
      const outcome = client.select(database).then(
        () => undefined,
        (error: unknown) => error,
      );
      this.#databaseCheck = { stream: client.stream, outcome };
    }
    const check = this.#databaseCheck;
    const error = await check.outcome;
    if (error === undefined) return;
    const reply = replyErrorMessage(error);
    if (reply !== undefined) {
      throw new RedisStorageError(refusedDatabaseMessage(database, reply, this.#source), key, error);
    }
    // Not refused, only unanswered (timeout, dropped connection): the next call asks again.
    if (this.#databaseCheck === check) this.#databaseCheck = undefined;
    throw this.#wrap(key, 'read', error);
  }

  #authFailure(key: string | undefined, error: Error): RedisStorageError {
    return new RedisStorageError(authFailureMessage(error.message, this.#source), key, error);
  }

  get #source(): 'url' | 'client' {
    return this.#ownsClient ? 'url' : 'client';
  }

  #wrap(key: string | undefined, access: CommandAccess, error: unknown): Error {
    const reply = replyErrorMessage(error);
    if (reply !== undefined) {
      const kind = reply.split(' ', 1)[0] ?? '';
      if (kind === 'LOADING' || kind === 'BUSY' || kind === 'MASTERDOWN' || kind === 'TRYAGAIN') {
        return new RedisUnavailableError(reply, key, error);
      }
      return new RedisStorageError(`Redis rejected the command: ${reply}`, key, error);
    }
    const reason = unavailableReason(error, access, this.#client.options.commandTimeout);
    return new RedisUnavailableError(reason, key, error);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function isWrongType(error: unknown): boolean {
  return replyErrorMessage(error)?.startsWith('WRONGTYPE') === true;
}
