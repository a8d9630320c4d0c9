import {
  describeZodIssues,
  type HistoryEntry,
  type HistoryMetadata,
  historyEntrySchema,
  InvalidInputError,
  type MessageInput,
  type PersistableHistory,
  parseOptions,
} from '@ctxguard/core';
import {
  type AtomicCreate,
  assertJsonSerializable,
  CorruptEntryError,
  type Persistence,
  supportsAtomicCreate,
} from '@ctxguard/persistence';
import { describeValue, formatPath, lazySchema, randomUuid, storeNamespaceSchema } from '@ctxguard/shared';
import { z } from 'zod';
import {
  type ConversationHistoryOptions,
  conversationHistoryOptionsSchema,
  InMemoryConversationHistory,
} from './conversation-history.js';
import { compactionIdOf } from './effective-history.js';
import { HistoryConflictError } from './errors.js';
import { ownMetadataValue, setMetadataKey } from './metadata.js';
import {
  describeZodError,
  HISTORY_FORMAT_VERSION,
  readStored,
  type StoredCommit,
  storedChunkSchema,
  storedClaimSchema,
  storedCommitSchema,
  storedHeadSchema,
} from './stored-format.js';
import { assertConsistentEntries } from './validate-entries.js';

const isFunction = (value: unknown): boolean => typeof value === 'function';

/** Options of {@link HistoryStore}. */
export const historyStoreOptionsSchema = lazySchema(() =>
  z
    .object({
      /** First segment of every key the store writes (`{namespace}:{conversation}:…`). */
      namespace: storeNamespaceSchema().min(1).default('history'),
      /** Entries per stored chunk; appending rewrites at most one chunk. */
      chunkSize: z.number().int().min(1).max(100_000).default(256),
      /** How often `save`, `update` and `append` try before giving up with `storage_conflict`. */
      maxAttempts: z.number().int().min(1).max(1000).default(12),
      /** Base of the randomized exponential back-off between attempts. */
      backoffMs: z.number().min(0).max(60_000).default(5),
      /** Upper bound of one back-off pause. */
      maxBackoffMs: z.number().min(0).max(600_000).default(400),
      /**
       * How long a writer's claim on the next version stays valid (stores without `setIfAbsent`). A
       * claim older than this is treated as left behind by a crashed writer and ignored; a save that
       * takes longer than half of it gives up.
       */
      leaseMs: z.number().int().min(10).max(86_400_000).default(30_000),
      /** Clock in epoch milliseconds (claims and lease checks). Default `Date.now`. */
      now: z.custom<() => number>(isFunction, 'must be a function returning epoch milliseconds').optional(),
      /** Options for the histories `load` creates (id generator, marker, keepSystemPrompt). */
      history: z
        .custom<Omit<ConversationHistoryOptions, 'metadata'>>(
          (value) => typeof value === 'object' && value !== null,
          'must be an options object',
        )
        .optional(),
    })
    .strict(),
);

/** Options accepted by {@link HistoryStore}. */
export type HistoryStoreOptions = z.input<typeof historyStoreOptionsSchema>;

/** What one successful `save` did. */
export interface SaveResult {
  /** The stored version the history now matches. */
  readonly version: number;
  /** Chunks and entries written by this save (0 when nothing had changed). */
  readonly chunksWritten: number;
  readonly entriesWritten: number;
  /** True when another writer's newer version was merged in first (only appends can be). */
  readonly rebased: boolean;
  /** Attempts used (1 without contention). */
  readonly attempts: number;
}

/** A stored chunk: its key and the entries it holds. */
interface StoredChunk {
  readonly key: string;
  readonly entries: readonly HistoryEntry[];
}

/** Entries `[from, to)` a save writes as one new chunk, and the characters of their JSON. */
interface Piece {
  readonly from: number;
  to: number;
  chars: number;
}

/**
 * Most characters of entry JSON a new chunk takes (an entry larger than this gets a chunk of its
 * own). Bounds what an append rewrites (the last, partial chunk) and what a compaction rewrites
 * around the summary it inserts, when entries are large (tool results of several KB).
 */
const CHUNK_CHARS = 64 * 1024;

interface Tracked {
  readonly conversationId: string;
  /** True for a history this store never loaded, created or saved under this id. */
  readonly untracked?: boolean;
  readonly version: number;
  /** The `id` of that version's commit (it tells commits of equal versions apart); absent for version 0. */
  readonly commitId?: string;
  readonly chunks: readonly { readonly key: string; readonly entries: readonly HistoryEntry[] }[];
  readonly metadataJson: string;
}

/** What one save attempt writes: every chunk of the new version, the new ones among them, its metadata. */
interface SavePlan {
  readonly entries: readonly HistoryEntry[];
  readonly chunks: readonly { readonly key: string; readonly entries: readonly HistoryEntry[] }[];
  readonly written: readonly { readonly key: string; readonly entries: readonly HistoryEntry[] }[];
  /** Random; names the new chunks and becomes the commit's id. */
  readonly token: string;
  readonly metadataJson: string;
  readonly unchanged: boolean;
}

interface Head {
  readonly version: number;
  readonly commit: StoredCommit | undefined;
}

