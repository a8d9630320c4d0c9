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

const nameSchema = z
  .string()
  .min(1, 'must be a non-empty string')
  .max(512)
  .refine((s) => !/[\u0000-\u001f]/.test(s), 'must not contain control characters');

/** Schema of a calibration key. */
export const calibrationKeySchema = z.object({
  provider: nameSchema,
  model: nameSchema,
  contentClass: contentClassSchema.optional(),
});

/** Largest characters-per-token accepted: no tokenizer packs more into a token. */
export const MAX_CHARS_PER_TOKEN = 1000;

/** Schema of an update: a finite, positive `charsPerToken` and an optional weight in (0, 1]. */
export const calibrationUpdateSchema = calibrationKeySchema.extend({
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
});

/** Storage key of a calibration: `calibration:{provider}/{model}` or `calibration:{provider}/{model}:{contentClass}`. */
export function calibrationKey(key: CalibrationKey): string {
  const base = `calibration:${key.provider}/${key.model}`;
  return key.contentClass === undefined ? base : `${base}:${key.contentClass}`;
}
