import { CtxGuardError, parseInput, parseOptions } from '@ctxguard/core';
import {
  AtomicCreateUnsupportedError,
  CorruptEntryError,
  isPersistence,
  MemoryPersistence,
  type Persistence,
  StorageError,
  supportsAtomicCreate,
} from '@ctxguard/persistence';
import { lazySchema, misspeltKeysCheck, randomUuid } from '@ctxguard/shared';
import { z } from 'zod';
import {
  type Calibration,
  type CalibrationKey,
  type CalibrationStore,
  type CalibrationUpdate,
  calibrationKeyPrefix,
  calibrationKeySchema,
  calibrationUpdateSchema,
  MAX_CHARS_PER_TOKEN,
  storageKeyOf,
} from './calibration-store.js';
import { contentClassSchema } from './content-class.js';

/**
 * A key given to `get` / `delete`: fields beyond the key's are allowed (a whole calibration is a
 * key), but a misspelt key field is refused, since dropping it would name another calibration.
 */
const keyArgumentSchema = lazySchema(() =>
  z
    .looseObject(calibrationKeySchema.shape)
    .superRefine(misspeltKeysCheck(Object.keys(calibrationKeySchema.shape))),
);

/** Default EWMA step. */
export const DEFAULT_ALPHA = 0.2;
/** Samples after which a calibration is fully trusted. */
export const DEFAULT_MIN_SAMPLES_FOR_CONFIDENCE = 10;

/** Options of {@link PersistenceCalibrationStore}. */
export const persistenceCalibrationStoreOptionsSchema = lazySchema(() =>
  z.strictObject({
    /** Where calibrations live (any `Persistence`: memory, file, Redis…). */
    persistence: z.custom<Persistence>(
      isPersistence,
      'must be a Persistence (get, set, delete, list and has)',
    ),
    /** EWMA step in (0, 1]: `new = alpha × observed + (1 − alpha) × old`. */
    alpha: z.number().gt(0).lte(1).default(DEFAULT_ALPHA),
    /** Samples until confidence reaches 1. */
    minSamplesForConfidence: z.number().int().positive().default(DEFAULT_MIN_SAMPLES_FOR_CONFIDENCE),
    /** Clock, for tests. */
    now: z.custom<() => number>((v) => typeof v === 'function', 'must be a function').optional(),
  }),
);

/** Options of {@link PersistenceCalibrationStore} (before defaults are applied). */
export type PersistenceCalibrationStoreOptions = z.input<typeof persistenceCalibrationStoreOptionsSchema>;

const storedSchema = lazySchema(() =>
  z.object({
    v: z.literal(1),
    provider: z.string().min(1),
    model: z.string().min(1),
    contentClass: contentClassSchema.optional(),
    charsPerToken: z.number().positive().max(MAX_CHARS_PER_TOKEN),
    samples: z.number().int().positive(),
    updatedAt: z.number().finite(),
  }),
);

type Stored = z.output<typeof storedSchema>;

/** A process's claim on one calibration while it merges an observation into it. */
interface Lease {
  token: string;
  expiresAt: number;
}

/** What a lease key holds: absent, a lease this store writes, or anything else (broken at once). */
type LeaseState = { kind: 'absent' } | { kind: 'lease'; lease: Lease } | { kind: 'broken' };

function isLease(value: unknown): value is Lease {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { token, expiresAt } = value as Record<string, unknown>;
  return typeof token === 'string' && typeof expiresAt === 'number' && Number.isFinite(expiresAt);
}

/** Returned by a merge that found its lease gone before writing: the merge is redone under a new lease. */
const LEASE_LOST: unique symbol = Symbol('lease lost');

/** Lease keys live apart from calibrations, so `list()` never sees them. */
const LOCK_PREFIX = 'calibration-lease:';
/** How long a lease holds before another process may break it (a merge takes milliseconds). */
const LEASE_MS = 10_000;
/** How long `update()` waits for a lease before it fails with `storage_conflict`. */
const LOCK_WAIT_MS = 30_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// Per-persistence queues: two stores over one Persistence in one process still serialize per key.
const queuesByPersistence = new WeakMap<Persistence, Map<string, Promise<unknown>>>();

