/** Pieces up to this many bytes keep their working arrays between calls (about 3.4 MB). */
const RETAINED_PIECE_BYTES = 1 << 16;
/** Largest number of cached token pairs before the pair cache starts over. */
const MAX_PAIR_ENTRIES = 1 << 22;

/**
 * Rank of the token two adjacent tokens merge into (or -1), memoised in an open-addressing
 * table keyed by the two ranks so repeated pairs cost a few integer operations.
 */
export class PairRanks {
  private keys = new Int32Array(1 << 13).fill(-1);
  private right = new Int32Array(1 << 13);
  private values = new Int32Array(1 << 13);
  private mask = (1 << 13) - 1;
  private size = 0;

  constructor(
    private readonly byBytes: Map<string, number>,
    private readonly bytesOf: (rank: number) => string | undefined,
  ) {}

  /** Rank of `left`+`right` as one token, or -1 when the concatenation is not a token. */
  get(left: number, right: number): number {
    const keys = this.keys;
    const mask = this.mask;
    let slot = (Math.imul(left, 0x9e3779b1) ^ Math.imul(right, 0x85ebca6b)) & mask;
    for (;;) {
      const k = keys[slot] as number;
      if (k === -1) break;
      if (k === left && this.right[slot] === right) return this.values[slot] as number;
      slot = (slot + 1) & mask;
    }
    const merged = this.byBytes.get(`${this.bytesOf(left) ?? ''}${this.bytesOf(right) ?? ''}`) ?? -1;
    this.insert(slot, left, right, merged);
    return merged;
  }

  private insert(slot: number, left: number, right: number, value: number): void {
    this.keys[slot] = left;
    this.right[slot] = right;
    this.values[slot] = value;
    this.size++;
    if (this.size * 2 > this.mask + 1) this.grow();
  }

  private grow(): void {
    const capacity = (this.mask + 1) * 2;
    const oldKeys = this.keys;
    const oldRight = this.right;
    const oldValues = this.values;
    const oldCapacity = this.mask + 1;
    if (this.size > MAX_PAIR_ENTRIES) {
      this.keys = new Int32Array(1 << 13).fill(-1);
      this.right = new Int32Array(1 << 13);
      this.values = new Int32Array(1 << 13);
      this.mask = (1 << 13) - 1;
      this.size = 0;
      return;
    }
    this.keys = new Int32Array(capacity).fill(-1);
    this.right = new Int32Array(capacity);
    this.values = new Int32Array(capacity);
    this.mask = capacity - 1;
    for (let i = 0; i < oldCapacity; i++) {
      const left = oldKeys[i] as number;
      if (left === -1) continue;
      const right = oldRight[i] as number;
      let slot = (Math.imul(left, 0x9e3779b1) ^ Math.imul(right, 0x85ebca6b)) & this.mask;
      while (this.keys[slot] !== -1) slot = (slot + 1) & this.mask;
      this.keys[slot] = left;
      this.right[slot] = right;
      this.values[slot] = oldValues[i] as number;
    }
  }
}

/**
 * Byte-pair merging of one pre-tokenizer piece, exactly as tiktoken does it (repeatedly merge the
 * adjacent pair whose concatenation has the lowest rank, leftmost first), in O(n log n) time:
 * parts form a linked list keyed by their start byte, candidate pairs sit in a binary heap keyed
 * by (rank, start), and entries made stale by a neighbouring merge are skipped by a revision stamp.
 * tiktoken and gpt-tokenizer rescan every pair after each merge, which is O(n²) on long pieces.
 */
export class BpeMerger {
  private end = new Int32Array(64);
  private prev = new Int32Array(64);
  private rev = new Int32Array(64);
  private rank = new Int32Array(64);
  private heapKey = new Float64Array(192);
  private heapRev = new Int32Array(192);
  private heapSize = 0;

  constructor(
    /** Rank of each single byte. */
    private readonly byteRanks: Int32Array,
    private readonly pairs: PairRanks,
  ) {}

  /** Number of tokens the first `length` bytes of `bytes` (one piece's UTF-8) merge into. */
  count(bytes: Uint8Array, length: number): number {
    const n = this.merge(bytes, length);
    this.release();
    return n;
  }

