import { BpeMerger, PairRanks } from './bpe-merge.js';
import { buildRankTable, loadRawRanks, type RankTable, utf8Binary } from './bpe-ranks.js';
import type { ExactEncoding } from './exact-engine.js';
import { pieceRegex } from './pretokenizer.js';

/** Pieces up to this many UTF-16 units have their token count cached. */
const CACHED_PIECE_LENGTH = 48;
/** The piece cache is cleared when it reaches this many entries. */
const PIECE_CACHE_ENTRIES = 65_536;

/**
 * Our pure-JS exact BPE for one encoding: tiktoken's pre-tokenizer regex, direct lookups for
 * pieces that are whole tokens, a count cache for short pieces, and an O(n log n) merge
 * ({@link BpeMerger}) so long unbroken runs cost linear(ish) time. Agrees with tiktoken exactly.
 */
export class BpeCore {
  readonly encoding: ExactEncoding;
  private readonly table: RankTable;
  private readonly regex: RegExp;
  private readonly merger: BpeMerger;
  private readonly cache = new Map<string, number>();

  constructor(table: RankTable) {
    this.encoding = table.encoding;
    this.table = table;
    this.regex = pieceRegex(table.encoding);
    const byteRanks = new Int32Array(256);
    for (let b = 0; b < 256; b++) {
      const rank = table.byBytes.get(String.fromCharCode(b));
      if (rank === undefined) throw new Error(`${table.encoding} has no token for byte ${b}`);
      byteRanks[b] = rank;
    }
    this.merger = new BpeMerger(byteRanks, new PairRanks(table.byBytes, table.bytesOf));
  }

  /** Loads the rank table (bundled with `gpt-tokenizer`) and builds a core. */
  static async load(encoding: ExactEncoding): Promise<BpeCore> {
    return new BpeCore(buildRankTable(encoding, await loadRawRanks(encoding)));
  }

  /** Exact token count of `text` (special-token text counts as ordinary text). */
  count(text: string): number {
    const re = this.regex;
    const byText = this.table.byText;
    const cache = this.cache;
    let total = 0;
    re.lastIndex = 0;
    for (let match = re.exec(text); match !== null; match = re.exec(text)) {
      const piece = match[0];
      if (byText.has(piece)) {
        total++;
        continue;
      }
      const cached = cache.get(piece);
      if (cached !== undefined) {
        total += cached;
        continue;
      }
      const n = this.merger.count(toBinary(piece));
      if (piece.length <= CACHED_PIECE_LENGTH) {
        if (cache.size >= PIECE_CACHE_ENTRIES) cache.clear();
        cache.set(piece, n);
      }
      total += n;
    }
    return total;
  }

  /** Exact token ids of `text`. */
  encode(text: string): number[] {
    const re = this.regex;
    const byText = this.table.byText;
    const out: number[] = [];
    re.lastIndex = 0;
    for (let match = re.exec(text); match !== null; match = re.exec(text)) {
      const piece = match[0];
      const rank = byText.get(piece);
      if (rank !== undefined) out.push(rank);
      else for (const r of this.merger.encode(toBinary(piece))) out.push(r);
    }
    return out;
  }
}

function toBinary(piece: string): string {
  for (let i = 0; i < piece.length; i++) if (piece.charCodeAt(i) > 0x7f) return utf8Binary(piece);
  return piece;
}
