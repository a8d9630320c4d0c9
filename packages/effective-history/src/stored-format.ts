import { describeZodIssues } from '@ctxguard/core';
import { CorruptEntryError } from '@ctxguard/persistence';
import { formatPath, lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { UnsupportedHistoryFormatError } from './errors.js';
import { historyMetadataSchema } from './metadata.js';

/** The stored-history format this package writes; it reads this one and older. */
export const HISTORY_FORMAT_VERSION = 1;

const version = lazySchema(() => z.number().int().nonnegative());

/** `…:head`: a hint of the latest committed version (the commits are the truth). */
export const storedHeadSchema = lazySchema(() =>
  z.object({ format: z.literal(HISTORY_FORMAT_VERSION), version }),
);

/** `…:commit:{version}`: the manifest of one committed version, written once by its only writer. */
export const storedCommitSchema = lazySchema(() =>
  z.object({
    format: z.literal(HISTORY_FORMAT_VERSION),
    version,
    chunks: z.array(z.object({ key: z.string().min(1), count: z.number().int().nonnegative() })),
    entryCount: z.number().int().nonnegative(),
    metadata: historyMetadataSchema,
    savedAt: z.number(),
    /**
     * Random id of this commit. Version numbers repeat after `delete(id)`, so a writer compares this
     * id, not only the number, to tell whether the version it based its copy on is still the latest.
     */
    id: z.string().min(1),
    /** Written with `setIfAbsent`: writers without it must not write this conversation. */
    atomic: z.literal(true).optional(),
  }),
);

/** `…:chunk:{token}:{n}`: a run of entries, written once and never changed. */
export const storedChunkSchema = lazySchema(() =>
  z.object({
    format: z.literal(HISTORY_FORMAT_VERSION),
    entries: z.array(z.unknown()),
  }),
);

/** `…:claim:{version}:{token}`: a writer announcing it is about to commit `version`. */
export const storedClaimSchema = lazySchema(() =>
  z.object({ format: z.literal(HISTORY_FORMAT_VERSION), at: z.number() }),
);

export type StoredCommit = z.output<typeof storedCommitSchema>;

/**
 * Parses a stored value, first checking its `format`: a newer one throws
 * {@link UnsupportedHistoryFormatError}, anything unreadable {@link CorruptEntryError}.
 */
export function readStored<S extends z.ZodType>(schema: S, key: string, value: unknown): z.output<S> {
  const format =
    typeof value === 'object' && value !== null ? (value as { format?: unknown }).format : undefined;
  if (typeof format === 'number' && format > HISTORY_FORMAT_VERSION) {
    throw new UnsupportedHistoryFormatError(key, format, HISTORY_FORMAT_VERSION);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new CorruptEntryError(key, undefined, parsed.error, describeZodError(parsed.error));
  return parsed.data;
}

/** The failing fields of a zod error on one line, e.g. `metadata: Invalid input: expected object`. */
export function describeZodError(error: z.ZodError, root = ''): string {
  const issues = describeZodIssues(error);
  const shown = issues.slice(0, 3).map((issue) => `${formatPath(issue.path, root)}: ${issue.message}`);
  if (issues.length > shown.length) shown.push(`…and ${issues.length - shown.length} more`);
  return shown.join('; ');
}