  /** Token ranks the first `length` bytes of `bytes` (one piece's UTF-8) merge into. */
  encode(bytes: Uint8Array, length: number): number[] {
    const n = this.merge(bytes, length);
    const out: number[] = new Array(n);
    const { end, rank } = this;
    let k = 0;
    for (let s = 0; s < length; s = end[s] as number) out[k++] = rank[s] as number;
    this.release();
    return out;
  }

  /**
   * Drops working arrays grown for a huge piece (about 52 bytes per input byte), so one long
   * run does not keep tens of megabytes alive in the shared encoder.
   */
  private release(): void {
    if (this.end.length <= RETAINED_PIECE_BYTES) return;
    this.end = new Int32Array(64);
    this.prev = new Int32Array(64);
    this.rev = new Int32Array(64);
    this.rank = new Int32Array(64);
    this.heapKey = new Float64Array(192);
    this.heapRev = new Int32Array(192);
  }

  /** Runs the merge; leaves part boundaries in `end`, part ranks in `rank`; returns the part count. */
  private merge(bytes: Uint8Array, m: number): number {
    this.ensure(m);
    const { end, prev, rev, rank, pairs, byteRanks } = this;
    for (let s = 0; s < m; s++) {
      end[s] = s + 1;
      prev[s] = s - 1;
      rev[s] = 0;
      rank[s] = byteRanks[bytes[s] as number] as number;
    }
    this.heapSize = 0;
    for (let s = 0; s < m - 1; s++) {
      const r = pairs.get(rank[s] as number, rank[s + 1] as number);
      if (r >= 0) this.push(r * 4294967296 + s, 0);
    }
    let parts = m;
    while (this.heapSize > 0) {
      const key = this.heapKey[0] as number;
      const version = this.heapRev[0] as number;
      this.pop();
      const s = key % 4294967296;
      const t = end[s] as number;
      if (t < 0 || rev[s] !== version) continue;
      const u = end[t] as number;
      end[s] = u;
      end[t] = -1;
      rank[s] = (key - s) / 4294967296;
      rev[s] = (rev[s] as number) + 1;
      parts--;
      if (u < m) {
        prev[u] = s;
        const r = pairs.get(rank[s] as number, rank[u] as number);
        if (r >= 0) this.push(r * 4294967296 + s, rev[s] as number);
      }
      const p = prev[s] as number;
      if (p >= 0) {
        rev[p] = (rev[p] as number) + 1;
        const r = pairs.get(rank[p] as number, rank[s] as number);
        if (r >= 0) this.push(r * 4294967296 + p, rev[p] as number);
      }
    }
    return parts;
  }

  private ensure(m: number): void {
    if (this.end.length < m) {
      const size = Math.max(m, this.end.length * 2);
      this.end = new Int32Array(size);
      this.prev = new Int32Array(size);
      this.rev = new Int32Array(size);
      this.rank = new Int32Array(size);
    }
    if (this.heapKey.length < 3 * m) {
      const size = Math.max(3 * m, this.heapKey.length * 2);
      this.heapKey = new Float64Array(size);
      this.heapRev = new Int32Array(size);
    }
  }

  private push(key: number, version: number): void {
    const keys = this.heapKey;
    const revs = this.heapRev;
    let i = this.heapSize++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pk = keys[parent] as number;
      if (pk <= key) break;
      keys[i] = pk;
      revs[i] = revs[parent] as number;
      i = parent;
    }
    keys[i] = key;
    revs[i] = version;
  }

  private pop(): void {
    const keys = this.heapKey;
    const revs = this.heapRev;
    const size = --this.heapSize;
    if (size === 0) return;
    const key = keys[size] as number;
    const version = revs[size] as number;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) break;
      const right = child + 1;
      if (right < size && (keys[right] as number) < (keys[child] as number)) child = right;
      const ck = keys[child] as number;
      if (ck >= key) break;
      keys[i] = ck;
      revs[i] = revs[child] as number;
      i = child;
    }
    keys[i] = key;
    revs[i] = version;
  }
}