function queuesOf(persistence: Persistence): Map<string, Promise<unknown>> {
  let queues = queuesByPersistence.get(persistence);
  if (!queues) {
    queues = new Map();
    queuesByPersistence.set(persistence, queues);
  }
  return queues;
}

/**
 * Calibrations on any `Persistence`: an EWMA of characters per token per provider, model and
 * content class (`alpha` 0.2, confidence `min(1, samples / 10)`). Updates of one key are
 * serialized in-process, and across processes through a lease when the persistence can create a
 * key atomically (`setIfAbsent`: memory, file and Redis stores can), so concurrent `update()` calls
 * never lose an observation.
 */
export class PersistenceCalibrationStore implements CalibrationStore {
  readonly specificationVersion = 'v1' as const;
  readonly #persistence: Persistence;
  readonly #alpha: number;
  readonly #minSamples: number;
  readonly #now: () => number;

  constructor(options: PersistenceCalibrationStoreOptions) {
    const parsed = parseOptions(
      persistenceCalibrationStoreOptionsSchema,
      options,
      'PersistenceCalibrationStore options',
    );
    this.#persistence = parsed.persistence;
    this.#alpha = parsed.alpha;
    this.#minSamples = parsed.minSamplesForConfidence;
    this.#now = parsed.now ?? Date.now;
  }

  async get(key: CalibrationKey): Promise<Calibration | null> {
    const parsed = parseInput(keyArgumentSchema, key, 'calibration key');
    const stored = await this.#ownEntry(parsed);
    return stored ? this.#toCalibration(stored) : null;
  }

