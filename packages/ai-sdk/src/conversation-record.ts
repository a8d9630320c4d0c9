import type { Persistence } from '@ctxguard/persistence';
import { emptyServerEditStats, type ServerEditStats } from './anthropic-context-management.js';
import type { SentRecord } from './signed-reasoning.js';

/** What the middleware keeps per conversation beside the facade's history (in the same store). */
export interface ConversationRecord {
  /** The last prompt sent and the signed reasoning dropped so far. */
  signed: SentRecord | null;
  /** What the provider reported it cleared or compacted server-side. */
  serverEdits: ServerEditStats;
}

/** Key prefix of the records without a namespace, and with one. */
const KEY_PREFIX = 'ctxguard-ai-sdk:';
const namespacedPrefix = (namespace: string) => `ctxguard-ai-sdk/${namespace}:`;

function isRecord(value: unknown): value is ConversationRecord {
  return value !== null && typeof value === 'object' && 'serverEdits' in value && 'signed' in value;
}

/** Reads and writes {@link ConversationRecord}s in the guard's persistence, so every process sees them. */
export class ConversationRecords {
  readonly #persistence: Persistence;
  readonly #prefix: string;
  /** The last update of each conversation in this process: the next one waits for it. */
  readonly #updates = new Map<string, Promise<unknown>>();

  /** With the guard's `namespace`, so apps sharing one store keep their records apart as their histories. */
  constructor(persistence: Persistence, namespace?: string) {
    this.#persistence = persistence;
    this.#prefix = namespace === undefined ? KEY_PREFIX : namespacedPrefix(namespace);
  }

  /** The record of a conversation (an empty one when none is stored). */
  async load(conversationId: string): Promise<ConversationRecord> {
    const stored = await this.#persistence.get<unknown>(this.#prefix + conversationId);
    return isRecord(stored) ? stored : { signed: null, serverEdits: emptyServerEditStats() };
  }

  /**
   * Reads, changes and stores a conversation's record, one update at a time per conversation in
   * this process (overlapping calls each read what the one before them stored); returns what
   * `change` returned beside the new record.
   */
  update<T>(
    conversationId: string,
    change: (record: ConversationRecord) => { record: ConversationRecord; result: T },
  ): Promise<T> {
    const previous = this.#updates.get(conversationId) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        const { record, result } = change(await this.load(conversationId));
        await this.save(conversationId, record);
        return result;
      });
    this.#updates.set(conversationId, next);
    const forget = () => {
      if (this.#updates.get(conversationId) === next) this.#updates.delete(conversationId);
    };
    next.then(forget, forget);
    return next;
  }

  /** Stores a conversation's record. */
  async save(conversationId: string, record: ConversationRecord): Promise<void> {
    await this.#persistence.set(this.#prefix + conversationId, record);
  }
}
