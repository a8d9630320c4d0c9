import { checkEncoding, checkText, type Encoding } from './encoding.js';
import { BpeMerger, PairRanks } from './pair-merge.js';
import { pieceRegex } from './pretokenizer.js';
import { loadRankTable, type RankTable } from './rank-table.js';

/** Pieces up to this many UTF-16 units have their token count cached. */
const CACHED_PIECE_LENGTH = 48;
/** The piece cache is cleared when it reaches this many entries. */
const PIECE_CACHE_ENTRIES = 65_536;
/** A UTF-8 buffer grown past this many bytes for one huge piece is not kept. */
const RETAINED_BUFFER_BYTES = 1 << 16;

/**
 * Exact BPE for one OpenAI encoding, in pure JavaScript: tiktoken's pre-tokenizer, direct lookups
 * for pieces that are whole tokens, a count cache for short pieces, and an O(n log n) merge so long
 * unbroken runs (CJK, base64, minified code) cost near-linear time. Agrees with tiktoken exactly;
 * special-token text (`<|endoftext|>`) counts as ordinary text. Create one with {@link BpeEncoder.load}.
 */
export class BpeEncoder {
  /** The encoding this encoder counts. */
  readonly encoding: Encoding;
  private readonly table: RankTable;
  private readonly regex: RegExp;
  private readonly merger: BpeMerger;
  private readonly cache = new Map<string, number>();
  private readonly utf8 = new TextEncoder();
  private buffer = new Uint8Array(256);

  private constructor(table: RankTable) {
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

  /**
   * Loads the encoding's ranks (bundled with this package: no network, no WASM) and builds a
   * new encoder. Each call builds its own tables (about 0.2–0.5 s); keep the encoder and reuse it,
   * or use `loadEncoder`, which shares one per encoding.
   */
  static async load(encoding: Encoding): Promise<BpeEncoder> {
    const checked = checkEncoding(encoding);
    return new BpeEncoder(await loadRankTable(checked));
  }

  /** Exact number of tokens of `text`. */
  count(text: string): number {
    checkText(text);
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
      const length = this.toUtf8(piece);
      const n = this.merger.count(this.buffer, length);
      this.releaseBuffer();
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
    checkText(text);
    const re = this.regex;
    const byText = this.table.byText;
    const out: number[] = [];
    re.lastIndex = 0;
    for (let match = re.exec(text); match !== null; match = re.exec(text)) {
      const piece = match[0];
      const rank = byText.get(piece);
      if (rank !== undefined) {
        out.push(rank);
        continue;
      }
      const length = this.toUtf8(piece);
      for (const r of this.merger.encode(this.buffer, length)) out.push(r);
      this.releaseBuffer();
    }
    return out;
  }

  /** Writes `piece` as UTF-8 into the reused buffer (lone surrogates become U+FFFD, as in tiktoken); returns its byte length. */
  private toUtf8(piece: string): number {
    // A UTF-16 code unit takes at most 3 UTF-8 bytes.
    if (this.buffer.length < piece.length * 3) this.buffer = new Uint8Array(piece.length * 3);
    return this.utf8.encodeInto(piece, this.buffer).written;
  }

  private releaseBuffer(): void {
    if (this.buffer.length > RETAINED_BUFFER_BYTES) this.buffer = new Uint8Array(256);
  }
}
