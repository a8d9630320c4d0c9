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

/** Loads and indexes an encoding's ranks; the table module is imported on first use only. */
export async function loadRankTable(encoding: Encoding): Promise<RankTable> {
  const module =
    encoding === 'o200k_base'
      ? await import('../ranks/o200k_base.js')
      : await import('../ranks/cl100k_base.js');
  return await buildRankTable(encoding, await unpack(module.default));
}

/** The tokens in rank order, each a length byte and its bytes (see scripts/build-rank-tables.ts). */
async function unpack(base64: string): Promise<Uint8Array> {
  if (typeof DecompressionStream !== 'function')
    throw new Error(
      '@ctxguard/bpe reads its rank tables with DecompressionStream, which this runtime lacks (Node 20, Deno, Bun 1.3.3+, Workers and browsers since 2023 have it)',
    );
  const binary = atob(base64);
  const deflated = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) deflated[i] = binary.charCodeAt(i);
  const stream = new Blob([deflated]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return await readAll(stream);
}

/**
 * The stream's bytes in one array. Read by hand rather than through `new Response(stream)`: in Node
 * the first use of `Response` loads the whole fetch implementation, tens of milliseconds at start.
 */
async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  const reader = stream.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) parts.push(read.value);
  const all = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.length;
  }
  return all;
}

/** Tokens indexed between two turns of the event loop: a few milliseconds of work each. */
const TOKENS_PER_SLICE = 4_096;
/** Bytes turned into key text between two turns of the event loop (a multiple of 8,192). */
const BYTES_PER_SLICE = 262_144;

/**
 * Builds the lookup maps from the packed tokens, in slices: the app's own work (a model response
 * streaming in, other requests) goes on while the first counter of a process loads its table.
 */
export async function buildRankTable(encoding: Encoding, packed: Uint8Array): Promise<RankTable> {
  const byText = new Map<string, number>();
  const byBytes = new Map<string, number>();
  const bytes: string[] = [];
  // ignoreBOM keeps a leading U+FEFF in the token's text instead of stripping it.
  const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
  const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const all = await binaryString(packed);
  for (let offset = 0, rank = 0; offset < all.length; rank++) {
    if (rank % TOKENS_PER_SLICE === TOKENS_PER_SLICE - 1) await nextTurn();
    const end = offset + 1 + all.charCodeAt(offset);
    const binary = all.slice(offset + 1, end);
    byBytes.set(binary, rank);
    bytes.push(binary);
    const text = isAscii(binary) ? binary : validUtf8(utf8, strictUtf8, packed.subarray(offset + 1, end));
    if (text !== undefined) byText.set(text, rank);
    offset = end;
  }
  return { encoding, byText, byBytes, bytesOf: (rank) => bytes[rank], size: bytes.length };
}

/**
 * Resolves on a later turn of the event loop, after I/O that is due. A message through a channel of
 * its own rather than a timer: test suites that fake timers would never see a faked one fire, and
 * browsers hold nested timers back by 4 ms each.
 */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(null);
  });
}

function isAscii(binary: string): boolean {
  for (let i = 0; i < binary.length; i++) if (binary.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** Bytes as a binary string (one char per byte), the key form of {@link RankTable.byBytes}, in slices. */
async function binaryString(bytes: Uint8Array): Promise<string> {
  const chunk = 8_192;
  let out = '';
  for (let i = 0; i < bytes.length; i += chunk) {
    if (i > 0 && i % BYTES_PER_SLICE === 0) await nextTurn();
    out += String.fromCharCode.apply(null, bytes.subarray(i, i + chunk) as unknown as number[]);
  }
  return out;
}

/**
 * The token's text, or `undefined` when its bytes are not valid UTF-8 on their own. Lenient
 * decoding marks invalid bytes with U+FFFD; only a text that holds one (invalid, or the character
 * itself) is decoded again strictly, so the many partial-character tokens throw no exception.
 */
function validUtf8(lenient: TextDecoder, strict: TextDecoder, bytes: Uint8Array): string | undefined {
  const text = lenient.decode(bytes);
  if (!text.includes('\uFFFD')) return text;
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}
