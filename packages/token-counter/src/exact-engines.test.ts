import { ENCODINGS as EXACT_ENCODINGS, type Encoding as ExactEncoding } from '@ctxguard/bpe';
import { splitPieces } from '@ctxguard/bpe/internal';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunks, loadCorpus } from '../../../test/support/real-text-corpus.ts';
import { tokenizerStrings } from '../../../test/support/tokenizer-strings.ts';
import { EncoderPool } from './encoder-pool.js';
import type { ExactEngine } from './exact-engine.js';

const pool = new EncoderPool();
const engines = new Map<string, ExactEngine>();
const get = (kind: 'bpe' | 'tiktoken' | 'gpt-tokenizer', encoding: ExactEncoding) =>
  engines.get(`${kind}:${encoding}`) as ExactEngine;

beforeAll(async () => {
  for (const encoding of EXACT_ENCODINGS) {
    for (const kind of ['bpe', 'tiktoken', 'gpt-tokenizer'] as const) {
      engines.set(`${kind}:${encoding}`, await pool.acquire(kind, encoding));
    }
  }
}, 60_000);
afterAll(() => {
  for (const engine of engines.values()) engine.dispose();
});

const handWritten = [
  '',
  'Hello world',
  "it's I'M we'LL they'Re 'ſ 'S",
  '日本語のテキストです。東京は日本の首都です。这是中文文本。한국어 텍스트',
  'emoji 😀🎉👩‍👩‍👧‍👦 flags 🇯🇵🇫🇷 skin 👍🏽',
  'tabs\tand\r\nwindows lines\n\n\n   trailing   ',
  'NEL\u0085here BOM\ufeffthere NBSP\u00a0and\u2028LS\u3000ideographic space',
  'lone \ud800 high and \udc00 low surrogates',
  'NUL\u0000byte and <|endoftext|> and <|im_start|> as plain text',
  '1234567890 3.14159 1e10 0xDEADBEEF',
  'const x = (a, b) => a ?? b; // comment\n\tif (x) { return [1,2,3]; }',
  '{"key": "value", "nested": {"array": [1, 2, 3], "flag": true}}',
  'ÀÉÎÕÜ àéîõü ÇçÑñ ĀāĒēĪī Ελληνικά Русский عربي עברית हिन्दी ไทย',
];

describe('exact engines agree with each other', () => {
  for (const encoding of EXACT_ENCODINGS) {
    it(`count and encode identically on hand-picked edge cases (${encoding})`, () => {
      for (const text of handWritten) {
        const reference = get('tiktoken', encoding).encode?.(text);
        expect(get('bpe', encoding).encode?.(text), text).toEqual(reference);
        expect(get('gpt-tokenizer', encoding).count(text), text).toBe(reference?.length);
        expect(get('bpe', encoding).count(text), text).toBe(reference?.length);
      }
    });

    it(`agree on real documentation, sources, JSON and CJK from node_modules (${encoding})`, () => {
      const docs = loadCorpus();
      expect(docs.length).toBeGreaterThan(20);
      const classes = new Set<string>();
      for (const doc of docs) {
        classes.add(doc.cls);
        const text = doc.text.slice(0, 20_000);
        const reference = get('tiktoken', encoding).count(text);
        expect(get('bpe', encoding).count(text), doc.source).toBe(reference);
        expect(get('gpt-tokenizer', encoding).count(text), doc.source).toBe(reference);
      }
      expect([...classes].sort()).toEqual(['cjk', 'code', 'json', 'prose']);
    }, 60_000);
  }

  it('splits text into the same pieces tiktoken merges (round trip of token bytes)', () => {
    const engine = get('bpe', 'o200k_base');
    const text = handWritten.join(' ');
    const pieces = splitPieces(text, 'o200k_base');
    expect(pieces.join('')).toBe(text);
    let total = 0;
    for (const piece of pieces) total += engine.count(piece);
    expect(total).toBe(engine.count(text));
  });

  it('stays exact on long unbroken runs (CJK, repeated letters, whitespace, base64)', () => {
    const cjk = Array.from({ length: 3000 }, (_, i) =>
      String.fromCharCode(0x4e00 + ((i * 7919) % 20000)),
    ).join('');
    const kana = 'あいうえおかきくけこさしすせそ'.repeat(150);
    const base64 = Array.from(
      { length: 3000 },
      (_, i) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'[(i * 37 + (i >> 3)) % 64],
    ).join('');
    const runs = [cjk, kana, 'a'.repeat(5000), ' '.repeat(4000), `${'='.repeat(3000)}x`, base64];
    for (const encoding of EXACT_ENCODINGS) {
      for (const text of runs) {
        expect(get('bpe', encoding).encode?.(text)).toEqual(get('tiktoken', encoding).encode?.(text));
      }
    }
  }, 60_000);
});

describe('property: the bpe and gpt-tokenizer engines equal tiktoken', () => {
  const mixed = tokenizerStrings();

  for (const encoding of EXACT_ENCODINGS) {
    it(`on random strings (${encoding})`, () => {
      fc.assert(
        fc.property(mixed, (text) => {
          const reference = get('tiktoken', encoding).encode?.(text);
          expect(get('bpe', encoding).encode?.(text)).toEqual(reference);
          expect(get('gpt-tokenizer', encoding).count(text)).toBe(reference?.length);
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
            const reference = get('tiktoken', encoding).count(text);
            expect(get('bpe', encoding).count(text)).toBe(reference);
            expect(get('gpt-tokenizer', encoding).count(text)).toBe(reference);
          },
        ),
        { numRuns: 300 },
      );
    });
  }
});

describe('encoder pool', () => {
  it('shares one encoder per engine and encoding, and frees it with the last handle', async () => {
    const own = new EncoderPool();
    const a = await own.acquire('tiktoken', 'cl100k_base');
    const b = await own.acquire('tiktoken', 'cl100k_base');
    expect(own.references('tiktoken', 'cl100k_base')).toBe(2);
    expect(a.count('shared encoder')).toBe(b.count('shared encoder'));
    a.dispose();
    a.dispose();
    expect(own.references('tiktoken', 'cl100k_base')).toBe(1);
    expect(() => a.count('x')).toThrow(/disposed/);
    expect(b.count('still alive')).toBeGreaterThan(0);
    b.dispose();
    expect(own.references('tiktoken', 'cl100k_base')).toBe(0);
    const c = await own.acquire('tiktoken', 'cl100k_base');
    expect(c.count('reloaded after free')).toBe(get('tiktoken', 'cl100k_base').count('reloaded after free'));
    c.dispose();
  });

  it('loads concurrently requested encoders once', async () => {
    const own = new EncoderPool();
    const handles = await Promise.all([own.acquire('bpe', 'cl100k_base'), own.acquire('bpe', 'cl100k_base')]);
    expect(own.references('bpe', 'cl100k_base')).toBe(2);
    expect(handles[0]?.linear).toBe(true);
    for (const h of handles) h.dispose();
    expect(own.references('bpe', 'cl100k_base')).toBe(0);
  });
});