interface ReadState {
  readonly history: InMemoryConversationHistory;
  readonly tracked: Tracked;
}

/** A chunk a commit lists is gone: a concurrent save may have just superseded that commit. */
class MissingChunkError extends Error {
  constructor(
    readonly key: string,
    readonly commitKey: string,
  ) {
    super(`the chunk is missing (listed by ${commitKey})`);
  }
}

const storedEntriesSchema = lazySchema(() => z.array(historyEntrySchema));
const epochMillisecondsSchema = lazySchema(() => z.number());

/**
 * How a commit went. `builtOn`: won because a newer version already holds this commit's entries
 * (the head hint and collection are the newer commits'). `listed`: this writer's commit record was
 * written, then withdrawn (see `#follows`); a version built on it in the meantime may list its
 * chunks, so they are kept.
 */
type CommitOutcome = { won: true; builtOn?: true } | { won: false; reason: string; listed?: true };

/**
 * The optional create-if-absent capability of a `Persistence` (defined in `@ctxguard/persistence`).
 * When the store has it, `HistoryStore` commits with it alone (no claims, no `list`), and a commit
 * can never overwrite another's, however late it lands.
 */
export type { AtomicCreate } from '@ctxguard/persistence';

/**
 * Saves and loads {@link InMemoryConversationHistory} conversations with their metadata on any
 * `Persistence`. Entries are stored in write-once chunks, so appending rewrites at most one chunk;
 * each save commits a new version whose manifest is written last, so a half-finished save leaves
 * the previous version loadable. Concurrent writers are detected through per-version claims and,
 * when the store offers {@link AtomicCreate}, an atomic create of the commit record; an append-only
 * change is re-applied on top of the newer version, anything else fails with {@link HistoryConflictError}.
 * Only the newest two versions are kept: each save collects older commit records and the chunks
 * only they list.
 */
export class HistoryStore {
  readonly #persistence: Persistence;
  readonly #options: z.output<typeof historyStoreOptionsSchema>;
  readonly #historyOptions: Omit<ConversationHistoryOptions, 'metadata'>;
  readonly #now: () => number;
  readonly #tracked = new WeakMap<PersistableHistory, Tracked>();
  readonly #entryChars = new WeakMap<HistoryEntry, number>();
  readonly #atomic: boolean;