  async update(input: CalibrationUpdate): Promise<Calibration> {
    const parsed = parseInput(calibrationUpdateSchema, input, 'calibration update');
    const storageKey = storageKeyOf(parsed);
    return this.#serialized(storageKey, () =>
      this.#locked(storageKey, async (leaseHeld) => {
        const existing = await this.#ownEntry(parsed);
        const step = this.#alpha * (parsed.weight ?? 1);
        const next: Stored = {
          v: 1,
          provider: parsed.provider,
          model: parsed.model,
          ...(parsed.contentClass !== undefined ? { contentClass: parsed.contentClass } : {}),
          charsPerToken: existing
            ? step * parsed.charsPerToken + (1 - step) * existing.charsPerToken
            : parsed.charsPerToken,
          samples: (existing?.samples ?? 0) + 1,
          updatedAt: this.#now(),
        };
        // Another process broke our lease (we were paused past LEASE_MS): our merge may be stale.
        if (!(await leaseHeld())) return LEASE_LOST;
        await this.#persistence.set(storageKey, next);
        return this.#toCalibration(next);
      }),
    );
  }

  /**
   * Runs a read-merge-write of `storageKey` under a lease other processes respect, when the
   * persistence can create a key atomically (memory, file, Redis): the lease is a key created with
   * `setIfAbsent`, so two processes never merge into the same old value and lose an update. A lease
   * left by a crashed process expires after {@link LEASE_MS}; a lease key holding anything this
   * store does not write is broken at once. `task` calls `leaseHeld()` just before it writes and
   * returns {@link LEASE_LOST} when the lease is no longer its own, and the merge is redone under a
   * new lease. The check and the write are two operations, so a pause between them can still lose
   * an update (see the README). Without `setIfAbsent`, updates are serialized in this process only.
   */
  async #locked<T>(
    storageKey: string,
    task: (leaseHeld: () => Promise<boolean>) => Promise<T | typeof LEASE_LOST>,
  ): Promise<T> {
    const persistence = this.#persistence;
    const unfenced = async () => (await task(async () => true)) as T;
    if (!supportsAtomicCreate(persistence)) return unfenced();
    const lockKey = `${LOCK_PREFIX}${storageKey}`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    const conflict = () =>
      new StorageError(
        'storage_conflict',
        `calibration ${storageKey}: another process held its lease for over ${LOCK_WAIT_MS} ms`,
        { key: storageKey },
      );
    for (;;) {
      const token = randomUuid();
      let acquired: boolean;
      try {
        acquired = await this.#acquireLease(lockKey, token, deadline, conflict);
      } catch (error) {
        // A file system without atomic create: serialize in this process only, as before.
        if (error instanceof AtomicCreateUnsupportedError) return unfenced();
        throw error;
      }
      if (!acquired) throw conflict();
      let result: T | typeof LEASE_LOST;
      try {
        result = await task(() => this.#holdsLease(lockKey, token));
      } finally {
        await this.#releaseLease(lockKey, token);
      }
      if (result !== LEASE_LOST) return result;
      if (Date.now() > deadline) throw conflict();
    }
  }

  /** Takes the lease under `lockKey` for `token`, breaking an expired or foreign one; false past `deadline`. */
  async #acquireLease(
    lockKey: string,
    token: string,
    deadline: number,
    conflict: () => StorageError,
  ): Promise<boolean> {
    const persistence = this.#persistence as Persistence & {
      setIfAbsent(key: string, value: unknown): Promise<boolean>;
    };
    for (let attempt = 0; ; attempt++) {
      const lease: Lease = { token, expiresAt: Date.now() + LEASE_MS };
      if (await persistence.setIfAbsent(lockKey, lease)) return true;
      if (Date.now() > deadline) throw conflict();
      const seen = await this.#readLease(lockKey);
      if (seen.kind === 'absent') continue;
      if (seen.kind === 'broken' || seen.lease.expiresAt < Date.now()) {
        // Expired (its holder crashed or froze), or not a lease this store writes (it would never
        // expire): break it only if it is still the one we saw. Not atomic: see #holdsLease.
        const again = await this.#readLease(lockKey);
        const same =
          seen.kind === 'broken'
            ? again.kind === 'broken'
            : again.kind === 'lease' && again.lease.token === seen.lease.token;
        if (same) await persistence.delete(lockKey);
        continue;
      }
      await sleep(Math.min(50, 2 + attempt * 2) * (0.5 + Math.random()));
    }
  }

  /** Whether the lease under `lockKey` is still `token`'s and unexpired (checked before each write). */
  async #holdsLease(lockKey: string, token: string): Promise<boolean> {
    const state = await this.#readLease(lockKey);
    return state.kind === 'lease' && state.lease.token === token && state.lease.expiresAt >= Date.now();
  }

  /** Deletes the lease if it is still `token`'s (a read, then a delete: not atomic). */
  async #releaseLease(lockKey: string, token: string): Promise<void> {
    const state = await this.#readLease(lockKey).catch(() => null);
    if (state?.kind === 'lease' && state.lease.token === token) {
      await this.#persistence.delete(lockKey).catch(() => undefined);
    }
  }

  /**
   * What the lease key holds. A value that is not `{ token: string, expiresAt: number }`, a JSON
   * `null` (present per `has()`), or one the persistence cannot read back counts as broken.
   */
  async #readLease(lockKey: string): Promise<LeaseState> {
    const read = async (): Promise<unknown> => {
      try {
        return await this.#persistence.get<unknown>(lockKey);
      } catch (error) {
        if (CtxGuardError.is(error, 'storage_corrupt_entry')) return undefined;
        throw error;
      }
    };
    let raw = await read();
    if (raw === null) {
      if (!(await this.#persistence.has(lockKey))) return { kind: 'absent' };
      // Present: a stored JSON null, or a lease created between the two calls.
      raw = await read();
      if (raw === null && !(await this.#persistence.has(lockKey))) return { kind: 'absent' };
    }
    return isLease(raw) ? { kind: 'lease', lease: raw } : { kind: 'broken' };
  }

  async list(filter: { provider?: string; model?: string } = {}): Promise<Calibration[]> {
    const f = parseInput(
      z.strictObject({ provider: z.string().min(1).optional(), model: z.string().min(1).optional() }),
      filter ?? {},
      'calibration filter',
    );
    const prefix = calibrationKeyPrefix(f.provider, f.model);
    const found: Calibration[] = [];
    for (const key of (await this.#persistence.list(prefix)).sort()) {
      const stored = await this.#readListed(key);
      // An entry under another identity's key was not written by this store: left out.
      if (!stored || storageKeyOf(stored) !== key) continue;
      if (f.provider !== undefined && stored.provider !== f.provider) continue;
      if (f.model !== undefined && stored.model !== f.model) continue;
      found.push(this.#toCalibration(stored));
    }
    return found;
  }

  async delete(key: CalibrationKey): Promise<void> {
    const parsed = parseInput(keyArgumentSchema, key, 'calibration key');
    const storageKey = storageKeyOf(parsed);
    await this.#serialized(storageKey, () => this.#persistence.delete(storageKey));
  }

  /** The entry of exactly this identity under its key (anything else there is not its calibration). */
  async #ownEntry(key: CalibrationKey): Promise<Stored | null> {
    const stored = await this.#read(storageKeyOf(key));
    return stored && sameIdentity(stored, key) ? stored : null;
  }

  async #read(storageKey: string): Promise<Stored | null> {
    const raw = await this.#persistence.get<unknown>(storageKey);
    if (raw === null) return null;
    const result = storedSchema.safeParse(raw);
    if (!result.success) throw new CorruptEntryError(storageKey, undefined, result.error);
    return result.data;
  }

  /** Like `#read`, but an entry that is not a calibration is left out (and left stored) instead of failing the listing. */
  async #readListed(storageKey: string): Promise<Stored | null> {
    try {
      return await this.#read(storageKey);
    } catch (error) {
      if (CtxGuardError.is(error, 'storage_corrupt_entry')) return null;
      throw error;
    }
  }

  #toCalibration(stored: Stored): Calibration {
    return {
      provider: stored.provider,
      model: stored.model,
      ...(stored.contentClass !== undefined ? { contentClass: stored.contentClass } : {}),
      charsPerToken: stored.charsPerToken,
      samples: stored.samples,
      confidence: Math.min(1, stored.samples / this.#minSamples),
      updatedAt: stored.updatedAt,
    };
  }

  #serialized<T>(storageKey: string, task: () => Promise<T>): Promise<T> {
    const queues = queuesOf(this.#persistence);
    const previous = queues.get(storageKey) ?? Promise.resolve();
    const run = previous.then(task, task);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    queues.set(storageKey, tail);
    void tail.then(() => {
      if (queues.get(storageKey) === tail) queues.delete(storageKey);
    });
    return run;
  }
}

function sameIdentity(stored: Stored, key: CalibrationKey): boolean {
  return (
    stored.provider === key.provider && stored.model === key.model && stored.contentClass === key.contentClass
  );
}

/** Options of {@link MemoryCalibrationStore}. */
export type MemoryCalibrationStoreOptions = Omit<PersistenceCalibrationStoreOptions, 'persistence'>;

/** Its own options, checked under its own name: a `persistence` given here would be ignored. */
const memoryCalibrationStoreOptionsSchema = lazySchema(() =>
  persistenceCalibrationStoreOptionsSchema.omit({ persistence: true }),
);

/** Calibrations kept in process memory (a {@link PersistenceCalibrationStore} over `MemoryPersistence`). */
export class MemoryCalibrationStore extends PersistenceCalibrationStore {
  constructor(options: MemoryCalibrationStoreOptions = {}) {
    const own = parseOptions(memoryCalibrationStoreOptionsSchema, options, 'MemoryCalibrationStore options');
    super({ ...own, persistence: new MemoryPersistence() });
  }
}
