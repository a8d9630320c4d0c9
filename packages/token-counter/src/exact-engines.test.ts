import { ENCODINGS as EXACT_ENCODINGS, type Encoding as ExactEncoding } from '@ctxguard/bpe';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunks, loadCorpus } from '../../../test/support/real-text-corpus.ts';
import {
  longUnbrokenRuns,
  tokenizerEdgeCases,
  tokenizerStrings,
} from '../../../test/support/tokenizer-strings.ts';
import { EncoderPool } from './encoder-pool.js';
import type { ExactEngine } from './exact-engine.js';

const pool = new EncoderPool();
const engines = new Map<string, ExactEngine>();
const get = (kind: 'bpe' | 'tiktoken', encoding: ExactEncoding) =>
  engines.get(`${kind}:${encoding}`) as ExactEngine;

beforeAll(async () => {
  for (const encoding of EXACT_ENCODINGS) {
    for (const kind of ['bpe', 'tiktoken'] as const) {
      engines.set(`${kind}:${encoding}`, await pool.acquire(kind, encoding));
    }
  }
}, 60_000);
afterAll(() => {
  for (const engine of engines.values()) engine.dispose();
});

describe('exact engines agree with each other', () => {
  for (const encoding of EXACT_ENCODINGS) {
    it(`count and encode identically on hand-picked edge cases (${encoding})`, () => {
      for (const text of tokenizerEdgeCases) {
        const reference = get('tiktoken', encoding).encode?.(text);
        expect(get('bpe', encoding).encode?.(text), text).toEqual(reference);
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
      }
      expect([...classes].sort()).toEqual(['cjk', 'code', 'json', 'prose']);
    }, 60_000);
  }

  it('stays exact on long unbroken runs (CJK, repeated letters, whitespace, base64)', () => {
    const runs = longUnbrokenRuns();
    for (const encoding of EXACT_ENCODINGS) {
      for (const text of runs) {
        expect(get('bpe', encoding).encode?.(text)).toEqual(get('tiktoken', encoding).encode?.(text));
      }
    }
  }, 60_000);
});

describe('property: the bpe engine equals tiktoken', () => {
  const mixed = tokenizerStrings();

  for (const encoding of EXACT_ENCODINGS) {
    it(`on random strings (${encoding})`, () => {
      fc.assert(
        fc.property(mixed, (text) => {
          const reference = get('tiktoken', encoding).encode?.(text);
          expect(get('bpe', encoding).encode?.(text)).toEqual(reference);
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
