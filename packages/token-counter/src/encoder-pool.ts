import { BpeEncoder } from '@ctxguard/bpe';
import { importUnbundled } from '@ctxguard/shared';
import type { EngineKind, ExactEncoding, ExactEngine } from './exact-engine.js';

/** What a pool shares per (engine, encoding): the loaded encoder and how to free it. */
interface SharedEncoder {
  count(text: string): number;
  encode(text: string): number[];
  free(): void;
  readonly linear: boolean;
}

interface Slot {
  refs: number;
  loading: Promise<SharedEncoder>;
  loaded?: SharedEncoder;
}

/**
 * Loads each exact encoder once, shares it between handles, and frees it when the last handle
 * is disposed (tiktoken's WASM memory is released; `@ctxguard/bpe` tables are dropped for the GC).
 * Counters use {@link sharedEncoderPool}. The `tiktoken` engine needs
 * the optional `tiktoken` package; acquiring it without that package rejects.
 */
export class EncoderPool {
  private readonly slots = new Map<string, Slot>();

  /** A handle on the shared encoder; loads it on first use. Dispose the handle when done. */
  async acquire(kind: EngineKind, encoding: ExactEncoding): Promise<ExactEngine> {
    const key = `${kind}:${encoding}`;
    let slot = this.slots.get(key);
    if (!slot) {
      const created: Slot = { refs: 0, loading: loadEncoder(kind, encoding) };
      created.loading.then(
        (encoder) => {
          created.loaded = encoder;
        },
        () => {
          if (this.slots.get(key) === created) this.slots.delete(key);
        },
      );
      this.slots.set(key, created);
      slot = created;
    }
    slot.refs++;
    let encoder: SharedEncoder;
    try {
      encoder = await slot.loading;
    } catch (error) {
      slot.refs--;
      throw error;
    }
    return this.handle(kind, encoding, key, slot, encoder);
  }

  /**
   * A handle on the shared encoder when it is already loaded (another counter loaded it), without
   * waiting; `undefined` otherwise. Dispose the handle when done.
   */
  acquireLoaded(kind: EngineKind, encoding: ExactEncoding): ExactEngine | undefined {
    const key = `${kind}:${encoding}`;
    const slot = this.slots.get(key);
    if (slot?.loaded === undefined) return undefined;
    slot.refs++;
    return this.handle(kind, encoding, key, slot, slot.loaded);
  }

  /** Number of live handles on an encoder (0 once freed); for tests and diagnostics. */
  references(kind: EngineKind, encoding: ExactEncoding): number {
    return this.slots.get(`${kind}:${encoding}`)?.refs ?? 0;
  }

  private handle(
    kind: EngineKind,
    encoding: ExactEncoding,
    key: string,
    slot: Slot,
    encoder: SharedEncoder,
  ): ExactEngine {
    let disposed = false;
    const release = () => {
      if (disposed) return;
      disposed = true;
      slot.refs--;
      if (slot.refs === 0 && this.slots.get(key) === slot) {
        this.slots.delete(key);
        encoder.free();
      }
    };
    const guard = () => {
      if (disposed) throw new Error(`The ${kind} ${encoding} engine handle was disposed.`);
    };
    return {
      specificationVersion: 'v1',
      name: kind,
      encoding,
      linear: encoder.linear,
      count: (text) => {
        guard();
        return encoder.count(text);
      },
      encode: (text) => {
        guard();
        return encoder.encode(text);
      },
      dispose: release,
    };
  }
}

let shared: EncoderPool | undefined;

/** The process-wide pool every built-in counter shares (created on first use). */
export function sharedEncoderPool(): EncoderPool {
  shared ??= new EncoderPool();
  return shared;
}

async function loadEncoder(kind: EngineKind, encoding: ExactEncoding): Promise<SharedEncoder> {
  switch (kind) {
    case 'bpe': {
      let core: BpeEncoder | undefined = await BpeEncoder.load(encoding);
      const live = () => {
        if (!core) throw new Error(`The bpe ${encoding} encoder was freed.`);
        return core;
      };
      return {
        linear: true,
        count: (text) => live().count(text),
        encode: (text) => live().encode(text),
        free: () => {
          core = undefined;
        },
      };
    }
    case 'tiktoken': {
      const { get_encoding } = await importUnbundled<typeof import('tiktoken')>('tiktoken');
      let enc: ReturnType<typeof get_encoding> | undefined = get_encoding(encoding);
      const live = () => {
        if (!enc) throw new Error(`The tiktoken ${encoding} encoder was freed.`);
        return enc;
      };
      return {
        linear: false,
        count: (text) => live().encode_ordinary(text).length,
        encode: (text) => Array.from(live().encode_ordinary(text)),
        free: () => {
          enc?.free();
          enc = undefined;
        },
      };
    }
  }
}
