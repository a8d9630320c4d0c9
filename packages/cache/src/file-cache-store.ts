import { parseOptions } from '@ctxguard/core';
import { FilePersistence } from '@ctxguard/persistence';
import { lazySchema } from '@ctxguard/shared';
import { z } from 'zod';
import { PersistenceCacheStore } from './persistence-cache-store.js';

/** Options of {@link FileCacheStore}. */
export const fileCacheStoreOptionsSchema = lazySchema(() =>
  z.strictObject({
    /** Folder that holds the entries (one file per entry); created when missing. */
    dir: z.string().min(1, 'dir must be a non-empty path'),
  }),
);

/** Options of {@link FileCacheStore}. */
export type FileCacheStoreOptions = z.input<typeof fileCacheStoreOptionsSchema>;

/**
 * Node-only cache store keeping one file per entry in `dir`, written atomically by
 * `FilePersistence`. `clear()` empties the folder's entries; give the cache its own folder.
 */
export class FileCacheStore extends PersistenceCacheStore {
  /** Folder holding the entries. */
  readonly dir: string;
  /** Resolves once the folder exists; every operation waits for it too. */
  readonly ready: Promise<void>;

  constructor(options: FileCacheStoreOptions) {
    const parsed = parseOptions(fileCacheStoreOptionsSchema, options, 'FileCacheStore options');
    const persistence = new FilePersistence({ dir: parsed.dir });
    super({ persistence });
    this.dir = parsed.dir;
    this.ready = persistence.ready;
  }
}