  constructor(persistence: Persistence, options: HistoryStoreOptions = {}) {
    if (
      typeof persistence !== 'object' ||
      persistence === null ||
      !['get', 'set', 'delete', 'list', 'has'].every((name) => isFunction((persistence as never)[name]))
    ) {
      throw new InvalidInputError('persistence must implement get, set, delete, list and has', [
        'persistence',
      ]);
    }
    this.#persistence = persistence;
    this.#atomic = supportsAtomicCreate(persistence);
    this.#options = parseOptions(historyStoreOptionsSchema, options, 'HistoryStore options');
    this.#historyOptions = this.#options.history ?? {};
    parseOptions(conversationHistoryOptionsSchema, this.#historyOptions, 'HistoryStore options.history');
    this.#now = this.#options.now ?? Date.now;
  }

  /** Loads a conversation, or `null` when it was never saved. The history remembers the version it came from. */
  async load(conversationId: string): Promise<InMemoryConversationHistory | null> {
    assertConversationId(conversationId);
    const state = await this.#readLatest(conversationId);
    if (!state) return null;
    this.#tracked.set(state.history, state.tracked);
    return state.history;
  }

  /** Loads a conversation, or starts an empty one that will be created on its first `save`. */
  async loadOrCreate(conversationId: string): Promise<InMemoryConversationHistory> {
    const loaded = await this.load(conversationId);
    if (loaded) return loaded;
    const history = new InMemoryConversationHistory(this.#historyOptions);
    this.#tracked.set(history, { conversationId, version: 0, chunks: [], metadataJson: '{}' });
    return history;
  }

  /** The latest stored version of a conversation (0 when it does not exist). */
  async version(conversationId: string): Promise<number> {
    assertConversationId(conversationId);
    return (await this.#head(conversationId)).version;
  }

  /** The stored version `history` was loaded from or last saved as, for `conversationId`. */
  versionOf(history: PersistableHistory, conversationId: string): number | undefined {
    const tracked = this.#tracked.get(history);
    return tracked?.conversationId === conversationId ? tracked.version : undefined;
  }

  /**
   * Saves `history` as the next version of the conversation, writing only the chunks that
   * changed. When another writer saved first and `history` only gained entries since it was
   * loaded, those entries (and metadata keys it changed) are re-applied on top of the newer
   * version, and `history` is updated to match; otherwise {@link HistoryConflictError}. With
   * `rebase: false` any newer version is a {@link HistoryConflictError}: for a writer that redoes
   * its change on the newer version, which may hold the same entries already.
   * A history that was never loaded or saved here can only create a new conversation.
   */
  async save(
    conversationId: string,
    history: PersistableHistory,
    { rebase = true }: { rebase?: boolean } = {},
  ): Promise<SaveResult> {
    return this.#save(conversationId, history, rebase !== false);
  }

  /**
   * Runs `change` on the latest stored state and saves it; when another writer gets in first,
   * reloads and runs `change` again (up to `maxAttempts`). Returns the saved history and what
   * `change` returned.
   */
  async update<T>(
    conversationId: string,
    change: (history: InMemoryConversationHistory) => T | Promise<T>,
  ): Promise<{ history: InMemoryConversationHistory; result: T; version: number; attempts: number }> {
    assertConversationId(conversationId);
    if (!isFunction(change)) throw new InvalidInputError('change must be a function', ['change']);
    for (let attempt = 1; ; attempt++) {
      const history = await this.loadOrCreate(conversationId);
      const result = await change(history);
      try {
        const saved = await this.#save(conversationId, history, false);
        return { history, result, version: saved.version, attempts: attempt };
      } catch (error) {
        if (!(error instanceof HistoryConflictError) || attempt >= this.#options.maxAttempts) throw error;
        await this.#backoff(attempt);
      }
    }
  }

  /** Appends messages to the stored conversation (creating it when absent), retrying on conflicts. */
  async append(
    conversationId: string,
    messages: MessageInput | readonly MessageInput[],
  ): Promise<{ entries: HistoryEntry[]; version: number; attempts: number }> {
    const list = Array.isArray(messages) ? (messages as readonly MessageInput[]) : [messages as MessageInput];
    const { result, version, attempts } = await this.update(conversationId, (history) =>
      history.appendMany(list),
    );
    return { entries: result, version, attempts };
  }

  /** Deletes every stored key of a conversation. */
  async delete(conversationId: string): Promise<void> {
    assertConversationId(conversationId);
    for (const key of await this.#persistence.list(this.#prefix(conversationId))) {
      await this.#persistence.delete(key);
    }
  }

  /** Ids of the conversations stored under this namespace, sorted. */
  async conversations(): Promise<string[]> {
    const ids = new Set<string>();
    const root = `${this.#options.namespace}:`;
    for (const key of await this.#persistence.list(root)) {
      const match = /^([^:]+):commit:\d+$/.exec(key.slice(root.length));
      const id = match ? decodeConversationId(match[1]!) : undefined;
      if (id !== undefined) ids.add(id);
    }
    return [...ids].sort();
  }

  async #save(conversationId: string, history: PersistableHistory, rebase: boolean): Promise<SaveResult> {
    assertConversationId(conversationId);
    assertPersistable(history);
    assertJsonSerializable('metadata', history.metadata);
    let rebased = false;
    for (let attempt = 1; attempt <= this.#options.maxAttempts; attempt++) {
      const tracked = this.#trackedFor(history, conversationId);
      const head = await this.#head(conversationId);
      if (!isBasedOn(tracked, head)) {
        if (tracked.untracked) {
          throw new HistoryConflictError(
            conversationId,
            0,
            head.version,
            'the conversation already exists and this history was not loaded from it (use load or loadOrCreate)',
          );
        }
        if (!rebase) {
          throw new HistoryConflictError(
            conversationId,
            tracked.version,
            head.version,
            'a newer version was saved',
          );
        }
        await this.#rebase(conversationId, history, tracked, head);
        rebased = true;
        continue;
      }
      if (!this.#atomic && head.commit?.atomic === true) {
        throw new InvalidInputError(
          `conversation ${JSON.stringify(conversationId)} is committed with setIfAbsent; this store's persistence lacks it and could overwrite those commits (pass the persistence itself, or a wrapper that forwards setIfAbsent)`,
          ['persistence'],
        );
      }
      const plan = this.#plan(conversationId, history, tracked);
      if (plan.unchanged) {
        return { version: tracked.version, chunksWritten: 0, entriesWritten: 0, rebased, attempts: attempt };
      }
      const next = tracked.version + 1;
      const commit = this.#commitRecord(next, plan);
      for (const chunk of plan.written) {
        await this.#persistence.set(chunk.key, { format: HISTORY_FORMAT_VERSION, entries: chunk.entries });
      }
      const outcome = await this.#commit(conversationId, next, commit, plan, tracked);
      if (outcome.won) {
        this.#tracked.set(history, {
          conversationId,
          version: next,
          commitId: commit.id,
          chunks: plan.chunks,
          metadataJson: plan.metadataJson,
        });
        // Built on already: the head hint and the collection are the newer commits' to write.
        if (!outcome.builtOn) await this.#afterCommit(conversationId, next, tracked, plan.chunks);
        return {
          version: next,
          chunksWritten: plan.written.length,
          entriesWritten: plan.written.reduce((sum, chunk) => sum + chunk.entries.length, 0),
          rebased,
          attempts: attempt,
        };
      }
      if (!outcome.listed) await this.#deleteQuietly(plan.written.map((chunk) => chunk.key));
      if (!rebase) {
        throw new HistoryConflictError(conversationId, tracked.version, undefined, outcome.reason);
      }
      if (attempt < this.#options.maxAttempts) await this.#backoff(attempt);
    }
    const tracked = this.#trackedFor(history, conversationId);
    throw new HistoryConflictError(
      conversationId,
      tracked.version,
      undefined,
      `other writers kept winning for ${this.#options.maxAttempts} attempts`,
    );
  }

  /**
   * Characters of an entry's JSON (entries are immutable, so each is measured once). Something
   * that is no entry, or not JSON, counts 0: the checks before anything is written reject it.
   */
  #charsOf(entry: HistoryEntry): number {
    if (typeof entry !== 'object' || entry === null) return 0;
    let chars = this.#entryChars.get(entry);
    if (chars === undefined) {
      try {
        chars = JSON.stringify(entry)?.length ?? 0;
      } catch {
        chars = 0;
      }
      this.#entryChars.set(entry, chars);
    }
    return chars;
  }

  #chunkChars(chunk: StoredChunk): number {
    return chunk.entries.reduce((sum, entry) => sum + this.#charsOf(entry), 0);
  }

  #trackedFor(history: PersistableHistory, conversationId: string): Tracked {
    const tracked = this.#tracked.get(history);
    if (tracked?.conversationId === conversationId) return tracked;
    return { conversationId, version: 0, chunks: [], metadataJson: '{}', untracked: true };
  }

