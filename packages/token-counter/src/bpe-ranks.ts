import type { ExactEncoding } from './exact-engine.js';

/** An encoding's mergeable ranks, indexed two ways for fast lookups. */
export interface RankTable {
  readonly encoding: ExactEncoding;
  /** Token text (valid UTF-8 tokens only) → rank: whole pre-tokenizer pieces hit this directly. */
  readonly byText: Map<string, number>;
  /** Token bytes as a binary string (one char per byte, 0–255) → rank: every token. */
  readonly byBytes: Map<string, number>;
  /** Rank → token bytes as a binary string (for decoding and tests). */
  readonly bytesOf: (rank: number) => string | undefined;
  /** Number of mergeable tokens. */
  readonly size: number;
}

/** Raw rank list as `gpt-tokenizer` ships it: index = rank, value = token text or its bytes. */
export type RawRanks = readonly (string | readonly number[] | undefined)[];

/** Loads the rank list `gpt-tokenizer` bundles for an encoding (pure JS, works offline and on edge runtimes). */
export async function loadRawRanks(encoding: ExactEncoding): Promise<RawRanks> {
  const module =
    encoding === 'o200k_base'
      ? await import('gpt-tokenizer/bpeRanks/o200k_base')
      : await import('gpt-tokenizer/bpeRanks/cl100k_base');
  return module.default as RawRanks;
}

/** Builds the lookup maps from a raw rank list. */
export function buildRankTable(encoding: ExactEncoding, raw: RawRanks): RankTable {
  const byText = new Map<string, number>();
  const byBytes = new Map<string, number>();
  const bytes: (string | undefined)[] = new Array(raw.length);
  let size = 0;
  for (let rank = 0; rank < raw.length; rank++) {
    const value = raw[rank];
    if (value === undefined) continue;
    size++;
    if (typeof value === 'string') {
      byText.set(value, rank);
      const binary = isAscii(value) ? value : utf8Binary(value);
      byBytes.set(binary, rank);
      bytes[rank] = binary;
    } else {
      const binary = String.fromCharCode(...value);
      byBytes.set(binary, rank);
      bytes[rank] = binary;
    }
  }
  return { encoding, byText, byBytes, bytesOf: (rank) => bytes[rank], size };
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * UTF-8 bytes of `text` as a binary string (one char per byte). Lone surrogates become U+FFFD,
 * as `TextEncoder` (and tiktoken's string conversion) does.
 */
export function utf8Binary(text: string): string {
  const codes: number[] = [];
  let out = '';
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      codes.push(c);
    } else if (c < 0x800) {
      codes.push(0xc0 | (c >> 6), 0x80 | (c & 0x3f));
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        i++;
        codes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 0x3f), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
      } else {
        codes.push(0xef, 0xbf, 0xbd);
      }
    } else {
      codes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
    }
    if (codes.length >= 8192) {
      out += String.fromCharCode.apply(null, codes);
      codes.length = 0;
    }
  }
  return codes.length > 0 ? out + String.fromCharCode.apply(null, codes) : out;
}
