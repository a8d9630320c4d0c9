import type { Encoding } from './encoding.js';

/** An encoding's mergeable ranks, indexed two ways for fast lookups. */
export interface RankTable {
  readonly encoding: Encoding;
  /** Token text (valid UTF-8 tokens only) → rank: whole pre-tokenizer pieces hit this directly. */
  readonly byText: Map<string, number>;
  /** Token bytes as a binary string (one char per byte, 0–255) → rank: every token. */
  readonly byBytes: Map<string, number>;
  /** Rank → token bytes as a binary string (for merging and decoding). */
  readonly bytesOf: (rank: number) => string | undefined;
  /** Number of mergeable tokens. */
  readonly size: number;
}

/** Raw rank list as `gpt-tokenizer` ships it: index = rank, value = token text or its bytes. */
export type RawRanks = readonly (string | readonly number[] | undefined)[];

/** Loads the rank list `gpt-tokenizer` bundles for an encoding (pure JS, works offline and on edge runtimes). */
export async function loadRawRanks(encoding: Encoding): Promise<RawRanks> {
  const module =
    encoding === 'o200k_base'
      ? await import('gpt-tokenizer/bpeRanks/o200k_base')
      : await import('gpt-tokenizer/bpeRanks/cl100k_base');
  return module.default as RawRanks;
}

/** Builds the lookup maps from a raw rank list. */
export function buildRankTable(encoding: Encoding, raw: RawRanks): RankTable {
  const byText = new Map<string, number>();
  const byBytes = new Map<string, number>();
  const bytes: (string | undefined)[] = new Array(raw.length);
  const utf8 = new TextEncoder();
  let size = 0;
  for (let rank = 0; rank < raw.length; rank++) {
    const value = raw[rank];
    if (value === undefined) continue;
    size++;
    let binary: string;
    if (typeof value === 'string') {
      byText.set(value, rank);
      binary = isAscii(value) ? value : binaryString(utf8.encode(value));
    } else {
      binary = String.fromCharCode(...value);
    }
    byBytes.set(binary, rank);
    bytes[rank] = binary;
  }
  return { encoding, byText, byBytes, bytesOf: (rank) => bytes[rank], size };
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** Bytes as a binary string (one char per byte), the key form of {@link RankTable.byBytes}. */
function binaryString(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 8192)
    out += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192) as unknown as number[]);
  return out;
}