  /**
   * Splits the history into chunks, reusing every stored chunk whose entries are unchanged wherever
   * it now starts (a compaction inserts its summary before what it hides, which shifts everything
   * after it), and checks the entries it is about to write (all of them for a history that is not
   * an {@link InMemoryConversationHistory}, which keeps its entries consistent itself). A chunk
   * holds up to `chunkSize` entries and {@link CHUNK_CHARS} characters of JSON.
   */
  #plan(conversationId: string, history: PersistableHistory, tracked: Tracked): SavePlan {
    const entries = entriesOf(history);
    const metadataJson = JSON.stringify(history.metadata);
    const { chunkSize } = this.#options;
    const byFirstEntry = new Map<HistoryEntry, StoredChunk>();
    for (const chunk of tracked.chunks) {
      const first = chunk.entries[0];
      if (first !== undefined) byFirstEntry.set(first, chunk);
    }
    const lastStored = tracked.chunks.at(-1);
    /** Reused chunks and pieces of entries to write, in order. */
    const layout: (StoredChunk | Piece)[] = [];
    let piece: Piece | undefined;
    const add = (index: number): void => {
      const chars = this.#charsOf(entries[index]!);
      if (piece === undefined || piece.to - piece.from >= chunkSize || piece.chars + chars > CHUNK_CHARS) {
        piece = { from: index, to: index, chars: 0 };
        layout.push(piece);
      }
      piece!.to = index + 1;
      piece!.chars += chars;
    };
    let position = 0;
    while (position < entries.length) {
      const chunk = byFirstEntry.get(entries[position]!);
      const count = chunk?.entries.length ?? 0;
      const same =
        chunk !== undefined &&
        position + count <= entries.length &&
        chunk.entries.every((entry, i) => entry === entries[position + i]);
      if (!same) {
        add(position++);
        continue;
      }
      // The last stored chunk is filled up by what follows it while that still fits.
      const next = entries[position + count];
      const open =
        chunk === lastStored &&
        next !== undefined &&
        count < chunkSize &&
        this.#chunkChars(chunk) + this.#charsOf(next) <= CHUNK_CHARS;
      // A short stored chunk right after a piece that it fits in joins that piece, so short chunks
      // do not pile up where compactions keep inserting. Sizes are only taken where needed: a save
      // costs what changed, not the whole history.
      const joins =
        piece !== undefined &&
        piece.to - piece.from + count <= chunkSize &&
        piece.chars + this.#chunkChars(chunk) <= CHUNK_CHARS;
      if (open || joins) {
        for (let i = 0; i < count; i++) add(position + i);
        position += count;
        continue;
      }
      layout.push(chunk);
      piece = undefined;
      position += count;
    }
    const pieces = layout.filter((part): part is Piece => 'from' in part);
    assertSavableEntries(entries, pieces, keepsEntriesConsistent(history));
    const token = `${this.#clock().toString(36)}-${randomUuid()}`;
    const chunks: StoredChunk[] = [];
    const written: StoredChunk[] = [];
    for (const part of layout) {
      if (!('from' in part)) {
        chunks.push(part);
        continue;
      }
      const chunk = {
        key: `${this.#prefix(conversationId)}chunk:${token}:${written.length}`,
        entries: entries.slice(part.from, part.to),
      };
      assertJsonSerializable(chunk.key, chunk.entries);
      written.push(chunk);
      chunks.push(chunk);
    }
    const unchanged =
      tracked.version > 0 &&
      written.length === 0 &&
      chunks.length === tracked.chunks.length &&
      chunks.every((chunk, index) => chunk === tracked.chunks[index]) &&
      metadataJson === tracked.metadataJson;
    return { entries, chunks, written, token, metadataJson, unchanged };
  }

  /** The manifest of `version`, checked against the stored format before anything is written. */
  #commitRecord(version: number, plan: SavePlan): StoredCommit {
    const commit: StoredCommit = {
      format: HISTORY_FORMAT_VERSION,
      version,
      chunks: plan.chunks.map((chunk) => ({ key: chunk.key, count: chunk.entries.length })),
      entryCount: plan.entries.length,
      metadata: JSON.parse(plan.metadataJson) as HistoryMetadata,
      savedAt: this.#clock(),
      id: plan.token,
      ...(this.#atomic ? { atomic: true as const } : {}),
    };
    const checked = storedCommitSchema.safeParse(commit);
    if (!checked.success) {
      throw new InvalidInputError(
        `Invalid commit record for version ${version}, it could not be loaded back: ${describeZodError(checked.error)}`,
        describeZodIssues(checked.error)[0]?.path ?? [],
      );
    }
    return commit;
  }

  /** The `now` option's clock, checked: a commit with any other `savedAt` could never be loaded. */
  #clock(): number {
    const now: unknown = this.#now();
    if (epochMillisecondsSchema.safeParse(now).success) return now as number;
    throw new InvalidInputError(
      `HistoryStore option now must return epoch milliseconds as a finite number; it returned ${describeValue(now)}`,
      ['now'],
    );
  }

  /**
   * Commits `version` unless another writer did. With {@link AtomicCreate} the commit record is
   * created only if absent. Without it, this writer writes a claim, lists the claims for that
   * version (of two writers racing, at least one sees the other and backs off), checks that nobody
   * committed it already, then writes the commit record. Either way the commit stands only if the
   * version it is based on is still stored as this writer read it ({@link HistoryStore.#follows}).
   */
  async #commit(
    conversationId: string,
    version: number,
    commit: StoredCommit,
    plan: SavePlan,
    basedOn: Tracked,
  ): Promise<CommitOutcome> {
    const commitKey = this.#commitKey(conversationId, version);
    if (this.#atomic && supportsAtomicCreate(this.#persistence)) {
      if (!(await this.#persistence.setIfAbsent(commitKey, commit)))
        return { won: false, reason: `version ${version} was saved by another writer` };
      return this.#standsOn(conversationId, commitKey, basedOn, plan);
    }
    const prefix = `${this.#prefix(conversationId)}claim:${version}:`;
    const claimKey = `${prefix}${plan.token}`;
    const claimedAt = this.#clock();
    await this.#persistence.set(claimKey, { format: HISTORY_FORMAT_VERSION, at: claimedAt });
    try {
      for (const key of await this.#persistence.list(prefix)) {
        if (key === claimKey) continue;
        const raw = await this.#persistence.get(key);
        if (raw === null) continue;
        const claim = readStored(storedClaimSchema, key, raw);
        if (this.#clock() - claim.at > this.#options.leaseMs) {
          await this.#deleteQuietly([key]);
          continue;
        }
        return { won: false, reason: `another writer is saving version ${version}` };
      }
      if (await this.#persistence.has(commitKey)) {
        return { won: false, reason: `version ${version} was saved by another writer` };
      }
      if (this.#clock() - claimedAt > this.#options.leaseMs / 2) {
        return { won: false, reason: 'the save took longer than half the lease' };
      }
      await this.#persistence.set(commitKey, commit);
      return await this.#standsOn(conversationId, commitKey, basedOn, plan);
    } finally {
      await this.#deleteQuietly([claimKey]);
    }
  }

  /**
   * A commit just written stands when it follows `basedOn`, or when a later version already holds
   * an entry it added: another writer loaded it and committed on top of it, which is how `basedOn`'s
   * record can have been collected meanwhile (withdrawn, it would be saved again: twice). Else its
   * record is withdrawn.
   */
  async #standsOn(
    conversationId: string,
    commitKey: string,
    basedOn: Tracked,
    plan: SavePlan,
  ): Promise<CommitOutcome> {
    if (await this.#follows(conversationId, basedOn)) return { won: true };
    if (await this.#builtOn(conversationId, basedOn, plan)) return { won: true, builtOn: true };
    await this.#deleteQuietly([commitKey]);
    return {
      won: false,
      reason: `version ${basedOn.version} was superseded and collected while this save committed on it`,
      listed: true,
    };
  }

  /**
   * Whether the version a commit is based on is still stored as this writer read it, asked once
   * the commit landed. Collection deletes old commit records, which frees their keys: a writer
   * stalled since it read version N could create the record of N + 1 long after another writer
   * committed N + 1 and later versions. Records are collected oldest first (`#collectBelow`), so
   * N + 1's record can have gone only after N's: while N's record is there, the same commit, the
   * new record is N's only successor. A first version has no record before it; the head hint,
   * written before any collection and never collected, tells that the conversation existed.
   */
  async #follows(conversationId: string, basedOn: Tracked): Promise<boolean> {
    if (basedOn.version === 0) return !(await this.#persistence.has(`${this.#prefix(conversationId)}head`));
    const raw = await this.#persistence.get(this.#commitKey(conversationId, basedOn.version));
    const commit = storedCommitSchema.safeParse(raw);
    return commit.success && commit.data.id === basedOn.commitId;
  }

  /**
   * Whether one of the newest two versions holds an entry `plan` added to `basedOn` (a version on
   * a branch a stalled writer left in a collected key is never among them). Their chunks are read
   * newest first, where added entries sit; only a commit that did not stand reads them all.
   */
  async #builtOn(conversationId: string, basedOn: Tracked, plan: SavePlan): Promise<boolean> {
    const known = new Set(basedOn.chunks.flatMap((chunk) => chunk.entries.map((entry) => entry.id)));
    const added = new Set(plan.entries.filter((entry) => !known.has(entry.id)).map((entry) => entry.id));
    if (added.size === 0) return false;
    const head = await this.#newestCommitted(conversationId);
    for (const version of [head, head - 1].filter((v) => v > basedOn.version + 1)) {
      const raw = await this.#persistence.get(this.#commitKey(conversationId, version));
      const commit = storedCommitSchema.safeParse(raw);
      if (!commit.success) continue;
      for (const ref of [...commit.data.chunks].reverse()) {
        const chunk = storedChunkSchema.safeParse(await this.#persistence.get(ref.key));
        const ids = chunk.success ? chunk.data.entries.map((entry) => (entry as { id?: unknown })?.id) : [];
        if (ids.some((id) => typeof id === 'string' && added.has(id))) return true;
      }
    }
    return false;
  }

  /**
   * Best-effort housekeeping once `version` is committed: the head hint, then what no reader can
   * need any more. A reader reads the newest commit record, then its chunks one by one, so one that
   * read version − 1 just before this commit must still find its chunks: the newest two commit
   * records are kept, with every chunk either lists. Older records go, with the chunks neither of
   * the two lists (a chunk left out of a version is never listed again: saves reuse chunks of the
   * version they commit on only). A reader still on an older version misses a chunk or a record
   * and reads the newest version again; see {@link HistoryStore.#head} and `#readLatest`.
   */
  async #afterCommit(
    conversationId: string,
    version: number,
    previous: Tracked,
    chunks: readonly { key: string }[],
  ) {
    try {
      await this.#persistence.set(`${this.#prefix(conversationId)}head`, {
        format: HISTORY_FORMAT_VERSION,
        version,
      });
      const kept = new Set([...chunks, ...previous.chunks].map((chunk) => chunk.key));
      await this.#collectBelow(conversationId, version - 1, kept);
    } catch {
      // The commit is durable; what was not collected is collected by a later save's walk.
    }
  }

  /**
   * Deletes the commit records below `oldestKept` with their chunks that are not `kept`. The
   * records are found walking down to the first version that has none (older ones went with an
   * earlier save), which also finds what an interrupted collection left; they are deleted oldest
   * first, each after its chunks, so a record is never gone while an older one is there (`#follows`
   * relies on it). A record this
   * store cannot read stops the walk and nothing is deleted.
   */
  async #collectBelow(conversationId: string, oldestKept: number, kept: ReadonlySet<string>): Promise<void> {
    const found: { key: string; chunks: readonly string[] }[] = [];
    for (let version = oldestKept - 1; version > 0; version--) {
      const key = this.#commitKey(conversationId, version);
      const raw = await this.#persistence.get(key);
      if (raw === null) break;
      const commit = storedCommitSchema.safeParse(raw);
      if (!commit.success) return;
      found.push({ key, chunks: commit.data.chunks.map((chunk) => chunk.key) });
    }
    for (const { key, chunks } of found.reverse()) {
      await this.#deleteQuietly(chunks.filter((chunk) => !kept.has(chunk)));
      await this.#persistence.delete(key); // A failure stops here: no newer record goes before it.
    }
  }

  /** Re-applies the entries `history` gained since `tracked` on top of the newer stored version. */
  async #rebase(conversationId: string, history: PersistableHistory, tracked: Tracked, head: Head) {
    const conflict = (reason: string) =>
      new HistoryConflictError(conversationId, tracked.version, head.version, reason);
    const local = entriesOf(history);
    const base = tracked.chunks.flatMap((chunk) => chunk.entries);
    if (local.length < base.length || base.some((entry, index) => entry !== local[index])) {
      throw conflict('this copy was compacted or rewound since it was loaded; only appends can be merged');
    }
    const remote = await this.#readLatest(conversationId);
    if (!remote) throw conflict('the conversation was deleted');
    const remoteIds = new Map<string, HistoryEntry>();
    for (const entry of remote.history.entries()) {
      remoteIds.set(entry.id, entry);
      const compactionId = compactionIdOf(entry);
      if (compactionId !== undefined) remoteIds.set(compactionId, entry);
    }
    // An identical entry already stored under its id is this writer's own earlier, interrupted
    // save; a different one under the same id means two writers' id generators collided.
    const appended = local.slice(base.length).filter((entry) => {
      const stored = remoteIds.get(entry.id);
      if (stored === undefined) return true;
      if (JSON.stringify(stored) === JSON.stringify(entry)) return false;
      throw conflict(
        `entry id ${JSON.stringify(entry.id)} is also used by another writer; ids must be unique across writers (generateId)`,
      );
    });
    if (appended.some((entry) => compactionIdOf(entry) !== undefined || entry.condenseMember !== undefined)) {
      throw conflict('this copy was compacted since it was loaded; only appends can be merged');
    }
    const metadata = mergeMetadata(
      JSON.parse(tracked.metadataJson) as HistoryMetadata,
      JSON.parse(JSON.stringify(history.metadata)) as HistoryMetadata,
      remote.history.metadata,
      conflict,
    );
    history.replaceState([...remote.history.entries(), ...appended], metadata);
    this.#tracked.set(history, remote.tracked);
  }

  /** Reads the latest committed version, retrying when a concurrent save removes what it was reading. */
  async #readLatest(conversationId: string): Promise<ReadState | null> {
    let lastVersion = -1;
    for (;;) {
      const head = await this.#head(conversationId);
      if (head.version === 0 || !head.commit) return null;
      try {
        return await this.#read(conversationId, head.version, head.commit);
      } catch (error) {
        if (!(error instanceof MissingChunkError)) throw error;
        if (head.version === lastVersion) {
          throw new CorruptEntryError(error.key, undefined, error, error.message);
        }
        lastVersion = head.version;
      }
    }
  }

  async #read(conversationId: string, version: number, commit: StoredCommit): Promise<ReadState> {
    const commitKey = this.#commitKey(conversationId, version);
    const listed = commit.chunks.reduce((sum, ref) => sum + ref.count, 0);
    if (listed !== commit.entryCount) {
      throw new CorruptEntryError(
        commitKey,
        undefined,
        undefined,
        `entryCount is ${commit.entryCount} but its chunks hold ${listed} entries`,
      );
    }
    const chunks: { key: string; raw: unknown[] }[] = [];
    for (const ref of commit.chunks) {
      const value = await this.#persistence.get(ref.key);
      if (value === null) throw new MissingChunkError(ref.key, commitKey);
      const chunk = readStored(storedChunkSchema, ref.key, value);
      if (chunk.entries.length !== ref.count) {
        throw new CorruptEntryError(
          ref.key,
          undefined,
          undefined,
          `holds ${chunk.entries.length} entries, ${commitKey} lists ${ref.count}`,
        );
      }
      chunks.push({ key: ref.key, raw: chunk.entries });
    }
    let history: InMemoryConversationHistory;
    try {
      history = InMemoryConversationHistory.fromEntries(
        chunks.flatMap((chunk) => chunk.raw),
        { ...this.#historyOptions, metadata: commit.metadata },
      );
    } catch (error) {
      throw corruptEntriesError(error, chunks, commitKey);
    }
    const entries = history.entries();
    const tracked: Tracked = {
      conversationId,
      version,
      commitId: commit.id,
      chunks: chunks.reduce<{ key: string; entries: readonly HistoryEntry[] }[]>((list, chunk) => {
        const start = list.reduce((sum, c) => sum + c.entries.length, 0);
        list.push({ key: chunk.key, entries: entries.slice(start, start + chunk.raw.length) });
        return list;
      }, []),
      metadataJson: JSON.stringify(commit.metadata),
    };
    return { history, tracked };
  }

  /** Finds the latest committed version: the head hint, then probing forward for newer commits. */
  async #head(conversationId: string): Promise<Head> {
    const headKey = `${this.#prefix(conversationId)}head`;
    const rawHead = await this.#persistence.get(headKey);
    let version = rawHead === null ? 0 : readStored(storedHeadSchema, headKey, rawHead).version;
    for (;;) {
      while (await this.#persistence.has(this.#commitKey(conversationId, version + 1))) version++;
      if (version === 0) return { version: 0, commit: undefined };
      const key = this.#commitKey(conversationId, version);
      const raw = await this.#persistence.get(key);
      if (raw === null) {
        // Collected since the head hint was written or probed: newer versions were committed.
        // Only on this path is the newest listed.
        const newest = await this.#newestCommitted(conversationId);
        if (newest > version) {
          version = newest;
          continue;
        }
        throw new CorruptEntryError(key, undefined, undefined, 'the commit record is missing');
      }
      const commit = readStored(storedCommitSchema, key, raw);
      if (commit.version !== version) {
        throw new CorruptEntryError(key, undefined, undefined, `records version ${commit.version}`);
      }
      return { version, commit };
    }
  }

  /** The highest version with a commit record, by listing; 0 when there is none. */
  async #newestCommitted(conversationId: string): Promise<number> {
    const prefix = `${this.#prefix(conversationId)}commit:`;
    let newest = 0;
    for (const key of await this.#persistence.list(prefix)) {
      const suffix = key.slice(prefix.length);
      const version = /^\d{1,15}$/.test(suffix) ? Number(suffix) : 0;
      if (version > newest) newest = version;
    }
    return newest;
  }

  #prefix(conversationId: string): string {
    return `${this.#options.namespace}:${encodeURIComponent(conversationId)}:`;
  }

  #commitKey(conversationId: string, version: number): string {
    return `${this.#prefix(conversationId)}commit:${version}`;
  }

  async #deleteQuietly(keys: readonly string[]): Promise<void> {
    for (const key of keys) {
      try {
        await this.#persistence.delete(key);
      } catch {
        // Leftover keys are harmless: nothing refers to them.
      }
    }
  }

  async #backoff(attempt: number): Promise<void> {
    const ceiling = Math.min(
      this.#options.maxBackoffMs,
      this.#options.backoffMs * 2 ** Math.min(attempt, 16),
    );
    const delay = Math.random() * ceiling;
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

