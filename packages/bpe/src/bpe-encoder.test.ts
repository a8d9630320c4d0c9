import fc from 'fast-check';
import { get_encoding, type Tiktoken } from 'tiktoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunks, loadCorpus } from '../../../test/support/real-text-corpus.ts';
import {
  longUnbrokenRuns,
  tokenizerEdgeCases,
  tokenizerStrings,
} from '../../../test/support/tokenizer-strings.ts';
import { BpeEncoder } from './bpe-encoder.js';
import { ENCODINGS, type Encoding } from './encoding.js';
import { splitPieces } from './pretokenizer.js';

const ours = new Map<Encoding, BpeEncoder>();
const reference = new Map<Encoding, Tiktoken>();
const bpe = (encoding: Encoding) => ours.get(encoding) as BpeEncoder;
const tiktoken = (encoding: Encoding) => {
  const enc = reference.get(encoding) as Tiktoken;
  return {
    count: (text: string) => enc.encode_ordinary(text).length,
    encode: (text: string) => Array.from(enc.encode_ordinary(text)),
  };
};

beforeAll(async () => {
  for (const encoding of ENCODINGS) {
    ours.set(encoding, await BpeEncoder.load(encoding));
    reference.set(encoding, get_encoding(encoding));
  }
}, 60_000);
afterAll(() => {
  for (const enc of reference.values()) enc.free();
});

describe('BpeEncoder agrees with tiktoken', () => {
  for (const encoding of ENCODINGS) {
    it(`counts and encodes identically on hand-picked edge cases (${encoding})`, () => {
      for (const text of tokenizerEdgeCases) {
        const expected = tiktoken(encoding).encode(text);
        expect(bpe(encoding).encode(text), text).toEqual(expected);
        expect(bpe(encoding).count(text), text).toBe(expected.length);
      }
    });

    it(`agrees on real documentation, sources, JSON and CJK from node_modules (${encoding})`, () => {
      const docs = loadCorpus();
      expect(docs.length).toBeGreaterThan(20);
      const classes = new Set<string>();
      for (const doc of docs) {
        classes.add(doc.cls);
        const text = doc.text.slice(0, 20_000);
        expect(bpe(encoding).count(text), doc.source).toBe(tiktoken(encoding).count(text));
      }
      expect([...classes].sort()).toEqual(['cjk', 'code', 'json', 'prose']);
    }, 60_000);
  }

  it('splits text into the same pieces tiktoken merges (round trip of token bytes)', () => {
    const engine = bpe('o200k_base');
    const text = tokenizerEdgeCases.join(' ');
    const pieces = splitPieces(text, 'o200k_base');
    expect(pieces.join('')).toBe(text);
    let total = 0;
    for (const piece of pieces) total += engine.count(piece);
    expect(total).toBe(engine.count(text));
  });

  it('stays exact on long unbroken runs (CJK, repeated letters, whitespace, base64)', () => {
    const runs = longUnbrokenRuns();
    for (const encoding of ENCODINGS) {
      for (const text of runs) expect(bpe(encoding).encode(text)).toEqual(tiktoken(encoding).encode(text));
    }
  }, 60_000);
});

describe('BpeEncoder after a huge piece', () => {
  it('lets go of the working arrays a long run needed, and counts the same afterwards', async () => {
    const core = await BpeEncoder.load('o200k_base');
    const internals = core as unknown as { merger: { heapKey: Float64Array }; buffer: Uint8Array };
    const working = () => internals.merger.heapKey.length;
    // 25,000 ideographs in one piece: 75 KB of UTF-8 (tiktoken itself is quadratic here; the
    // 3,000-character run above checks exactness against it).
    const run = Array.from({ length: 25_000 }, (_, i) =>
      String.fromCharCode(0x4e00 + ((i * 7919) % 20000)),
    ).join('');
    const first = core.count(run);
    // 75 KB needed 225K heap slots (1.8 MB of them alone); they are not kept, nor is the UTF-8 buffer.
    expect(working()).toBeLessThan(1 << 16);
    expect(internals.buffer.length).toBeLessThanOrEqual(1 << 16);
    const small = 'a short text after the long run';
    expect(core.count(small)).toBe(tiktoken('o200k_base').count(small));
    const ids = core.encode(run);
    expect(ids.length).toBe(first);
    expect(working()).toBeLessThan(1 << 16);
    expect(core.count(run)).toBe(first);
    expect(first).toBeGreaterThan(10_000);
  }, 60_000);
});

describe('property: BpeEncoder equals tiktoken', () => {
  const mixed = tokenizerStrings();

  for (const encoding of ENCODINGS) {
    it(`on random strings (${encoding})`, () => {
      fc.assert(
        fc.property(mixed, (text) => {
          expect(bpe(encoding).encode(text)).toEqual(tiktoken(encoding).encode(text));
        }),
        { numRuns: 400 },
      );
    });

    it(`on random slices of real text (${encoding})`, () => {
      const corpus = loadCorpus();
      const pieces = corpus.flatMap((d) => chunks(d.text, 600, 6));
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: pieces.length - 1 }),
          fc.nat(500),
          fc.nat(600),
          (i, from, len) => {
            const text = (pieces[i] as string).slice(from, from + len);
            expect(bpe(encoding).count(text)).toBe(tiktoken(encoding).count(text));
          },
        ),
        { numRuns: 300 },
      );
    });
  }
});
