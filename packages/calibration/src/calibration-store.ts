import { parseInput } from '@ctxguard/core';
import { escapeKeyPart } from '@ctxguard/persistence';
import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { type ContentClass, contentClassSchema } from './content-class.js';

/** What a calibration is for: one provider/model, optionally one content class. */
export interface CalibrationKey {
  provider: string;
  model: string;
  contentClass?: ContentClass | undefined;
}

/** A learned characters-per-token figure and how far it can be trusted. */
export interface Calibration {
  provider: string;
  model: string;
  contentClass?: ContentClass | undefined;
  /** EWMA of the observed characters per token. */
  charsPerToken: number;
  /** Observations merged so far. */
  samples: number;
  /** `min(1, samples / minSamplesForConfidence)`: 0 = unknown, 1 = trusted. */
  confidence: number;
  /** Epoch milliseconds of the last update. */
  updatedAt: number;
}

/** One observation to merge. */
export interface CalibrationUpdate extends CalibrationKey {
  /** Observed characters per token; finite and positive. */
  charsPerToken: number;
  /**
   * How much of this observation to trust, in (0, 1] (default 1): the EWMA step is
   * `alpha × weight`. Lets a learner give little say to a class that was a small share of a request.
   */
  weight?: number | undefined;
}

/**
 * Stores and merges calibrations. Implement it to keep calibrations elsewhere; updates of one
 * key must not be lost when they run concurrently.
 */
export interface CalibrationStore {
  readonly specificationVersion: 'v1';
  /** The calibration of a key, or `null` when nothing was learned yet. */
  get(key: CalibrationKey): Promise<Calibration | null>;
  /** Merges one observation (EWMA) and returns the new calibration. */
  update(input: CalibrationUpdate): Promise<Calibration>;
  /** Every calibration, optionally of one provider (and model). */
  list(filter?: { provider?: string; model?: string }): Promise<Calibration[]>;
  /** Forgets one calibration. */
  delete(key: CalibrationKey): Promise<void>;
}

const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const nameSchema = lazySchema(() =>
  z
    .string()
    .min(1, 'must be a non-empty string')
    .max(512)
    .refine((s) => !/[\u0000-\u001f]/.test(s), 'must not contain control characters')
    .refine((s) => !loneSurrogate.test(s), 'must be well-formed Unicode (no lone surrogates)'),
);

/** Schema of a calibration key. */
export const calibrationKeySchema = lazySchema(() =>
  z.object({
    provider: nameSchema,
    model: nameSchema,
    contentClass: contentClassSchema.optional(),
  }),
);

/** Largest characters-per-token accepted: no tokenizer packs more into a token. */
export const MAX_CHARS_PER_TOKEN = 1000;

/** Schema of an update: a finite, positive `charsPerToken` and an optional weight in (0, 1]. */
export const calibrationUpdateSchema = lazySchema(() =>
  z.strictObject({
    ...calibrationKeySchema.shape,
    charsPerToken: z
      .number()
      .refine(Number.isFinite, 'must be a finite number')
      .refine((n) => n > 0, 'must be positive')
      .refine((n) => n <= MAX_CHARS_PER_TOKEN, `must be at most ${MAX_CHARS_PER_TOKEN}`),
    weight: z
      .number()
      .refine(Number.isFinite, 'must be a finite number')
      .refine((n) => n > 0 && n <= 1, 'must be in (0, 1]')
      .optional(),
  }),
);

/** Schema of a calibration as a store gives it back (what a counter may apply). */
export const calibrationSchema = lazySchema(() =>
  calibrationKeySchema.extend({
    charsPerToken: z.number().positive().max(MAX_CHARS_PER_TOKEN),
    samples: z.number().int().nonnegative(),
    confidence: z.number().min(0).max(1),
    updatedAt: z.number().finite(),
  }),
);

/**
 * Storage key of a calibration: `calibration:{provider}/{model}` or
 * `calibration:{provider}/{model}:{contentClass}`, with `%`, `/` and `:` inside provider and
 * model escaped as `%25`, `%2F` and `%3A`, so no two identities share a key (Ollama's model
 * `codellama:code` is `calibration:ollama/codellama%3Acode`).
 */
export function calibrationKey(key: CalibrationKey): string {
  return storageKeyOf(parseInput(calibrationKeySchema, key, 'calibrationKey key'));
}

/** {@link calibrationKey} of a key already checked (the stores parse theirs at their own boundary). */
export function storageKeyOf(key: CalibrationKey): string {
  const base = `calibration:${escapeKeyPart(key.provider)}/${escapeKeyPart(key.model)}`;
  return key.contentClass === undefined ? base : `${base}:${key.contentClass}`;
}

/** The storage-key prefix of every calibration of a provider (and model), for `list`. */
export function calibrationKeyPrefix(provider?: string, model?: string): string {
  if (provider === undefined) return 'calibration:';
  return `calibration:${escapeKeyPart(provider)}/${model === undefined ? '' : escapeKeyPart(model)}`;
}

const calibrationStoreMethods = ['get', 'update', 'list', 'delete'] as const;

/** Whether `value` is a {@link CalibrationStore}: its four methods (for option checks). */
export function isCalibrationStore(value: unknown): value is CalibrationStore {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return calibrationStoreMethods.every((method) => typeof record[method] === 'function');
}