function assertConversationId(conversationId: unknown): asserts conversationId is string {
  if (typeof conversationId !== 'string' || conversationId.length === 0 || conversationId.length > 1024) {
    throw new InvalidInputError('conversationId must be a non-empty string of at most 1024 characters', [
      'conversationId',
    ]);
  }
  if (/\p{Cs}/u.test(conversationId)) {
    throw new InvalidInputError('conversationId must be well-formed Unicode (it contains a lone surrogate)', [
      'conversationId',
    ]);
  }
}

/** Decodes the conversation id part of a key, or `undefined` for a key this store did not write. */
function decodeConversationId(encoded: string): string | undefined {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
}

/** Three-way merge of top-level metadata keys; a key both sides changed differently is a conflict. */
function mergeMetadata(
  base: HistoryMetadata,
  local: HistoryMetadata,
  remote: HistoryMetadata,
  conflict: (reason: string) => Error,
): HistoryMetadata {
  const merged: HistoryMetadata = {};
  const keys = new Set([...Object.keys(base), ...Object.keys(local), ...Object.keys(remote)]);
  for (const key of keys) {
    const [b, l, r] = [base, local, remote].map((record) => {
      const value = ownMetadataValue(record, key);
      return value === undefined ? undefined : JSON.stringify(value);
    });
    let pick: HistoryMetadata;
    if (l === b) pick = remote;
    else if (r === b || r === l) pick = local;
    else throw conflict(`metadata.${key} was changed here and by the other writer`);
    const value = ownMetadataValue(pick, key);
    if (value !== undefined) setMetadataKey(merged, key, value);
  }
  return merged;
}

