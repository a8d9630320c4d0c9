import { parseInput, parseOptions } from '@ctxguard/core';
import { CorruptEntryError, MemoryPersistence, type Persistence } from '@ctxguard/persistence';
import { z } from 'zod';
import {
  type Calibration,
  type CalibrationKey,
  type CalibrationStore,
  type CalibrationUpdate,
  calibrationKey,
  calibrationKeySchema,
  calibrationUpdateSchema,
  MAX_CHARS_PER_TOKEN,
} from './calibration-store.js';
import { contentClassSchema } from './content-class.js';

/** Default EWMA step. */
export const DEFAULT_ALPHA = 0.2;
/** Samples after which a calibration is fully trusted. */
export const DEFAULT_MIN_SAMPLES_FOR_CONFIDENCE = 10;

/** Options of {@link PersistenceCalibrationStore}. */
export const persistenceCalibrationStoreOptionsSchema = z.object({
  /** Where calibrations live (any `Persistence`: memory, file, Redis…). */
  persistence: z.custom<Persistence>(
    (v) =>
      typeof v === 'object' &&
      v !== null &&
      typeof (v as Persistence).get === 'function' &&
      typeof (v as Persistence).set === 'function',
    'must be a Persistence',
  ),
  /** EWMA step in (0, 1]: `new = alpha × observed + (1 − alpha) × old`. */
  alpha: z.number().gt(0).lte(1).default(DEFAULT_ALPHA),
  /** Samples until confidence reaches 1. */
  minSamplesForConfidence: z.number().int().positive().default(DEFAULT_MIN_SAMPLES_FOR_CONFIDENCE),
  /** Clock, for tests. */
  now: z.custom<() => number>((v) => typeof v === 'function', 'must be a function').optional(),
});

/** Options of {@link PersistenceCalibrationStore} (before defaults are applied). */
export type PersistenceCalibrationStoreOptions = z.input<typeof persistenceCalibrationStoreOptionsSchema>;

const storedSchema = z.object({
  v: z.literal(1),
  provider: z.string().min(1),
  model: z.string().min(1),
  contentClass: contentClassSchema.optional(),
  charsPerToken: z.number().positive().max(MAX_CHARS_PER_TOKEN),
  samples: z.number().int().positive(),
  updatedAt: z.number().finite(),
});

type Stored = z.output<typeof storedSchema>;

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
 * serialized in-process, so concurrent `update()` calls never lose an observation.
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
    const parsed = parseInput(calibrationKeySchema, key, 'calibration key');
    const storageKey = calibrationKey(parsed);
    const stored = await this.#read(storageKey);
    return stored && sameIdentity(stored, parsed) ? this.#toCalibration(stored) : null;
  }

  async update(input: CalibrationUpdate): Promise<Calibration> {
    const parsed = parseInput(calibrationUpdateSchema, input, 'calibration update');
    const storageKey = calibrationKey(parsed);
    return this.#serialized(storageKey, async () => {
      const read = await this.#read(storageKey);
      // The key format is ambiguous (model `codellama:code` without a class and model `codellama`
      // with class `code` share one key): never merge into another identity's entry.
      const existing = read && sameIdentity(read, parsed) ? read : null;
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
      await this.#persistence.set(storageKey, next);
      return this.#toCalibration(next);
    });
  }

  async list(filter: { provider?: string; model?: string } = {}): Promise<Calibration[]> {
    const f = parseInput(
      z.object({ provider: z.string().min(1).optional(), model: z.string().min(1).optional() }),
      filter ?? {},
      'calibration filter',
    );
    const prefix = f.provider === undefined ? 'calibration:' : `calibration:${f.provider}/${f.model ?? ''}`;
    const out: Calibration[] = [];
    for (const key of await this.#persistence.list(prefix)) {
      const stored = await this.#read(key);
      if (!stored) continue;
      if (f.provider !== undefined && stored.provider !== f.provider) continue;
      if (f.model !== undefined && stored.model !== f.model) continue;
      out.push(this.#toCalibration(stored));
    }
    return out;
  }

  async delete(key: CalibrationKey): Promise<void> {
    const parsed = parseInput(calibrationKeySchema, key, 'calibration key');
    const storageKey = calibrationKey(parsed);
    await this.#serialized(storageKey, () => this.#persistence.delete(storageKey));
  }

  async #read(storageKey: string): Promise<Stored | null> {
    const raw = await this.#persistence.get<unknown>(storageKey);
    if (raw === null) return null;
    const result = storedSchema.safeParse(raw);
    if (!result.success) throw new CorruptEntryError(storageKey, undefined, result.error);
    return result.data;
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

/** Calibrations kept in process memory (a {@link PersistenceCalibrationStore} over `MemoryPersistence`). */
export class MemoryCalibrationStore extends PersistenceCalibrationStore {
  constructor(options: MemoryCalibrationStoreOptions = {}) {
    super({ ...(options ?? {}), persistence: new MemoryPersistence() });
  }
}
