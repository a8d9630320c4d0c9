import type { Persistence } from 'ctxguard';
import { emptyServerEditStats, type ServerEditStats } from './anthropic-context-management.js';
import type { SentRecord } from './signed-reasoning.js';

/** What the middleware keeps per conversation beside the facade's history (in the same store). */
export interface ConversationRecord {
  /** The last prompt sent and the signed reasoning dropped so far. */
  signed: SentRecord | null;
  /** What the provider reported it cleared or compacted server-side. */
  serverEdits: ServerEditStats;
}

const KEY_PREFIX = 'ctxguard-ai-sdk:';

function isRecord(value: unknown): value is ConversationRecord {
  return value !== null && typeof value === 'object' && 'serverEdits' in value && 'signed' in value;
}

/** Reads and writes {@link ConversationRecord}s in the guard's persistence, so every process sees them. */
export class ConversationRecords {
  readonly #persistence: Persistence;

  constructor(persistence: Persistence) {
    this.#persistence = persistence;
  }

  /** The record of a conversation (an empty one when none is stored). */
  async load(conversationId: string): Promise<ConversationRecord> {
    const stored = await this.#persistence.get<unknown>(KEY_PREFIX + conversationId);
    return isRecord(stored) ? stored : { signed: null, serverEdits: emptyServerEditStats() };
  }

  /** Stores a conversation's record. */
  async save(conversationId: string, record: ConversationRecord): Promise<void> {
    await this.#persistence.set(KEY_PREFIX + conversationId, record);
  }
}