function assertPersistable(history: unknown): asserts history is PersistableHistory {
  const candidate = history as Partial<Record<keyof PersistableHistory, unknown>> | null;
  if (typeof candidate !== 'object' || candidate === null) {
    throw new InvalidInputError(
      'history must be a ConversationHistory with entries(), metadata and replaceState()',
      ['history'],
    );
  }
  for (const method of ['entries', 'replaceState'] as const) {
    if (typeof candidate[method] !== 'function') {
      throw new InvalidInputError(`history.${method} must be a function`, ['history', method]);
    }
  }
  if (
    typeof candidate.metadata !== 'object' ||
    candidate.metadata === null ||
    Array.isArray(candidate.metadata)
  ) {
    throw new InvalidInputError('history.metadata must be an object', ['history', 'metadata']);
  }
}

/** True when `tracked` is based on the latest commit: same version number and same commit. */
function isBasedOn(tracked: Tracked, head: Head): boolean {
  if (head.version !== tracked.version) return false;
  return head.commit === undefined || head.commit.id === tracked.commitId;
}

/** `history.entries()`, which must be an array: anything else would be saved as an empty version. */
function entriesOf(history: PersistableHistory): readonly HistoryEntry[] {
  const entries: unknown = history.entries();
  if (!Array.isArray(entries)) {
    throw new InvalidInputError(
      `history.entries() must return an array of history entries; it returned ${describeValue(entries)}`,
      ['history', 'entries()'],
    );
  }
  return entries;
}

