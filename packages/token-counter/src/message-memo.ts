import { type MessageSnapshot, matchesSnapshot, takeMessageSnapshot } from '@ctxguard/shared';
import { LRUCache } from 'lru-cache';
import { sha256Hex } from './text-hash.js';

/** Only what changes a message's token count is fingerprinted: role, name, content and OpenAI's `tool_calls`. */
interface CountedFields {
  role: unknown;
  name: unknown;
  content: unknown;
  tool_calls?: unknown;
}

/**
 * Fingerprints longer than this are replaced by their length and SHA-256 in the content-addressed
 * map, so an entry costs about the same for a 5 KB tool result as for a one-line message.
 */
const INLINE_KEY_CHARS = 256;

/** A message's values, one per scope, most recently stored last (shared by every object with that content). */
type ScopedValues<V> = [scope: string, value: V][];

/** What the memo remembers of one message object: its leaves, its content key and its values. */
interface IdentityEntry<V> {
  snapshot: MessageSnapshot;
  key: string | undefined;
  values: ScopedValues<V>;
}

/** Scopes kept per message: one per counting mode, and a newer revision replacing an older one soon enough. */
const MAX_SCOPES = 4;

/** What an entry costs beside its key, counted in characters so a memo of short keys stays bounded too. */
const ENTRY_OVERHEAD_CHARS = 96;

/** Options of {@link MessageMemo}. */
export interface MessageMemoOptions {
  /** Most content-addressed entries kept (least recently used dropped first). Default: bounded by `maxKeyChars` alone. */
  maxEntries?: number | undefined;
  /**
   * Most characters held in content keys (least recently used entries dropped first). A key is at
   * most a few hundred characters (longer messages are keyed by their SHA-256), so this bounds
   * memory. Default 16 Mi (16–32 MB).
   */
  maxKeyChars?: number | undefined;
}

/** The result of a memo lookup: the remembered value, or a way to remember one. */
export interface MemoSlot<V> {
  /** The remembered value, when there is one. */
  readonly value: V | undefined;
  /** Remembers `value` for this message and scope. */
  store(value: V): void;
}

const NOTHING: MemoSlot<never> = { value: undefined, store: () => {} };

/**
 * Remembers per-message values (token counts) so re-measuring a conversation costs only what
 * changed. Two levels, both exact: by object identity with a snapshot of every leaf value (an
 * edit made in place changes a leaf and misses), then by content (canonical JSON of role, name,
 * content and `tool_calls`, SHA-256 when long), so rebuilt message objects with the same content still hit.
 * Nothing else is fingerprinted: ids, timestamps and metadata do not count. A
 * message costs one snapshot and one content key whatever the number of scopes it has values in.
 */
export class MessageMemo<V extends NonNullable<unknown> = number> {
  private byObject = new WeakMap<object, IdentityEntry<V>>();
  private readonly byContent: LRUCache<string, ScopedValues<V>>;
  private hitCount = 0;
  private missCount = 0;

  constructor(options: MessageMemoOptions = {}) {
    // No default entry bound: lru-cache preallocates `max` slots, a cost every cold start would pay.
    this.byContent = new LRUCache<string, ScopedValues<V>>({
      ...(options.maxEntries !== undefined ? { max: Math.max(1, Math.floor(options.maxEntries)) } : {}),
      maxSize: Math.max(1, Math.floor(options.maxKeyChars ?? 16 * 2 ** 20)),
      sizeCalculation: (_values, key) => key.length + ENTRY_OVERHEAD_CHARS,
    });
  }

  /**
   * Looks `message` up in `scope` (a string naming model, mode and revision). Messages that
   * cannot be fingerprinted (cycles, class instances, very deep nesting) never hit and are not stored.
   */
  lookup(message: unknown, scope: string): MemoSlot<V> {
    try {
      return this.find(message, scope);
    } catch {
      // A getter or proxy trap threw while reading the message: nothing to remember it by.
      this.missCount++;
      return NOTHING;
    }
  }

  private find(message: unknown, scope: string): MemoSlot<V> {
    if (message === null || typeof message !== 'object') {
      this.missCount++;
      return NOTHING;
    }
    const fields = message as CountedFields;
    let entry = this.byObject.get(message);
    if (entry === undefined || !matchesSnapshot(fields, entry.snapshot)) {
      const snapshot = takeMessageSnapshot(fields);
      if (!snapshot) {
        this.missCount++;
        return NOTHING;
      }
      const key = contentKey(fields);
      const values = (key === undefined ? undefined : this.byContent.get(key)) ?? [];
      entry = { snapshot, key, values };
      this.byObject.set(message, entry);
    }
    const known = valueIn(entry.values, scope);
    if (known !== undefined) this.hitCount++;
    else this.missCount++;
    const { key, values } = entry;
    return {
      value: known,
      store: (value: V) => {
        storeIn(values, scope, value);
        if (key !== undefined) this.byContent.set(key, values);
      },
    };
  }

  /** The value remembered for this very object in `scope`, if its leaves are unchanged (no allocation). */
  peek(message: unknown, scope: string): V | undefined {
    try {
      return this.peekUnsafe(message, scope);
    } catch {
      return undefined;
    }
  }

  private peekUnsafe(message: unknown, scope: string): V | undefined {
    if (message === null || typeof message !== 'object') return undefined;
    const entry = this.byObject.get(message);
    if (entry === undefined) return undefined;
    const known = valueIn(entry.values, scope);
    if (known === undefined || !matchesSnapshot(message, entry.snapshot)) return undefined;
    this.hitCount++;
    return known;
  }

  /** The remembered value of `message` in `scope`, or `compute()` remembered for next time. */
  get(message: unknown, scope: string, compute: () => V): V {
    const known = this.peek(message, scope);
    if (known !== undefined) return known;
    const slot = this.lookup(message, scope);
    if (slot.value !== undefined) return slot.value;
    const value = compute();
    slot.store(value);
    return value;
  }

  /** Forgets everything. */
  clear(): void {
    this.byContent.clear();
    this.byObject = new WeakMap();
    this.hitCount = 0;
    this.missCount = 0;
  }

  /** Hits and misses since creation or the last `clear()`, and content-addressed entries held. */
  stats(): { hits: number; misses: number; entries: number } {
    return { hits: this.hitCount, misses: this.missCount, entries: this.byContent.size };
  }
}

function valueIn<V>(values: ScopedValues<V>, scope: string): V | undefined {
  for (let k = values.length - 1; k >= 0; k--) {
    const pair = values[k] as [string, V];
    if (pair[0] === scope) return pair[1];
  }
  return undefined;
}

/** Sets `scope`'s value in place (the array is shared by every object with this content), newest last. */
function storeIn<V>(values: ScopedValues<V>, scope: string, value: V): void {
  const at = values.findIndex((pair) => pair[0] === scope);
  if (at >= 0) values.splice(at, 1);
  values.push([scope, value]);
  if (values.length > MAX_SCOPES) values.shift();
}

function contentKey(fields: CountedFields): string | undefined {
  let json: string;
  try {
    const counted = [fields.role ?? null, fields.name ?? null, fields.content ?? null];
    json = JSON.stringify(fields.tool_calls === undefined ? counted : [...counted, fields.tool_calls]);
  } catch {
    return undefined;
  }
  if (json.length <= INLINE_KEY_CHARS) return json;
  return `\u0001${json.length}:${sha256Hex(json)}`;
}