/**
 * An {@link InMemoryConversationHistory} (unless a subclass replaces `entries()`) validates every
 * entry on the way in and keeps them consistent, so the store need not check them all again.
 */
function keepsEntriesConsistent(history: PersistableHistory): boolean {
  return (
    history instanceof InMemoryConversationHistory &&
    history.entries === InMemoryConversationHistory.prototype.entries
  );
}

/**
 * Checks what a save would write, so that it never commits a version it cannot load: the entries
 * of the `runs` (the ones not in reused chunks) against the entry schema, and, unless the history
 * keeps them consistent itself, the ids and compaction tags of all of them.
 */
function assertSavableEntries(
  entries: readonly HistoryEntry[],
  runs: readonly { from: number; to: number }[],
  consistent: boolean,
): void {
  for (const { from, to } of runs) {
    const parsed = storedEntriesSchema.safeParse(entries.slice(from, to));
    if (parsed.success) continue;
    const [first, ...rest] = describeZodIssues(parsed.error)[0]?.path ?? [];
    const path = [typeof first === 'number' ? first + from : 0, ...rest];
    throw new InvalidInputError(
      `${formatPath(path, 'history.entries()')}: ${describeZodIssues(parsed.error)[0]?.message}`,
      ['history', 'entries()', ...path],
    );
  }
  if (!consistent) assertConsistentEntries(entries, 'history.entries()');
}

/** Names the chunk that holds a malformed entry; a problem across entries (ids, tags) is the commit's. */
function corruptEntriesError(
  error: unknown,
  chunks: readonly { key: string; raw: unknown[] }[],
  commitKey: string,
): CorruptEntryError {
  for (const chunk of chunks) {
    const parsed = storedEntriesSchema.safeParse(chunk.raw);
    if (!parsed.success) {
      return new CorruptEntryError(
        chunk.key,
        undefined,
        parsed.error,
        describeZodError(parsed.error, 'entries'),
      );
    }
  }
  return new CorruptEntryError(
    commitKey,
    undefined,
    error,
    error instanceof Error ? error.message : undefined,
  );
}
